import Foundation
import HTTP
import JSON
import Journey

/// The rider endpoints over HTTP: journey GET (with the fast path), long poll, SSE, a rider's
/// trips, share links and the journey style.
extension RESTHandler {
    // MARK: - Fast path (libmicrohttpd thread)

    /// Journey GETs and stream opens answered from memory on the server thread: the token was
    /// verified before (cached), and the view, the access check and the encoded bytes are all in
    /// memory. Anything else (a long poll that must wait, an error, a cold token or view, another
    /// node owning the projection) returns nil and takes the ordinary path.
    package func respondImmediately(to request: HTTPRequest) -> HTTPResponse? {
        guard request.method == "GET" else { return nil }
        let started = ContinuousClock.now
        guard let route = try? RiderRoute.match(method: request.method, path: request.path) else { return nil }
        var waitSeconds: Int?
        var accessToken: String?
        for (name, value) in request.query {
            switch name {
            case "access_token":
                guard accessToken == nil else { return nil }
                accessToken = value
            case "waitSeconds", "wait_seconds":
                // Anything but one valid value is the ordinary path's 400.
                guard case .journey = route, waitSeconds == nil, let seconds = Int(value), (0...RiderService.maximumWaitSeconds).contains(seconds) else {
                    return nil
                }
                waitSeconds = seconds
            default:
                guard QueryParameters.system.contains(name) || name.hasPrefix("header.") else { return nil }
            }
        }
        let header = request.header("authorization")
        guard (header == nil) != (accessToken == nil) else { return nil }
        guard let token = accessToken ?? (try? Authenticator.bearerToken(header)), let reader = api.riders.cachedReader(token: token) else { return nil }
        var response: HTTPResponse
        let label: String
        switch route {
        case .journey(let provider, let tripId):
            guard let answer = api.riders.journeyFromMemory(provider: provider, tripId: tripId, reader: reader,
                                                            ifNoneMatch: request.header("if-none-match"), waitSeconds: waitSeconds ?? 0)
            else { return nil }
            response = Self.journeyResponse(answer)
            label = route.label
        case .journeyStream(let provider, let tripId):
            // Over a cap, the ordinary path answers the 429.
            guard let stream = api.streamQuota.holding(token: token, address: request.clientAddress, {
                api.riders.streamFromMemory(provider: provider, tripId: tripId, reader: reader, lastEventId: Self.lastEventId(request))
            }) else { return nil }
            response = Self.streamResponse(stream)
            label = route.label
        default:
            return nil
        }
        api.observe(label, method: request.method, status: response.status, since: started)
        crossOrigin(&response, request)
        return response
    }

    // MARK: - Ordinary path

