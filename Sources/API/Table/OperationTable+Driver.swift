import HTTP
import JSON
import Journey

/// The route-plan, guidance, offer and driver feed operations (REST only).
extension OperationTable {
    static var driver: [APIOperation] {
        /// A POST verb on a trip or vehicle that takes the body as the service reads it.
        func verb(_ name: String, _ path: String,
                  _ call: @escaping @Sendable (DriverService, PathParameters, JSONValue, CommandContext) async throws(APIError) -> JSONValue) -> APIOperation {
            APIOperation(name, "POST", path, access: .token) { input throws(APIError) in
                try input.query.finish()
                return RESTHandler.json(try await call(input.api.drivers, input.path, try RESTHandler.body(input.request), input.command))
            }
        }
        return [
            verb("PlanRoute", "/v1/providers/{provider}/trips/{id}:planRoute") { drivers, path, body, context throws(APIError) in
                try await drivers.planRoute(provider: path.provider, tripId: path.id, body: body, context: context)
            },
            verb("SelectRoute", "/v1/providers/{provider}/trips/{id}:selectRoute") { drivers, path, body, context throws(APIError) in
                try await drivers.selectRoute(provider: path.provider, tripId: path.id, routeIndex: try RoutePlanJSON.routeIndex(body), context: context)
            },
            verb("ReportRouteTokenExecution", "/v1/providers/{provider}/vehicles/{id}:reportRouteTokenExecution") { drivers, path, body, context throws(APIError) in
                try await drivers.reportRouteTokenExecution(provider: path.provider, vehicleId: path.id, body: body, context: context)
            },
            verb("ContinueToNextDestination", "/v1/providers/{provider}/vehicles/{id}:continueToNextDestination") { drivers, path, body, context throws(APIError) in
                try ProtoObject(body, at: "").finish()
                return try await drivers.continueToNextDestination(provider: path.provider, vehicleId: path.id, context: context)
            },
            verb("OfferTrip", "/v1/providers/{provider}/vehicles/{id}:offerTrip") { drivers, path, body, context throws(APIError) in
                try await drivers.offerTrip(provider: path.provider, vehicleId: path.id, body: body, context: context)
            },
            verb("AcceptOffer", "/v1/providers/{provider}/vehicles/{id}:acceptOffer") { drivers, path, body, context throws(APIError) in
                try await drivers.answerOffer(provider: path.provider, vehicleId: path.id, body: body, accept: true, context: context)
            },
            verb("DeclineOffer", "/v1/providers/{provider}/vehicles/{id}:declineOffer") { drivers, path, body, context throws(APIError) in
                try await drivers.answerOffer(provider: path.provider, vehicleId: path.id, body: body, accept: false, context: context)
            },
            APIOperation("GetDriverFeed", "GET", "/v1/providers/{provider}/vehicles/{id}/driverFeed", access: .token) { input throws(APIError) in
                try input.query.finish()
                return RESTHandler.json(try await input.api.drivers.feed(provider: input.path.provider, vehicleId: input.path.id, caller: input.caller))
            },
            APIOperation("StreamDriverFeed", "GET", "/v1/providers/{provider}/vehicles/{id}/driverFeed:stream", access: .token) { input throws(APIError) in
                try input.query.finish()
                let (drivers, request, path, caller, expires) = (input.api.drivers, input.request, input.path, input.caller, input.admission.expires)
                let stream = try await input.api.streamQuota.holding(token: input.admission.token, address: request.clientAddress) { () async throws(APIError) in
                    try await drivers.stream(provider: path.provider, vehicleId: path.id, caller: caller, expires: expires, lastEventId: RESTHandler.lastEventId(request),
                                             opening: { HTTPStream(finalBytesOnShutdown: $0) })
                }
                return RESTHandler.streamResponse(stream)
            },
        ]
    }
}
