/// The route-plan, guidance and offer operations, recognized from method and path before the
/// Fleet Engine routes (their paths share the `trips/{t}` and `vehicles/{v}` prefixes).
enum DriverRoute: Sendable, Hashable {
    /// `POST /v1/providers/{p}/trips/{t}:planRoute`
    case planRoute(provider: String, tripId: String)
    /// `POST /v1/providers/{p}/trips/{t}:selectRoute`
    case selectRoute(provider: String, tripId: String)
    /// `POST /v1/providers/{p}/vehicles/{v}:reportRouteTokenExecution`
    case reportRouteTokenExecution(provider: String, vehicleId: String)
    /// `POST /v1/providers/{p}/vehicles/{v}:continueToNextDestination`
    case continueToNextDestination(provider: String, vehicleId: String)
    /// `POST /v1/providers/{p}/vehicles/{v}:offerTrip`
    case offerTrip(provider: String, vehicleId: String)
    /// `POST /v1/providers/{p}/vehicles/{v}:acceptOffer`
    case acceptOffer(provider: String, vehicleId: String)
    /// `POST /v1/providers/{p}/vehicles/{v}:declineOffer`
    case declineOffer(provider: String, vehicleId: String)
    /// `GET /v1/providers/{p}/vehicles/{v}/driverFeed`
    case driverFeed(provider: String, vehicleId: String)
    /// `GET /v1/providers/{p}/vehicles/{v}/driverFeed:stream`
    case driverFeedStream(provider: String, vehicleId: String)

    /// The operation name, used as the `route` label in metrics.
    var label: String {
        switch self {
        case .planRoute: "PlanRoute"
        case .selectRoute: "SelectRoute"
        case .reportRouteTokenExecution: "ReportRouteTokenExecution"
        case .continueToNextDestination: "ContinueToNextDestination"
        case .offerTrip: "OfferTrip"
        case .acceptOffer: "AcceptOffer"
        case .declineOffer: "DeclineOffer"
        case .driverFeed: "GetDriverFeed"
        case .driverFeedStream: "StreamDriverFeed"
        }
    }

    static let tripVerbs: [(String, @Sendable (String, String) -> DriverRoute)] = [
        (":planRoute", { .planRoute(provider: $0, tripId: $1) }),
        (":selectRoute", { .selectRoute(provider: $0, tripId: $1) }),
    ]
    static let vehicleVerbs: [(String, @Sendable (String, String) -> DriverRoute)] = [
        (":reportRouteTokenExecution", { .reportRouteTokenExecution(provider: $0, vehicleId: $1) }),
        (":continueToNextDestination", { .continueToNextDestination(provider: $0, vehicleId: $1) }),
        (":offerTrip", { .offerTrip(provider: $0, vehicleId: $1) }),
        (":acceptOffer", { .acceptOffer(provider: $0, vehicleId: $1) }),
        (":declineOffer", { .declineOffer(provider: $0, vehicleId: $1) }),
    ]

    /// The route for a request; nil when the path is not one of these (the other routes get it);
    /// METHOD_NOT_ALLOWED for one of these paths with another method.
    static func match(method: String, path: String) throws(APIError) -> DriverRoute? {
        guard path.utf8.starts(with: "/v1/providers/".utf8), path.contains(":") || path.hasSuffix("/driverFeed") else { return nil }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst(3).map(String.init)
        guard segments.count >= 3, !segments[0].isEmpty, !segments[2].isEmpty else { return nil }
        let provider = segments[0]
        func only(_ allowed: String, _ route: DriverRoute) throws(APIError) -> DriverRoute {
            if method == allowed || (method == "HEAD" && allowed == "GET") { return route }
            throw APIError(.methodNotAllowed, "\(method) is not allowed on \(path) (allowed: \(allowed))")
        }
        let id = segments[2]
        switch (segments.count, segments[1]) {
        case (3, "trips"):
            for (suffix, make) in tripVerbs where id.hasSuffix(suffix) && id.count > suffix.count {
                return try only("POST", make(provider, String(id.dropLast(suffix.count))))
            }
        case (3, "vehicles"):
            for (suffix, make) in vehicleVerbs where id.hasSuffix(suffix) && id.count > suffix.count {
                return try only("POST", make(provider, String(id.dropLast(suffix.count))))
            }
        case (4, "vehicles"):
            if segments[3] == "driverFeed" { return try only("GET", .driverFeed(provider: provider, vehicleId: id)) }
            if segments[3] == "driverFeed:stream" { return try only("GET", .driverFeedStream(provider: provider, vehicleId: id)) }
        default:
            break
        }
        return nil
    }
}
