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

    /// Whether a rider's browser app on another origin may call it (`CORSPolicy`): everything but
    /// changing the provider's journey style.
    var allowsCrossOrigin: Bool {
        switch self {
        case .updateJourneyStyle: false
        default: true
        }
    }

    /// The methods a preflight for this operation allows.
    var corsMethods: [String] {
        switch self {
        case .share, .unshare: ["POST"]
        default: ["GET", "HEAD"]
        }
    }

    /// The route for a request; nil when the path is not a rider path (the Fleet Engine routes get it);
    /// METHOD_NOT_ALLOWED for a rider path with another method.
    static func match(method: String, path: String) throws(APIError) -> RiderRoute? {
        // Every request passes here first: one prefix check for other paths, and byte-wise segments
        // (no String per segment, no grapheme breaking) for rider paths.
        guard path.utf8.starts(with: "/v1/providers/".utf8) else { return nil }
        let segments = Array(path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst(3))
        guard segments.count >= 2, segments.count <= 4, !segments[0].isEmpty else { return nil }
        func text(_ segment: Substring.UTF8View) -> String { String(Substring(segment)) }
        func equals(_ segment: Substring.UTF8View, _ literal: StaticString) -> Bool {
            segment.elementsEqual(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
        }
        func only(_ allowed: String, _ route: RiderRoute, or second: (String, RiderRoute)? = nil) throws(APIError) -> RiderRoute {
            if method == allowed || (method == "HEAD" && allowed == "GET") { return route }
            if let second, method == second.0 { return second.1 }
            let names = ([allowed] + (second.map { [$0.0] } ?? [])).sorted().joined(separator: ", ")
            throw APIError(.methodNotAllowed, "\(method) is not allowed on \(path) (allowed: \(names))")
        }
        let provider = segments[0]
        switch segments.count {
        case 2 where equals(segments[1], "journeyStyle"):
            return try only("GET", .getJourneyStyle(provider: text(provider)), or: ("PUT", .updateJourneyStyle(provider: text(provider))))
        case 3 where equals(segments[1], "trips"):
            let id = text(segments[2])
            for (suffix, make) in [(":share", RiderRoute.share), (":unshare", RiderRoute.unshare)] where id.hasSuffix(suffix) && id.count > suffix.count {
                return try only("POST", make(text(provider), String(id.dropLast(suffix.count))))
            }
            return nil
        case 4 where equals(segments[1], "trips") && !segments[2].isEmpty:
            if equals(segments[3], "journey") { return try only("GET", .journey(provider: text(provider), tripId: text(segments[2]))) }
            if equals(segments[3], "journey:stream") { return try only("GET", .journeyStream(provider: text(provider), tripId: text(segments[2]))) }
            return nil
        case 4 where equals(segments[1], "consumers") && !segments[2].isEmpty && equals(segments[3], "trips"):
            return try only("GET", .consumerTrips(provider: text(provider), consumerId: text(segments[2])))
        default:
            return nil
        }
    }
}
