import API
import Foundation
import JSON
import Testing
import TestSupport

/// Open streams end when the access behind them goes: the token expires, the driver's vehicle
/// no longer serves the trip, the trip names another rider (on every node, not just the writer).
@Suite(.timeLimit(.minutes(3))) struct StreamAccessTests {
    /// The reason of the stream's `end` event, reading past changes and heartbeats; nil if it closed without one.
    static func endReason(_ stream: EventStreamClient) async throws -> String? {
        while let event = try await stream.nextEventAsync() {
            if event.event == "end" { return try JSONValue.parse(Array(event.data.utf8))["reason"]?.stringValue }
        }
        return nil
    }

    @Test func aDriversJourneyStreamEndsWhenItsVehicleNoLongerServesTheTrip() async throws {
        try await TestServer.with { server in
            try await server.startTrip("t-1", vehicle: "v-1")
            try await server.createVehicle("v-2")
            let stream = try await server.openStream("/v1/providers/acme/trips/t-1/journey:stream", token: server.token(.driver, vehicle: "v-1"))
            defer { stream.close() }
            try #require(stream.status == 200, "\(stream.errorBody)")
            _ = try #require(try await stream.nextEventAsync())
            let (unassigned, body) = try await server.updateTrip("t-1", mask: "vehicleId", #"{"vehicleId":""}"#)
            try #require(unassigned == 200, "\(body)")
            #expect(try await Self.endReason(stream) == "ACCESS_WITHDRAWN")
            // Given to another vehicle, the trip is that driver's to read.
            let (moved, again) = try await server.updateTrip("t-1", mask: "vehicleId", #"{"vehicleId":"v-2"}"#)
            try #require(moved == 200, "\(again)")
            #expect(await waitFor(.seconds(30)) { try await server.journey("t-1", token: server.token(.driver, vehicle: "v-2")).status == 200 })
            #expect(try await server.journey("t-1", token: server.token(.driver, vehicle: "v-1")).status == 403)
        }
    }

    @Test func aRidersStreamOnAnotherNodeEndsWhenTheTripNamesAnotherRider() async throws {
        try await TestDatabase.withTestDatabase { url in
            let first = try await TestServer.start(databaseURL: url)
            defer { first.stop() }
            // The first node owns every projection; the second serves riders from the tables.
            let second = try await TestServer.start(databaseURL: url, environment: ["WAYMARK_JWT_SECRET": first.secret])
            defer { second.stop() }
            try await first.startTrip("t-1", vehicle: "v-1", consumer: "rider-1")
            let rider = first.token(.consumer, consumer: "rider-1")
            #expect(await waitFor(.seconds(30)) { try await second.journey("t-1", token: rider).status == 200 })
            let stream = try await second.openStream("/v1/providers/acme/trips/t-1/journey:stream", token: rider)
            defer { stream.close() }
            try #require(stream.status == 200, "\(stream.errorBody)")
            _ = try #require(try await stream.nextEventAsync())
            let (moved, body) = try await first.updateTrip("t-1", mask: "consumerId", #"{"consumerId":"rider-2"}"#)
            try #require(moved == 200, "\(body)")
            #expect(try await Self.endReason(stream) == "ACCESS_WITHDRAWN")
            expectError((try await second.journey("t-1", token: rider)).pair, 403, "PERMISSION_DENIED")
        }
    }

    @Test func aDriverFeedStreamEndsWhenItsTokenExpires() async throws {
        try await TestServer.with { server in
            try await server.startTrip("t-1", vehicle: "v-1")
            let started = ContinuousClock.now
            let token = server.token(.driver, vehicle: "v-1", ttl: 3)
            let stream = try await server.openStream("/v1/providers/acme/vehicles/v-1/driverFeed:stream", token: token)
            defer { stream.close() }
            try #require(stream.status == 200, "\(stream.errorBody)")
            #expect(try await Self.endReason(stream) == "TOKEN_EXPIRED")
            #expect(ContinuousClock.now - started >= .seconds(2))
        }
    }
}
