import JSON
import Testing
@testable import API

/// The operation name and path parameters the table finds for a request, nil when none.
private func match(_ method: String, _ path: String) throws -> (String, PathParameters)? {
    try OperationTable.standard.match(method: method, path: path).map { ($0.operation.name, $0.parameters) }
}

@Suite struct OperationTableTests {
    @Test func routesAreRecognizedAndOthersAreNotFoundOrMethodNotAllowed() throws {
        #expect(try match("POST", "/v1/providers/p/trips:search")! == ("SearchTrips", PathParameters(provider: "p")))
        #expect(try match("GET", "/v1/providers/p/trips/t-1")! == ("GetTrip", PathParameters(provider: "p", id: "t-1")))
        #expect(try match("POST", "/v1/providers/p/vehicles/v:updateAttributes")! == ("UpdateVehicleAttributes", PathParameters(provider: "p", id: "v")))
        #expect(try match("GET", "/v1/providers/p/vehicles")! == ("ListVehicles", PathParameters(provider: "p")))
        #expect(try match("HEAD", "/healthz")! == ("healthz", PathParameters()))
        #expect(performing: { try match("PATCH", "/v1/providers/p/trips/t") }, throws: {
            ($0 as? APIError)?.code == .methodNotAllowed && ($0 as? APIError)?.message == "PATCH is not allowed on /v1/providers/p/trips/t (allowed: DELETE, GET, PUT)"
        })
        for other in ["/v1/providers//trips/t", "/v2/providers/p/trips/t", "/v1/providers/p/trips/", "/healthz/", "/v1/providers/p/trips/t/x"] {
            #expect(try match("GET", other) == nil, "\(other)")
        }
    }

    @Test func webhookAndAuditRoutesMatchTheirPathsOnlyAndRefuseOtherMethods() throws {
        #expect(try match("POST", "/v1/providers/p/webhooks")! == ("CreateWebhook", PathParameters(provider: "p")))
        #expect(try match("GET", "/v1/providers/p/webhooks")! == ("ListWebhooks", PathParameters(provider: "p")))
        #expect(try match("DELETE", "/v1/providers/p/webhooks/w-1")! == ("DeleteWebhook", PathParameters(provider: "p", id: "w-1")))
        #expect(try match("POST", "/v1/providers/p/webhooks/w-1:resume")! == ("ResumeWebhook", PathParameters(provider: "p", id: "w-1")))
        for other in ["/v1/providers/p/webhooksx", "/v1/providers/p/trips/webhooks", "/v1/providers/webhooks", "/v1/providers/p/vehicles/v",
                      "/v1/providers/p/trips/t/journey", "/v1/provider/p/webhooks"] {
            #expect(try match("GET", other).map { $0.0.hasSuffix("Webhook") || $0.0.hasSuffix("Webhooks") } != true, "\(other)")
        }
        #expect(performing: { try match("PUT", "/v1/providers/p/webhooks") }, throws: { ($0 as? APIError)?.code == .methodNotAllowed })

        #expect(try match("GET", "/v1/providers/p/trips/t/history")! == ("GetTripHistory", PathParameters(provider: "p", id: "t")))
        #expect(try match("HEAD", "/v1/providers/p/vehicles/v/history")! == ("GetVehicleHistory", PathParameters(provider: "p", id: "v")))
        #expect(try match("GET", "/v1/providers/p/trips/t/routeAudit")! == ("GetRouteAudit", PathParameters(provider: "p", id: "t")))
        for other in ["/v1/providers/p/trips/history", "/v1/providers/p/vehicles/v/routeAudit", "/v1/providers/p/trips/t/historyx",
                      "/v1/providers/p/trips/t/history/", "/history", "/v1/providers/p/trips/t", "/v2/providers/p/trips/t/history"] {
            #expect(try match("GET", other).map { $0.0.hasSuffix("History") || $0.0 == "GetRouteAudit" } != true, "\(other)")
        }
        #expect(performing: { try match("POST", "/v1/providers/p/trips/t/history") }, throws: {
            ($0 as? APIError)?.message == "POST is not allowed on /v1/providers/p/trips/t/history (allowed: GET)"
        })
    }

    @Test func verbSuffixesWinOverPlainIdsAndADeadEndBacktracks() throws {
        #expect(try match("POST", "/v1/providers/p/trips/t:share")! == ("ShareTrip", PathParameters(provider: "p", id: "t")))
        #expect(try match("POST", "/v1/providers/p/trips/t:planRoute")! == ("PlanRoute", PathParameters(provider: "p", id: "t")))
        #expect(try match("GET", "/v1/providers/p/trips/:share")! == ("GetTrip", PathParameters(provider: "p", id: ":share")))
        #expect(try match("GET", "/v1/providers/p/trips/t:share/journey")! == ("GetJourney", PathParameters(provider: "p", id: "t:share")))
        #expect(try match("GET", "/v1/providers/p/vehicles/v/driverFeed:stream")! == ("StreamDriverFeed", PathParameters(provider: "p", id: "v")))
        #expect(performing: { try match("GET", "/v1/providers/p/trips/t:share") }, throws: {
            ($0 as? APIError)?.message == "GET is not allowed on /v1/providers/p/trips/t:share (allowed: POST)"
        })
    }

    @Test func everyFleetEngineMethodIsServedOverGRPCAndRESTUnderTheSameName() throws {
        let trips = ["CreateTrip", "GetTrip", "UpdateTrip", "DeleteTrip", "SearchTrips", "ReportBillableTrip"]
        let vehicles = ["CreateVehicle", "GetVehicle", "UpdateVehicle", "DeleteVehicle", "UpdateVehicleAttributes", "ListVehicles", "SearchVehicles"]
        let expected = Set(trips.map { "/maps.fleetengine.v1.TripService/\($0)" } + vehicles.map { "/maps.fleetengine.v1.VehicleService/\($0)" })
        #expect(Set(FleetEngineRPC.methods.keys) == expected)
        for (path, rpc) in FleetEngineRPC.methods {
            #expect(path == "/\(rpc.service)/\(rpc.name)")
            #expect(rpc.requestMessage == "maps.fleetengine.v1.\(rpc.name)Request")
            #expect(OperationTable.standard.operations.contains { $0.name == rpc.name && $0.path.hasPrefix("/v1/providers/{provider}/") })
        }
        #expect(FleetEngineRPC.methods.values.filter(\.isRead).map(\.name).sorted() == ["GetTrip", "GetVehicle", "ListVehicles", "SearchTrips", "SearchVehicles"])
    }

    @Test func readReplicaRoutingFollowsTheOperationAndOnlyGETsAndSearchesRead() {
        for operation in OperationTable.standard.operations {
            #expect(operation.isRead == (operation.method == "GET" || operation.path.hasSuffix(":search")), "\(operation.name)")
        }
        let searches = OperationTable.standard.operations.filter { $0.method == "POST" && $0.isRead }.map(\.name).sorted()
        #expect(searches == ["SearchTrips", "SearchVehicles"])
    }

    @Test func createRequestsRequireTheirIdAlikeOverRESTAndGRPC() throws {
        /// The code and message `body` throws, nil when it returns.
        func refusal(_ body: () throws(APIError) -> String) -> (APIError.Code, String)? {
            do { _ = try body(); return nil } catch { return (error.code, error.message) }
        }
        for field in ["tripId", "vehicleId"] {
            let snake = field == "tripId" ? "trip_id" : "vehicle_id"
            var query = QueryParameters([(field, "a-1")])
            #expect(try OperationTable.requiredId(field, in: &query) == "a-1")
            #expect(try OperationTable.requiredId(field, in: JSONObject([(field, .string("a-1"))])) == "a-1")
            let missingPairs: [[(name: String, value: String)]] = [[], [(field, "")]]
            for pairs in missingPairs {
                var missing = QueryParameters(pairs)
                #expect(refusal { () throws(APIError) in try OperationTable.requiredId(field, in: &missing) }! == (.invalidArgument, "\(field) is required (query parameter)"))
            }
            for message in [JSONObject(), JSONObject([(field, .string(""))])] {
                #expect(refusal { () throws(APIError) in try OperationTable.requiredId(field, in: message) }! == (.invalidArgument, "\(snake) is required"))
            }
            // An id the domain refuses is refused by both doors with the domain's words, naming the field.
            var bad = QueryParameters([(field, "a/b")])
            let rest = try #require(refusal { () throws(APIError) in try OperationTable.requiredId(field, in: &bad) })
            let grpc = try #require(refusal { () throws(APIError) in try OperationTable.requiredId(field, in: JSONObject([(field, .string("a/b"))])) })
            #expect(rest == grpc)
            #expect(rest.0 == .invalidArgument && rest.1.contains(field))
        }
    }
}
