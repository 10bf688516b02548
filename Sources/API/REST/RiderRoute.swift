/// The rider-facing operations, recognized from method and path before the Fleet Engine routes.
///
/// Kept apart from `Route` so each surface stays in its own file; `RESTHandler` tries this first.
enum RiderRoute: Sendable, Hashable {
    /// `GET /v1/providers/{p}/trips/{t}/journey`
    case journey(provider: String, tripId: String)
    /// `GET /v1/providers/{p}/trips/{t}/journey:stream`
    case journeyStream(provider: String, tripId: String)
    /// `POST /v1/providers/{p}/trips/{t}:share`
    case share(provider: String, tripId: String)
    /// `POST /v1/providers/{p}/trips/{t}:unshare`
    case unshare(provider: String, tripId: String)
    /// `GET /v1/providers/{p}/consumers/{c}/trips`
    case consumerTrips(provider: String, consumerId: String)
    /// `GET` / `PUT /v1/providers/{p}/journeyStyle`
    case getJourneyStyle(provider: String)
    case updateJourneyStyle(provider: String)

    /// The operation name, used as the `route` label in metrics.
    var label: String {
        switch self {
        case .journey: "GetJourney"
        case .journeyStream: "StreamJourney"
        case .share: "ShareTrip"
        case .unshare: "UnshareTrip"
        case .consumerTrips: "ListConsumerTrips"
        case .getJourneyStyle: "GetJourneyStyle"
        case .updateJourneyStyle: "UpdateJourneyStyle"
        }
    }

    /// Whether the operation accepts the token as `?access_token=` (for browsers' EventSource).
    var acceptsAccessToken: Bool {
        switch self {
        case .journey, .journeyStream, .share, .unshare: true
        default: false
        }
    }

    /// The route for a request; nil when the path is not a rider path (the Fleet Engine routes get it);
    /// METHOD_NOT_ALLOWED for a rider path with another method.
    static func match(method: String, path: String) throws(APIError) -> RiderRoute? {
        guard path.hasPrefix("/v1/providers/") else { return nil }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        guard segments.count >= 4, !segments[2].isEmpty else { return nil }
        let provider = segments[2]
        func only(_ allowed: [String: RiderRoute]) throws(APIError) -> RiderRoute {
            if let route = allowed[method] { return route }
            if method == "HEAD", let route = allowed["GET"] { return route }
            throw APIError(.methodNotAllowed, "\(method) is not allowed on \(path) (allowed: \(allowed.keys.sorted().joined(separator: ", ")))")
        }
        switch segments.count {
        case 4 where segments[3] == "journeyStyle":
            return try only(["GET": .getJourneyStyle(provider: provider), "PUT": .updateJourneyStyle(provider: provider)])
        case 5 where segments[3] == "trips":
            let id = segments[4]
            for (suffix, make) in [(":share", RiderRoute.share), (":unshare", RiderRoute.unshare)] where id.hasSuffix(suffix) && id.count > suffix.count {
                return try only(["POST": make(provider, String(id.dropLast(suffix.count)))])
            }
            return nil
        case 6 where segments[3] == "trips" && !segments[4].isEmpty:
            switch segments[5] {
            case "journey": return try only(["GET": .journey(provider: provider, tripId: segments[4])])
            case "journey:stream": return try only(["GET": .journeyStream(provider: provider, tripId: segments[4])])
            default: return nil
            }
        case 6 where segments[3] == "consumers" && !segments[4].isEmpty && segments[5] == "trips":
            return try only(["GET": .consumerTrips(provider: provider, consumerId: segments[4])])
        default:
            return nil
        }
    }
}
