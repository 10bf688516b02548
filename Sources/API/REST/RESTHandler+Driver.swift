import HTTP
import JSON
import Journey

/// The route-plan, guidance, offer and driver feed endpoints over HTTP.
extension RESTHandler {
    /// Answers a driver route (in the handler's Task).
    func handleDriver(_ route: DriverRoute, _ request: HTTPRequest) async throws(APIError) -> HTTPResponse {
        let query = QueryParameters(request.query)
        let bearer = try Authenticator.bearerToken(request.header("authorization"))
        if ShareLinkToken.looksLikeLink(bearer) {
            _ = try api.riders.reader(token: bearer)  // a forged or expired link is 401, a genuine one 403
            throw .permissionDenied("a share-link token may only read its trip's journey")
        }
        let (caller, expires) = try api.authenticator.verifyWithExpiry(token: bearer)
        let context = CommandContext(caller: caller, requestId: request.requestId)
        let drivers = api.drivers
        try query.finish()
        let result: JSONValue
        switch route {
        case .planRoute(let provider, let tripId):
            result = try await drivers.planRoute(provider: provider, tripId: tripId, body: try Self.body(request), context: context)
        case .selectRoute(let provider, let tripId):
            let index = try RoutePlanJSON.routeIndex(try Self.body(request))
            result = try await drivers.selectRoute(provider: provider, tripId: tripId, routeIndex: index, context: context)
        case .reportRouteTokenExecution(let provider, let vehicleId):
            result = try await drivers.reportRouteTokenExecution(provider: provider, vehicleId: vehicleId, body: try Self.body(request), context: context)
        case .continueToNextDestination(let provider, let vehicleId):
            let body = try ProtoObject(try Self.body(request), at: "")
            try body.finish()
            result = try await drivers.continueToNextDestination(provider: provider, vehicleId: vehicleId, context: context)
        case .offerTrip(let provider, let vehicleId):
            result = try await drivers.offerTrip(provider: provider, vehicleId: vehicleId, body: try Self.body(request), context: context)
        case .acceptOffer(let provider, let vehicleId):
            result = try await drivers.answerOffer(provider: provider, vehicleId: vehicleId, body: try Self.body(request), accept: true, context: context)
        case .declineOffer(let provider, let vehicleId):
            result = try await drivers.answerOffer(provider: provider, vehicleId: vehicleId, body: try Self.body(request), accept: false, context: context)
        case .driverFeed(let provider, let vehicleId):
            result = try await drivers.feed(provider: provider, vehicleId: vehicleId, caller: caller)
        case .driverFeedStream(let provider, let vehicleId):
            let stream = try await api.streamQuota.holding(token: bearer, address: request.clientAddress) { () async throws(APIError) in
                try await drivers.stream(provider: provider, vehicleId: vehicleId, caller: caller, expires: expires, lastEventId: Self.lastEventId(request))
            }
            return Self.streamResponse(stream)
        }
        return Self.json(result)
    }
}