    /// Answers a rider route (in the handler's Task).
    func handleRider(_ route: RiderRoute, _ request: HTTPRequest) async throws(APIError) -> HTTPResponse {
        var query = QueryParameters(request.query)
        let riders = api.riders
        let token = try Self.riderToken(request.header("authorization"), &query, acceptsQueryToken: route.acceptsAccessToken)
        let reader = try riders.reader(token: token)
        let result: JSONValue
        var headers: [(name: String, value: String)] = []
        switch route {
        case .journey(let provider, let tripId):
            var waitSeconds = 0
            if let text = try query.value("waitSeconds") {
                guard let seconds = Int(text), (0...RiderService.maximumWaitSeconds).contains(seconds) else {
                    throw .invalidArgument("waitSeconds must be a whole number of seconds from 0 to \(RiderService.maximumWaitSeconds) (got \(String(text.prefix(32)).debugDescription))")
                }
                waitSeconds = seconds
            }
            if let asOf = try Self.timestamp(&query, "asOf") {
                guard waitSeconds == 0 else { throw .invalidArgument("waitSeconds cannot be combined with asOf: a past view never changes") }
                try query.finish()
                return Self.json(try await api.audit.journey(provider: provider, tripId: tripId, asOf: asOf, reader: reader))
            }
            try query.finish()
            let answer = try await riders.journey(provider: provider, tripId: tripId, reader: reader, ifNoneMatch: request.header("if-none-match"), waitSeconds: waitSeconds)
            return Self.journeyResponse(answer)
        case .journeyStream(let provider, let tripId):
            try query.finish()
            let stream = try await api.streamQuota.holding(token: token, address: request.clientAddress) { () async throws(APIError) in
                try await riders.stream(provider: provider, tripId: tripId, reader: reader, lastEventId: Self.lastEventId(request))
            }
            return Self.streamResponse(stream)
        case .share(let provider, let tripId):
            try query.finish()
            var body = try ProtoObject(try Self.body(request), at: "")
            let ttl = try body.take("ttlSeconds").map { v throws(APIError) in Int64(try ProtoValue.int32(v, at: "ttlSeconds")) }
            try body.finish()
            result = try await riders.share(provider: provider, tripId: tripId, ttlSeconds: ttl, reader: reader, context: request.requestId, host: request.header("host"))
        case .unshare(let provider, let tripId):
            try query.finish()
            var body = try ProtoObject(try Self.body(request), at: "")
            let token = try body.take("token").map { v throws(APIError) in try ProtoValue.string(v, at: "token") }
            try body.finish()
            result = try await riders.unshare(provider: provider, tripId: tripId, token: token?.isEmpty == true ? nil : token, reader: reader, context: request.requestId)
        case .consumerTrips(let provider, let consumerId):
            let activeOnly = try query.value("activeOnly").map { v throws(APIError) in try ProtoValue.bool(QueryParameters.json(v), at: "activeOnly") } ?? false
            try query.finish()
            result = try await riders.riderTrips(provider: provider, consumerId: consumerId, activeOnly: activeOnly, reader: reader)
        case .getJourneyStyle(let provider):
            try query.finish()
            result = try await riders.journeyStyle(provider: provider, reader: reader)
            headers.append(("ETag", "\"\(result["version"]?.int64Value ?? 0)\""))
        case .updateJourneyStyle(let provider):
            try query.finish()
            let options = try JourneyStyleJSON.options(try Self.body(request))
            var expected: Int64?
            if let match = request.header("if-match") {
                let tag = String(match.trimmingBlanks)
                guard tag.count >= 3, tag.hasPrefix("\""), tag.hasSuffix("\""), let version = Int64(tag.dropFirst().dropLast()), version >= 0 else {
                    throw .invalidArgument("If-Match must be the quoted version of the journey style, such as \"3\" (got \(String(tag.prefix(32)).debugDescription))")
                }
                expected = version
            }
            result = try await riders.setJourneyStyle(provider: provider, options: options, expectedVersion: expected, reader: reader, requestId: request.requestId)
            headers.append(("ETag", "\"\(result["version"]?.int64Value ?? 0)\""))
        }
        var response = Self.json(result)
        response.headers += headers
        return response
    }

    /// The bearer token: from `Authorization`, or (where allowed) `?access_token=`, never both.
    static func riderToken(_ header: String?, _ query: inout QueryParameters, acceptsQueryToken: Bool) throws(APIError) -> String {
        guard acceptsQueryToken, let token = try query.value("access_token") else { return try Authenticator.bearerToken(header) }
        guard header == nil else { throw .invalidArgument("send the token either in the Authorization header or as access_token, not both") }
        guard !token.isEmpty else { throw .unauthenticated("access_token is empty") }
        return token
    }

    /// `Last-Event-ID` as a version (a malformed one counts as none: the stream starts afresh).
    static func lastEventId(_ request: HTTPRequest) -> Int64? {
        request.header("last-event-id").flatMap { Int64($0.trimmingBlanks) }
    }

    static func journeyResponse(_ answer: RiderService.JourneyAnswer) -> HTTPResponse {
        switch answer {
        case .view(let snapshot):
            return HTTPResponse(status: 200, headers: [
                ("Content-Type", "application/json; charset=utf-8"), ("ETag", snapshot.etag), ("Cache-Control", "private, no-cache"),
            ], body: .bytes(snapshot.body))
        case .notModified(let snapshot):
            return HTTPResponse(status: 304, headers: [("ETag", snapshot.etag), ("Cache-Control", "private, no-cache")])
        }
    }

    static func streamResponse(_ stream: HTTPStream) -> HTTPResponse {
        .stream(stream, headers: [("Cache-Control", "no-cache"), ("X-Accel-Buffering", "no")])
    }
}
