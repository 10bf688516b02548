import API
import Foundation
import JSON
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2))) struct TripEndpointTests {
    @Test func createTripReturnsANewTripInFleetEngineShape() async throws {
        try await TestServer.with { server in
            let (status, trip) = try await server.json("POST", "/v1/providers/acme/trips?tripId=t-1", """
                {"tripType":"EXCLUSIVE","pickupPoint":{"point":{"latitude":52.5,"longitude":13.4}},"numberOfPassengers":2,
                 "tripStatus":"CANCELED","name":"ignored"}
                """)
            #expect(status == 200, "\(trip)")
            #expect(trip["name"]?.stringValue == "providers/acme/trips/t-1")
            #expect(trip["tripStatus"]?.stringValue == "NEW")  // a new trip is NEW whatever the body says
            #expect(trip["tripType"]?.stringValue == "EXCLUSIVE")
            #expect(trip["numberOfPassengers"]?.int64Value == 2)
            #expect(trip["pickupPoint"]?["point"]?["latitude"]?.doubleValue == 52.5)
            // Read your own write: GetTrip right after sees it.
            let (getStatus, fetched) = try await server.json("GET", "/v1/providers/acme/trips/t-1")
            #expect(getStatus == 200 && fetched["view"]?.stringValue == "SDK" && fetched["tripStatus"]?.stringValue == "NEW")
        }
    }

    @Test func badCreateTripBodiesAreRejectedWithTheFieldNamedAndNothingWritten() async throws {
        try await TestServer.with { server in
            let before = try await server.eventCount()
            let path = "/v1/providers/acme/trips?tripId=t-bad"
            expectError(try await server.json("POST", path, #"{"tripType":"EXCLUSIVE","pickupPoint":{"point":{"latitude":52,"longitude":13}},"colour":"red"}"#),
                        400, "INVALID_ARGUMENT", containing: "unknown field \"colour\"")
            expectError(try await server.json("POST", path, #"{"tripType":"EXCLUSIVE","pickupPoint":{"point":{"latitude":52,"longitude":13}}"#),
                        400, "INVALID_ARGUMENT", containing: "not valid JSON")
            expectError(try await server.json("POST", path, #"{"tripType":"EXCLUSIVE","pickupPoint":{"point":{"latitude":"north","longitude":13}}}"#),
                        400, "INVALID_ARGUMENT", containing: "trip.pickupPoint.point.latitude must be a number")
            expectError(try await server.json("POST", path, #"{"tripType":"EXCLUSIVE","pickupPoint":{"point":{"latitude":95,"longitude":13}}}"#),
                        400, "INVALID_ARGUMENT", containing: "latitude must be within [-90, 90]")
            expectError(try await server.json("POST", path, #"{"tripType":"EXCLUSIVE","pickupPoint":{"point":{"latitude":"NaN","longitude":13}}}"#),
                        400, "INVALID_ARGUMENT", containing: "finite")
            expectError(try await server.json("POST", path, #"{"tripType":"ROCKET","pickupPoint":{"point":{"latitude":52,"longitude":13}}}"#),
                        400, "INVALID_ARGUMENT", containing: "trip.tripType must be one of")
            expectError(try await server.json("POST", path, #"{"tripType":"EXCLUSIVE"}"#), 400, "INVALID_ARGUMENT", containing: "pickupPoint is required")
            expectError(try await server.json("POST", "/v1/providers/acme/trips", #"{"tripType":"EXCLUSIVE","pickupPoint":{"point":{"latitude":52,"longitude":13}}}"#),
                        400, "INVALID_ARGUMENT", containing: "tripId is required")
            expectError(try await server.json("POST", "/v1/providers/acme/trips?tripId=a%2Cb", #"{"tripType":"EXCLUSIVE","pickupPoint":{"point":{"latitude":52,"longitude":13}}}"#),
                        400, "INVALID_ARGUMENT", containing: "tripId")
            let form = try await server.request("POST", path, body: "tripType=EXCLUSIVE", token: server.server, contentType: "application/x-www-form-urlencoded")
            #expect(form.status == 415, "\(form.text)")
            #expect(form.text.contains("application/json"))
            #expect(try await server.eventCount() == before)
        }
    }

    @Test func creatingTheSameTripTwiceIsAlreadyExists() async throws {
        try await TestServer.with { server in
            try await server.createTrip("t-dup")
            expectError(try await server.json("POST", "/v1/providers/acme/trips?tripId=t-dup",
                                              #"{"tripType":"EXCLUSIVE","pickupPoint":{"point":{"latitude":52,"longitude":13}}}"#),
                        409, "ALREADY_EXISTS")
        }
    }

    @Test func updateTripAssignsAVehicleAndAdvancesTheStatusInOneCall() async throws {
        try await TestServer.with { server in
            try await server.createVehicle("v-1")
            try await server.createTrip("t-1")
            let (status, trip) = try await server.updateTrip("t-1", mask: "vehicleId,tripStatus", #"{"vehicleId":"v-1","tripStatus":"ENROUTE_TO_PICKUP"}"#)
            #expect(status == 200, "\(trip)")
            #expect(trip["vehicleId"]?.stringValue == "v-1")
            #expect(trip["tripStatus"]?.stringValue == "ENROUTE_TO_PICKUP")
            #expect(trip["remainingWaypoints"]?.arrayValue?.count == 2)
            let (_, vehicle) = try await server.json("GET", "/v1/providers/acme/vehicles/v-1")
            #expect(vehicle["currentTrips"] == ["t-1"])
            // snake_case mask paths work too.
            let (arrived, body) = try await server.updateTrip("t-1", mask: "trip_status", #"{"tripStatus":"ARRIVED_AT_PICKUP"}"#)
            #expect(arrived == 200 && body["tripStatus"]?.stringValue == "ARRIVED_AT_PICKUP", "\(body)")
        }
    }

    @Test func updateTripRejectsBadMasksInvalidTransitionsAndUnknownTripsWithoutWriting() async throws {
        try await TestServer.with { server in
            try await server.createTrip("t-1")
            let before = try await server.eventCount()
            expectError(try await server.updateTrip("t-1", mask: "colour", #"{}"#), 400, "INVALID_ARGUMENT", containing: "unknown Trip field")
            expectError(try await server.updateTrip("t-1", mask: "pickupTime", #"{}"#), 400, "INVALID_ARGUMENT", containing: "cannot change")
            expectError(try await server.json("PUT", "/v1/providers/acme/trips/t-1", #"{"tripStatus":"COMPLETE"}"#), 400, "INVALID_ARGUMENT", containing: "updateMask is required")
            expectError(try await server.updateTrip("t-1", mask: "tripStatus", #"{"tripStatus":"COMPLETE"}"#), 400, "FAILED_PRECONDITION")
            expectError(try await server.updateTrip("t-1", mask: "tripStatus", #"{"tripStatus":"ENROUTE_TO_PICKUP","bogus":1}"#), 400, "INVALID_ARGUMENT", containing: "unknown field \"bogus\"")
            expectError(try await server.updateTrip("t-nope", mask: "tripStatus", #"{"tripStatus":"CANCELED"}"#), 404, "NOT_FOUND")
            expectError(try await server.updateTrip("t-1", mask: "vehicleId", #"{"vehicleId":"v-missing"}"#), 404, "NOT_FOUND", containing: "v-missing")
            #expect(try await server.eventCount() == before)
        }
    }

    @Test func updatingATripToTheStatusItAlreadyHasAnswersTheTripAndWritesNothing() async throws {
        try await TestServer.with { server in
            try await server.startTrip("t-1", vehicle: "v-1")
            for status in ["ENROUTE_TO_PICKUP", "ARRIVED_AT_PICKUP", "ENROUTE_TO_DROPOFF", "COMPLETE"] {
                let (moved, trip) = try await server.updateTrip("t-1", mask: "tripStatus", #"{"tripStatus":"\#(status)"}"#)
                #expect(moved == 200 && trip["tripStatus"]?.stringValue == status, "\(trip)")
                let before = try await server.eventCount()
                // The same update again (a retry after a timeout, say) is a no-op answered with the trip.
                let (again, same) = try await server.updateTrip("t-1", mask: "tripStatus", #"{"tripStatus":"\#(status)"}"#)
                #expect(again == 200, "\(same)")
                #expect(same["tripStatus"]?.stringValue == status)
                #expect(try await server.eventCount() == before)
            }
        }
    }

    @Test func aStaleIntermediateDestinationsVersionIsAborted() async throws {
        try await TestServer.with { server in
            try await server.createVehicle("v-1")
            try await server.createTrip("t-1", extra: #","intermediateDestinations":[{"point":{"latitude":52.51,"longitude":13.39}}]"#)
            _ = try await server.updateTrip("t-1", mask: "vehicleId,tripStatus", #"{"vehicleId":"v-1","tripStatus":"ENROUTE_TO_PICKUP"}"#)
            _ = try await server.updateTrip("t-1", mask: "tripStatus", #"{"tripStatus":"ARRIVED_AT_PICKUP"}"#)
            expectError(try await server.updateTrip("t-1", mask: "tripStatus,intermediateDestinationIndex,intermediateDestinationsVersion",
                                                    #"{"tripStatus":"ENROUTE_TO_INTERMEDIATE_DESTINATION","intermediateDestinationsVersion":"2000-01-01T00:00:00Z"}"#),
                        409, "ABORTED", containing: "intermediateDestinationsVersion")
            let (_, trip) = try await server.json("GET", "/v1/providers/acme/trips/t-1")
            let version = try #require(trip["intermediateDestinationsVersion"]?.stringValue)
            let (status, moved) = try await server.updateTrip("t-1", mask: "tripStatus,intermediateDestinationIndex,intermediateDestinationsVersion",
                                                              #"{"tripStatus":8,"intermediateDestinationsVersion":"\#(version)"}"#)
            #expect(status == 200 && moved["tripStatus"]?.stringValue == "ENROUTE_TO_INTERMEDIATE_DESTINATION", "\(moved)")
        }
    }

    @Test func getTripServesBothViewsVersionsAndNumericEnums() async throws {
        try await TestServer.with { server in
            try await server.createVehicle("v-1")
            try await server.createTrip("t-1")
            _ = try await server.updateTrip("t-1", mask: "vehicleId,tripStatus", #"{"vehicleId":"v-1","tripStatus":"ENROUTE_TO_PICKUP"}"#)
            let (status, shared) = try await server.json("GET", "/v1/providers/acme/trips/t-1?view=JOURNEY_SHARING_V1S")
            #expect(status == 200)
            #expect(shared["view"]?.stringValue == "JOURNEY_SHARING_V1S")
            #expect(shared["vehicleWaypoints"] == nil && shared["currentRouteSegment"] == nil)
            let (_, numeric) = try await server.json("GET", "/v1/providers/acme/trips/t-1?view=2&$alt=json;enum-encoding=int")
            #expect(numeric["tripStatus"]?.int64Value == 2 && numeric["tripType"]?.int64Value == 2 && numeric["view"]?.int64Value == 2, "\(numeric)")
            expectError(try await server.json("GET", "/v1/providers/acme/trips/t-1?view=FULL"), 400, "INVALID_ARGUMENT", containing: "view must be one of")
            expectError(try await server.json("GET", "/v1/providers/acme/trips/t-1?colour=red"), 400, "INVALID_ARGUMENT", containing: "unknown query parameter")
            expectError(try await server.json("GET", "/v1/providers/acme/trips/t-1?currentRouteSegmentVersion=yesterday"), 400, "INVALID_ARGUMENT", containing: "RFC 3339")
            expectError(try await server.json("GET", "/v1/providers/acme/trips/t-none"), 404, "NOT_FOUND")
        }
    }

    @Test func deleteTripRefusesAnActiveAssignedTripAndRemovesAFinishedOne() async throws {
        try await TestServer.with { server in
            try await server.createVehicle("v-1")
            try await server.createTrip("t-1")
            _ = try await server.updateTrip("t-1", mask: "vehicleId,tripStatus", #"{"vehicleId":"v-1","tripStatus":"ENROUTE_TO_PICKUP"}"#)
            expectError(try await server.json("DELETE", "/v1/providers/acme/trips/t-1"), 400, "FAILED_PRECONDITION")
            expectError(try await server.json("DELETE", "/v1/providers/acme/vehicles/v-1"), 400, "FAILED_PRECONDITION")
            let (canceled, _) = try await server.updateTrip("t-1", mask: "tripStatus", #"{"tripStatus":"CANCELED"}"#)
            #expect(canceled == 200)
            let (deleted, empty) = try await server.json("DELETE", "/v1/providers/acme/trips/t-1")
            #expect(deleted == 200 && empty == .object(JSONObject()))
            expectError(try await server.json("GET", "/v1/providers/acme/trips/t-1"), 404, "NOT_FOUND")
            expectError(try await server.json("DELETE", "/v1/providers/acme/trips/t-1"), 404, "NOT_FOUND")
            let (vehicleDeleted, _) = try await server.json("DELETE", "/v1/providers/acme/vehicles/v-1")
            #expect(vehicleDeleted == 200)
        }
    }

    @Test func searchTripsFiltersByVehicleAndPagesWithTokens() async throws {
        try await TestServer.with { server in
            try await server.createVehicle("v-1")
            for n in 1...3 {
                try await server.createTrip("t-\(n)")
            }
            _ = try await server.updateTrip("t-1", mask: "vehicleId", #"{"vehicleId":"v-1"}"#)
            let (status, byVehicle) = try await server.json("POST", "/v1/providers/acme/trips:search", #"{"vehicleId":"v-1"}"#)
            #expect(status == 200 && byVehicle["trips"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["providers/acme/trips/t-1"], "\(byVehicle)")
            var names: [String] = []
            var token: String? = nil
            repeat {
                let body = token.map { #"{"pageSize":2,"pageToken":"\#($0)"}"# } ?? #"{"pageSize":2}"#
                let (_, page) = try await server.json("POST", "/v1/providers/acme/trips:search", body)
                names += page["trips"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
                token = page["nextPageToken"]?.stringValue
            } while token != nil
            #expect(names == ["providers/acme/trips/t-1", "providers/acme/trips/t-2", "providers/acme/trips/t-3"])
            expectError(try await server.json("POST", "/v1/providers/acme/trips:search", #"{"pageToken":"garbage"}"#), 400, "INVALID_ARGUMENT", containing: "pageToken")
            expectError(try await server.json("POST", "/v1/providers/acme/trips:search", #"{"minimumStaleness":"soon"}"#), 400, "INVALID_ARGUMENT", containing: "duration")
        }
    }
}
