/// The audit operations on signed roots, recognized before the Fleet Engine routes.
enum AuditRootsRoute: Sendable, Hashable {
    /// `GET /v1/audit/roots`
    case listRoots

    var label: String {
        switch self {
        case .listRoots: "ListAuditRoots"
        }
    }

    /// The route for a request; nil when the path is not an audit path.
    static func match(method: String, path: String) throws(APIError) -> AuditRootsRoute? {
        guard path == "/v1/audit/roots" else { return nil }
        guard method == "GET" || method == "HEAD" else { throw APIError(.methodNotAllowed, "\(method) is not allowed on \(path) (allowed: GET)") }
        return .listRoots
    }
}
