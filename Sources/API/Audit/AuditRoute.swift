/// The audit operations, recognized from method and path before the Fleet Engine routes.
///
/// Kept apart from `Route` so each surface stays in its own file; `RESTHandler` tries this after
/// the rider routes. Time travel (`?asOf=`) is not a route of its own: GetTrip and GetJourney take it.
enum AuditRoute: Sendable, Hashable {
    /// `GET /v1/providers/{p}/trips/{t}/history`
    case tripHistory(provider: String, tripId: String)
    /// `GET /v1/providers/{p}/vehicles/{v}/history`
    case vehicleHistory(provider: String, vehicleId: String)
    /// `GET /v1/providers/{p}/trips/{t}/routeAudit`
    case routeAudit(provider: String, tripId: String)

    /// The operation name, used as the `route` label in metrics.
    var label: String {
        switch self {
        case .tripHistory: "GetTripHistory"
        case .vehicleHistory: "GetVehicleHistory"
        case .routeAudit: "GetRouteAudit"
        }
    }

    /// The route for a request; nil when the path is not an audit path; METHOD_NOT_ALLOWED for
    /// an audit path with another method than GET (or HEAD).
    static func match(method: String, path: String) throws(APIError) -> AuditRoute? {
        // Most requests pass here: only paths ending in an audit resource are split into segments.
        guard path.utf8.starts(with: "/v1/providers/".utf8), Self.endsInAuditResource(path) else { return nil }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst(3).map(String.init)
        guard segments.count == 4, !segments[0].isEmpty, !segments[2].isEmpty else { return nil }
        let provider = segments[0], id = segments[2]
        let route: AuditRoute
        switch (segments[1], segments[3]) {
        case ("trips", "history"): route = .tripHistory(provider: provider, tripId: id)
        case ("vehicles", "history"): route = .vehicleHistory(provider: provider, vehicleId: id)
        case ("trips", "routeAudit"): route = .routeAudit(provider: provider, tripId: id)
        default: return nil
        }
        guard method == "GET" || method == "HEAD" else {
            throw APIError(.methodNotAllowed, "\(method) is not allowed on \(path) (allowed: GET)")
        }
        return route
    }

    /// Whether `path` ends in `/history` or `/routeAudit`, read from its bytes.
    private static func endsInAuditResource(_ path: String) -> Bool {
        for suffix in ["/history".utf8, "/routeAudit".utf8] where path.utf8.count > suffix.count {
            if path.utf8.suffix(suffix.count).elementsEqual(suffix) { return true }
        }
        return false
    }
}
