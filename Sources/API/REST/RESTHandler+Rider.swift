import Foundation
import HTTP
import JSON
import Journey

/// The rider endpoints' fast path and the pieces their table entries share (`OperationTable+Rider`).
extension RESTHandler {
    // MARK: - Fast path (libmicrohttpd thread)

    /// Journey GETs and stream opens answered from memory on the server thread: the token was
    /// verified before (cached), and the view, the access check and the encoded bytes are all in
    /// memory. Anything else (a long poll that must wait, an error, a cold token or view, another
    /// node owning the projection) returns nil and takes the ordinary path.
    package func respondImmediately(to request: HTTPRequest) -> HTTPResponse? {
        guard request.method == "GET", Self.endsInJourney(request.path) else { return nil }
        let started = ContinuousClock.now
        guard let (route, path) = try? OperationTable.standard.match(method: request.method, path: request.path), let fastPath = route.fastPath else { return nil }
        var waitSeconds: Int?
        var accessToken: String?
        for (name, value) in request.query {
            switch name {
            case "access_token":
                guard accessToken == nil else { return nil }
                accessToken = value
            case "waitSeconds", "wait_seconds":
                // Anything but one valid value is the ordinary path's 400.
                guard fastPath == .journey, waitSeconds == nil, let seconds = Int(value), (0...RiderService.maximumWaitSeconds).contains(seconds) else {
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
        switch fastPath {
        case .journey:
            guard let answer = api.riders.journeyFromMemory(provider: path.provider, tripId: path.id, reader: reader,
                                                            ifNoneMatch: request.header("if-none-match"), waitSeconds: waitSeconds ?? 0)
            else { return nil }
            response = Self.journeyResponse(answer)
        case .journeyStream:
            // Over a cap, the ordinary path answers the 429.
            guard let stream = api.streamQuota.holding(token: token, address: request.clientAddress, {
                api.riders.streamFromMemory(provider: path.provider, tripId: path.id, reader: reader, lastEventId: Self.lastEventId(request),
                                            opening: { HTTPStream(finalBytesOnShutdown: $0) })
            }) else { return nil }
            response = Self.streamResponse(stream)
        }
        api.observe(route.name, method: request.method, status: response.status, since: started)
        crossOrigin(&response, request, route)
        return response
    }

    /// Whether `path` ends in `/journey` or `/journey:stream`, read from its bytes: other GETs skip the fast path at once.
    static func endsInJourney(_ path: String) -> Bool {
        for suffix in ["/journey".utf8, "/journey:stream".utf8] where path.utf8.count > suffix.count {
            if path.utf8.suffix(suffix.count).elementsEqual(suffix) { return true }
        }
        return false
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
