import API
import Foundation
import JSON
import Testing
import TestSupport

extension RiderEndpoints {
    /// A trip's rider (`consumerId`) and `GET /v1/providers/{p}/consumers/{c}/trips`.
    @Suite(.timeLimit(.minutes(3))) struct ConsumerTripsEndpointTests {
        /// The rider's trips once the listing shows `count` of them (the journey projection trails writes).
        static func listing(_ server: TestServer, _ consumer: String, query: String = "", token: String? = nil, count: Int) async throws -> JSONValue {
            let deadline = ContinuousClock.now + .seconds(20)
            var last = JSONValue.null
            while ContinuousClock.now < deadline {
                let (status, body) = try await server.json("GET", "/v1/providers/acme/consumers/\(consumer)/trips\(query)", token: token)
                try #require(status == 200, "listing: \(body)")
                last = body
                if body["trips"]?.arrayValue?.count == count { return body }
                try await Task.sleep(for: .milliseconds(50))
            }
            Issue.record("the listing of \(consumer) never had \(count) trips (last \(last))")
            return last
        }

        @Test func aTripNamesItsRiderByTheConsumerIdFieldOrAttributeAndTheResponseShowsTheAttribute() async throws {
            try await TestServer.with { server in
                let (status, trip) = try await server.json("POST", "/v1/providers/acme/trips?tripId=t-1", """
                    {"tripType":"EXCLUSIVE","pickupPoint":{"point":{"latitude":52.5,"longitude":13.4}},"consumerId":"rider-1"}
                    """)
                #expect(status == 200, "\(trip)")
                #expect(trip["consumerId"] == nil, "the extension field never appears in a Trip response")
                #expect(trip["attributes"] == [["key": "consumerId", "stringValue": "rider-1"]])
                try await server.createTrip("t-2", extra: #","attributes":[{"key":"consumerId","stringValue":"rider-1"},{"key":"tier","stringValue":"gold"}]"#)
                try await server.createTrip("t-3", extra: #","consumerId":"rider-2""#)
                // Both spellings must agree when both are given.
                expectError(try await server.json("POST", "/v1/providers/acme/trips?tripId=t-4", """
                    {"tripType":"EXCLUSIVE","pickupPoint":{"point":{"latitude":52.5,"longitude":13.4}},"consumerId":"rider-1",
                     "attributes":[{"key":"consumerId","stringValue":"rider-2"}]}
                    """), 400, "INVALID_ARGUMENT", containing: "consumerId")
                expectError(try await server.json("POST", "/v1/providers/acme/trips?tripId=t-4", """
                    {"tripType":"EXCLUSIVE","pickupPoint":{"point":{"latitude":52.5,"longitude":13.4}},"consumerId":7}
                    """), 400, "INVALID_ARGUMENT", containing: "trip.consumerId")

                let listed = try await Self.listing(server, "rider-1", count: 2)
                let trips = try #require(listed["trips"]?.arrayValue)
                #expect(trips.map { $0["name"]?.stringValue } == ["providers/acme/trips/t-1", "providers/acme/trips/t-2"])
                let first = trips[0]
                #expect(first["tripStatus"] == "NEW")
                #expect(first["nextStop"]?["type"] == "PICKUP")
                // As the table stores it (canonical, members sorted): the owner's memory and every other node answer alike.
                #expect(first["nextStop"]?.objectValue?.keys == ["eta", "index", "remainingDistanceMeters", "type"])
                #expect(first.objectValue?.keys == ["name", "tripStatus", "nextStop", "dropoffEta", "version"])
                #expect((first["version"]?.int64Value ?? 0) >= 1)
                #expect(try await Self.listing(server, "rider-9", count: 0)["trips"] == [])
            }
        }

        @Test func updateTripMovesATripBetweenRidersAndActiveOnlyLeavesOutEndedTrips() async throws {
            try await TestServer.with { server in
                try await server.createTrip("t-1", extra: #","consumerId":"rider-1""#)
                try await server.createTrip("t-2", extra: #","consumerId":"rider-1","attributes":[{"key":"tier","stringValue":"gold"}]"#)
                _ = try await Self.listing(server, "rider-1", count: 2)
                // consumerId in the mask sets the attribute and keeps the others.
                let (moved, trip) = try await server.updateTrip("t-2", mask: "consumerId", #"{"consumerId":"rider-2"}"#)
                #expect(moved == 200, "\(trip)")
                #expect(trip["attributes"] == [["key": "tier", "stringValue": "gold"], ["key": "consumerId", "stringValue": "rider-2"]])
                _ = try await Self.listing(server, "rider-1", count: 1)
                _ = try await Self.listing(server, "rider-2", count: 1)
                // With attributes in the same mask, the two are merged.
                let (both, merged) = try await server.updateTrip("t-2", mask: "attributes,consumer_id",
                                                                 #"{"consumerId":"rider-3","attributes":[{"key":"tier","stringValue":"silver"}]}"#)
                #expect(both == 200)
                #expect(merged["attributes"] == [["key": "tier", "stringValue": "silver"], ["key": "consumerId", "stringValue": "rider-3"]])
                _ = try await Self.listing(server, "rider-3", count: 1)
                // Cancel t-1: still listed, but not with activeOnly.
                let (canceled, _) = try await server.updateTrip("t-1", mask: "tripStatus", #"{"tripStatus":"CANCELED"}"#)
                #expect(canceled == 200)
                _ = try await Self.listing(server, "rider-1", count: 1)
                let deadline = ContinuousClock.now + .seconds(20)
                while ContinuousClock.now < deadline {
                    let (_, listed) = try await server.json("GET", "/v1/providers/acme/consumers/rider-1/trips")
                    if listed["trips"]?[0]?["tripStatus"] == "CANCELED" { break }
                    try await Task.sleep(for: .milliseconds(50))
                }
                let active = try await Self.listing(server, "rider-1", query: "?activeOnly=true", count: 0)
                #expect(active["trips"] == [])
                // An empty consumerId removes the rider.
                let (cleared, clearedTrip) = try await server.updateTrip("t-2", mask: "consumerId", #"{"consumerId":""}"#)
                #expect(cleared == 200)
                #expect(clearedTrip["attributes"] == [["key": "tier", "stringValue": "silver"]])
                _ = try await Self.listing(server, "rider-3", count: 0)
            }
        }

        @Test func aDriverCannotChangeWhoTheRiderIsThroughAttributesOrConsumerId() async throws {
            try await TestServer.with { server in
                try await server.startTrip("t-1", vehicle: "v-1", consumer: "rider-1")
                let driver = server.token(.driver, vehicle: "v-1")
                for (mask, body) in [("attributes", #"{"attributes":[{"key":"consumerId","stringValue":"mallory"}]}"#),
                                     ("attributes", #"{"attributes":[{"key":"tier","stringValue":"gold"}]}"#),
                                     ("attributes", #"{"attributes":[{"key":"consumerId","numberValue":7}]}"#),
                                     ("consumerId", #"{"consumerId":"mallory"}"#),
                                     ("attributes,consumerId", #"{"consumerId":"rider-1","attributes":[{"key":"consumerId","stringValue":"mallory"}]}"#)] {
                    expectError(try await server.updateTrip("t-1", mask: mask, body, token: driver), 403, "PERMISSION_DENIED", containing: "consumerId")
                }
                // Attributes that keep the rider as they are remain the driver's to set.
                let (kept, trip) = try await server.updateTrip("t-1", mask: "attributes",
                                                               #"{"attributes":[{"key":"consumerId","stringValue":"rider-1"},{"key":"tier","stringValue":"gold"}]}"#,
                                                               token: driver)
                #expect(kept == 200, "\(trip)")
                let (_, read) = try await server.json("GET", "/v1/providers/acme/trips/t-1")
                #expect(read["attributes"] == [["key": "consumerId", "stringValue": "rider-1"], ["key": "tier", "stringValue": "gold"]])
            }
        }

        @Test func aConsumerIdTokenReadsEveryTripOfItsRiderAndNothingElse() async throws {
            try await TestServer.with { server in
                try await server.createTrip("t-1", extra: #","consumerId":"rider-1""#)
                try await server.createTrip("t-2", extra: #","consumerId":"rider-2""#)
                let rider = server.token(.consumer, consumer: "rider-1")
                _ = try await Self.listing(server, "rider-1", token: rider, count: 1)
                _ = try await server.journeyView("t-1", token: rider)
                expectError((try await server.journey("t-2", token: rider)).pair, 403, "PERMISSION_DENIED")
                let (getStatus, _) = try await server.json("GET", "/v1/providers/acme/trips/t-1?view=JOURNEY_SHARING_V1S", token: rider)
                #expect(getStatus == 200)
                let path = "/v1/providers/acme/consumers/rider-2/trips"
                expectError(try await server.json("GET", path, token: rider), 403, "PERMISSION_DENIED", containing: "rider-2")
                expectError(try await server.json("GET", path, token: server.token(.consumer, trip: "t-2")), 403, "PERMISSION_DENIED")
                expectError(try await server.json("GET", path, token: server.token(.driver, vehicle: "v-1")), 403, "PERMISSION_DENIED")
                expectError(try await server.json("GET", path, token: server.token(.server, provider: "other")), 403, "PERMISSION_DENIED")
                let anonymous = try await server.request("GET", path)
                expectError(anonymous.pair, 401, "UNAUTHENTICATED")
                #expect(try await server.json("GET", path, token: server.token(.auditor)).0 == 200)
                expectError(try await server.json("GET", path + "?activeOnly=maybe"), 400, "INVALID_ARGUMENT", containing: "activeOnly")
                expectError(try await server.json("GET", path + "?access_token=x"), 400, "INVALID_ARGUMENT", containing: "access_token")
                expectError(try await server.json("POST", path, "{}"), 405, "UNIMPLEMENTED")
                // Drivers may not name riders.
                try await server.createVehicle("v-1")
                let (_, _) = try await server.updateTrip("t-1", mask: "vehicleId", #"{"vehicleId":"v-1"}"#)
                expectError(try await server.updateTrip("t-1", mask: "consumerId", #"{"consumerId":"rider-9"}"#, token: server.token(.driver, vehicle: "v-1")),
                            403, "PERMISSION_DENIED", containing: "consumerId")
            }
        }
    }
}
