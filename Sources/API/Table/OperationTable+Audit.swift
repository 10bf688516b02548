import HTTP
import JSON

/// The audit operations: history pages, the route audit and the signed roots. Time travel is no
/// operation of its own: GetTrip and GetJourney take `?asOf=`.
extension OperationTable {
    static var audit: [APIOperation] {
        [
            APIOperation("GetTripHistory", "GET", "/v1/providers/{provider}/trips/{id}/history", access: .token) { input throws(APIError) in
                let includeVehicle = try RESTHandler.include(&input.query)
                var history = try RESTHandler.historyRequest(&input.query, provider: input.path.provider, subject: .trip(input.path.id))
                history.includeVehicle = includeVehicle
                try input.query.finish()
                return RESTHandler.json(RESTHandler.historyJSON(try await input.api.audit.history(history, caller: input.caller)))
            },
            APIOperation("GetVehicleHistory", "GET", "/v1/providers/{provider}/vehicles/{id}/history", access: .token) { input throws(APIError) in
                let history = try RESTHandler.historyRequest(&input.query, provider: input.path.provider, subject: .vehicle(input.path.id))
                try input.query.finish()
                return RESTHandler.json(RESTHandler.historyJSON(try await input.api.audit.history(history, caller: input.caller)))
            },
            APIOperation("GetRouteAudit", "GET", "/v1/providers/{provider}/trips/{id}/routeAudit", access: .token) { input throws(APIError) in
                try input.query.finish()
                return RESTHandler.json(try await input.api.audit.routeAudit(provider: input.path.provider, tripId: input.path.id, caller: input.caller))
            },
            // Server and auditor tokens of any provider: a root holds hashes and feed positions only.
            APIOperation("ListAuditRoots", "GET", "/v1/audit/roots", access: .roles([.server, .auditor], action: "list audit roots")) { input throws(APIError) in
                try await RESTHandler.listAuditRoots(&input.query, api: input.api)
            },
        ]
    }
}
