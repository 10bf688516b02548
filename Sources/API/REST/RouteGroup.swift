import HTTP

/// Pages served beside the API under one first path segment (`/demo`), registered with the REST
/// handler instead of wrapping it.
///
/// A group answers `/{segment}` and every path under `/{segment}/`, before the API sees the request:
/// no token, CORS, metrics or read routing. Other requests never reach it.
package protocol RouteGroup: Sendable {
    /// The first path segment the group owns, such as `demo`.
    var segment: String { get }

    /// Answers a request for one of the group's paths.
    func respond(to request: HTTPRequest) async -> HTTPResponse
}
