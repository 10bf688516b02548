import API
import Foundation
import JSON
import Testing
import TestSupport

extension AuditEndpoints {
    /// `GET /v1/providers/{p}/trips/{t}/routeAudit`: the route audit read model of a trip.
    @Suite(.timeLimit(.minutes(3))) struct RouteAuditEndpointTests {
        @Test func theRouteAuditShowsTheDrivenPathAndEachStopsArrivalOnceTheTripIsDone() async throws {
            try await TestServer.with { server in
                try await server.startTrip()
                try await server.report(latitude: 52.505, longitude: 13.40)
                try await server.report(latitude: 52.50, longitude: 13.40)
                try await server.completeTrip()
                try await server.report(latitude: 52.60, longitude: 13.40)  // after the trip: not driven for it
                try await server.waitForProjections()
                let (status, audit) = try await server.json("GET", "/v1/providers/acme/trips/t-1/routeAudit", token: server.token(.auditor))
                #expect(status == 200, "\(audit)")
                #expect(audit["name"]?.stringValue == "providers/acme/trips/t-1")
                #expect(audit["tripStatus"]?.stringValue == "COMPLETE")
                #expect(audit["vehicleId"]?.stringValue == "v-1")
                #expect(audit["startTime"] != nil && audit["endTime"] != nil)
                let driven = try #require(audit["drivenPath"], "\(audit)")
                #expect(driven["reportCount"]?.int64Value == 2, "\(driven)")
                #expect((driven["distanceMeters"]?.int64Value ?? 0) > 500)
                #expect(audit["distance"]?["drivenMeters"] == driven["distanceMeters"])
                #expect(audit["plannedRoute"] == nil)  // no route plan was given
                let stops = try #require(audit["stops"]?.arrayValue)
                #expect(stops.map { $0["waypointType"]?.stringValue } == ["PICKUP_WAYPOINT_TYPE", "DROP_OFF_WAYPOINT_TYPE"])
                #expect(stops.allSatisfy { $0["actualArrivalTime"] != nil }, "\(stops)")
                #expect(stops[0]["departureTime"] != nil)
                // The same document for a server token.
                #expect(try await server.json("GET", "/v1/providers/acme/trips/t-1/routeAudit").1 == audit)
            }
        }

        @Test func theRouteAuditRefusesOtherRolesUnknownTripsAndParameters() async throws {
            try await TestServer.with { server in
                try await server.startTrip()
                try await server.waitForProjections()
                let path = "/v1/providers/acme/trips/t-1/routeAudit"
                let before = try await server.eventCount()
                expectError(try await server.json("GET", path, token: server.token(.driver, vehicle: "v-1")), 403, "PERMISSION_DENIED")
                expectError(try await server.json("GET", path, token: server.token(.consumer, trip: "t-1")), 403, "PERMISSION_DENIED")
                expectError(try await server.json("GET", path, token: server.token(.auditor, provider: "other")), 403, "PERMISSION_DENIED")
                expectError(try await server.json("GET", "/v1/providers/acme/trips/t-9/routeAudit"), 404, "NOT_FOUND", containing: "t-9")
                expectError(try await server.json("GET", path + "?view=FULL"), 400, "INVALID_ARGUMENT", containing: "view")
                expectError(try await server.json("PUT", path, "{}"), 405, "UNIMPLEMENTED")
                #expect(try await server.request("GET", path, token: "not-a-jwt").status == 401)
                #expect(try await server.eventCount() == before)
            }
        }
    }
}
