import HTTP
import JSON
import Journey

/// The rider operations: the journey (GET, long poll, SSE), a rider's trips, share links and the
/// journey style. Journey GETs and stream opens also have a fast path (`RESTHandler.respondImmediately`).
extension OperationTable {
    static var rider: [APIOperation] {
        [
            APIOperation("GetJourney", "GET", "/v1/providers/{provider}/trips/{id}/journey", access: .rider(queryToken: true), crossOrigin: .allowed,
                         fastPath: .journey) { input throws(APIError) in
                var waitSeconds = 0
                if let text = try input.query.value("waitSeconds") {
                    guard let seconds = Int(text), (0...RiderService.maximumWaitSeconds).contains(seconds) else {
                        throw .invalidArgument("waitSeconds must be a whole number of seconds from 0 to \(RiderService.maximumWaitSeconds) (got \(String(text.prefix(32)).debugDescription))")
                    }
                    waitSeconds = seconds
                }
                if let asOf = try RESTHandler.timestamp(&input.query, "asOf") {
                    guard waitSeconds == 0 else { throw .invalidArgument("waitSeconds cannot be combined with asOf: a past view never changes") }
                    try input.query.finish()
                    return RESTHandler.json(try await input.api.audit.journey(provider: input.path.provider, tripId: input.path.id, asOf: asOf, reader: input.reader))
                }
                try input.query.finish()
                let answer = try await input.api.riders.journey(provider: input.path.provider, tripId: input.path.id, reader: input.reader,
                                                                ifNoneMatch: input.request.header("if-none-match"), waitSeconds: waitSeconds)
                return RESTHandler.journeyResponse(answer)
            },
            APIOperation("StreamJourney", "GET", "/v1/providers/{provider}/trips/{id}/journey:stream", access: .rider(queryToken: true), crossOrigin: .allowed,
                         fastPath: .journeyStream) { input throws(APIError) in
                try input.query.finish()
                let (api, request, path, reader) = (input.api, input.request, input.path, input.reader)
                let stream = try await api.streamQuota.holding(token: input.admission.token, address: request.clientAddress) { () async throws(APIError) in
                    try await api.riders.stream(provider: path.provider, tripId: path.id, reader: reader, lastEventId: RESTHandler.lastEventId(request),
                                                opening: { HTTPStream(finalBytesOnShutdown: $0) })
                }
                return RESTHandler.streamResponse(stream)
            },
            APIOperation("ShareTrip", "POST", "/v1/providers/{provider}/trips/{id}:share", access: .rider(queryToken: true), crossOrigin: .allowed) { input throws(APIError) in
                try input.query.finish()
                var body = try ProtoObject(try RESTHandler.body(input.request), at: "")
                let ttl = try body.take("ttlSeconds").map { v throws(APIError) in Int64(try ProtoValue.int32(v, at: "ttlSeconds")) }
                try body.finish()
                return RESTHandler.json(try await input.api.riders.share(provider: input.path.provider, tripId: input.path.id, ttlSeconds: ttl, reader: input.reader,
                                                                         context: input.request.requestId, host: input.request.header("host")))
            },
            APIOperation("UnshareTrip", "POST", "/v1/providers/{provider}/trips/{id}:unshare", access: .rider(queryToken: true), crossOrigin: .allowed) { input throws(APIError) in
                try input.query.finish()
                var body = try ProtoObject(try RESTHandler.body(input.request), at: "")
                let token = try body.take("token").map { v throws(APIError) in try ProtoValue.string(v, at: "token") }
                try body.finish()
                return RESTHandler.json(try await input.api.riders.unshare(provider: input.path.provider, tripId: input.path.id, token: token?.isEmpty == true ? nil : token,
                                                                           reader: input.reader, context: input.request.requestId))
            },
            APIOperation("ListConsumerTrips", "GET", "/v1/providers/{provider}/consumers/{id}/trips", access: .rider(queryToken: false), crossOrigin: .allowed) { input throws(APIError) in
                let activeOnly = try input.query.value("activeOnly").map { v throws(APIError) in try ProtoValue.bool(QueryParameters.json(v), at: "activeOnly") } ?? false
                try input.query.finish()
                return RESTHandler.json(try await input.api.riders.riderTrips(provider: input.path.provider, consumerId: input.path.id, activeOnly: activeOnly, reader: input.reader))
            },
            APIOperation("GetJourneyStyle", "GET", "/v1/providers/{provider}/journeyStyle", access: .rider(queryToken: false), crossOrigin: .allowed) { input throws(APIError) in
                try input.query.finish()
                let result = try await input.api.riders.journeyStyle(provider: input.path.provider, reader: input.reader)
                var response = RESTHandler.json(result)
                response.headers.append(("ETag", "\"\(result["version"]?.int64Value ?? 0)\""))
                return response
            },
            APIOperation("UpdateJourneyStyle", "PUT", "/v1/providers/{provider}/journeyStyle", access: .rider(queryToken: false), crossOrigin: .refused) { input throws(APIError) in
                try input.query.finish()
                let options = try JourneyStyleJSON.options(try RESTHandler.body(input.request))
                var expected: Int64?
                if let match = input.request.header("if-match") {
                    let tag = String(match.trimmingBlanks)
                    guard tag.count >= 3, tag.hasPrefix("\""), tag.hasSuffix("\""), let version = Int64(tag.dropFirst().dropLast()), version >= 0 else {
                        throw .invalidArgument("If-Match must be the quoted version of the journey style, such as \"3\" (got \(String(tag.prefix(32)).debugDescription))")
                    }
                    expected = version
                }
                let result = try await input.api.riders.setJourneyStyle(provider: input.path.provider, options: options, expectedVersion: expected, reader: input.reader,
                                                                        requestId: input.request.requestId)
                var response = RESTHandler.json(result)
                response.headers.append(("ETag", "\"\(result["version"]?.int64Value ?? 0)\""))
                return response
            },
        ]
    }
}
