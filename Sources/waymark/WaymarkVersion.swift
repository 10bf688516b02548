/// The version `waymark --version` prints.
///
/// Bumped by hand, here and nowhere else, in the commit that cuts a release (the API's own version
/// is `info.version` in api/openapi.json and moves only with the API).
enum WaymarkVersion {
    static let current = "0.9.0"
}
