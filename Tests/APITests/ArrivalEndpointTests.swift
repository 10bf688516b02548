import API
import Foundation
import JSON
import Postgres
import Testing
import TestSupport

/// Arrival detection in `waymark serve`: location reports in, `VehicleArrivedNearStop` / `VehicleLeftStop` out (log and webhooks).
@Suite(.timeLimit(.minutes(3))) struct ArrivalEndpointTests {
    static let environment = ["WAYMARK_WEBHOOKS_ALLOW_PRIVATE": "true", "WAYMARK_ARRIVAL_PROVIDERS": "acme=40/2"]

    static func report(_ server: TestServer, latitude: Double, longitude: Double) async throws {
        let (status, body) = try await server.json("POST", "/v1/providers/acme/vehicles:reportLocations",
                                                   #"{"reports":[{"vehicleId":"v-1","location":{"location":{"latitude":\#(latitude),"longitude":\#(longitude)}}}]}"#)
        try #require(status == 200 && body["results"]?[0]?["status"] == "ACCEPTED", "\(body)")
    }

    /// The arrival stream of t-1: (event id, type, global position).
    static func arrivalEvents(_ databaseURL: String) async throws -> [(String, String, Int64)] {
        try await Blocking.run {
            try Connection(conninfo: databaseURL)
                .query("SELECT event_id::text, event_type, global_position FROM events WHERE stream_id = 'arrival:acme/t-1' ORDER BY stream_version")
                .rows.map { (try $0.string(0), try $0.string(1), try $0.int64(2)) }
        }
    }

    /// The highest global position in the log.
    static func head(_ databaseURL: String) async throws -> Int64 {
        try await Blocking.run { try Connection(conninfo: databaseURL).query("SELECT max(global_position) FROM events").first?.int64(0) ?? 0 }
    }

    /// The global position of the last event the node's arrival detector read (it appends what it
    /// decides before it moves this on).
    static func detectorPosition(_ server: TestServer) async throws -> Int64 {
        let text = try await server.request("GET", "/metrics").text
        let line = text.split(separator: "\n").first { $0.hasPrefix("waymark_arrival_detector_position ") }
        return Int64(line?.split(separator: " ").last ?? "") ?? 0
    }

    /// With `WAYMARK_PROJECTION_RECORDS=0` the detector keeps no vehicle state between batches,
    /// the projections keep only vehicles linked to a trip and the fleet mirror nothing: every
    /// state is read back from its table, and the outcome is the same.
    @Test(arguments: [nil, "0"])
    func aVehicleThatWaitsAtThePickupArrivesOnceAndLeavesOnceAndWebhooksCarryBoth(recordsInMemory: String?) async throws {
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let environment = Self.environment.merging(recordsInMemory.map { ["WAYMARK_PROJECTION_RECORDS": $0] } ?? [:]) { $1 }
        try await TestDatabase.withTestDatabase { url in
            let server = try await TestServer.start(databaseURL: url, environment: environment)
            do {
                let (created, body) = try await server.json("POST", "/v1/providers/acme/webhooks?webhookId=arrivals",
                                                            #"{"url":"\#(receiver.url)","secret":"0123456789abcdef","eventTypes":["VehicleArrivedNearStop","VehicleLeftStop"]}"#)
                try #require(created == 200, "\(body)")
                try await server.startTrip()  // pickup at 52.5, 13.4
                try await Self.report(server, latitude: 52.49, longitude: 13.4)  // 1.1 km south
                // Drives past the pickup without stopping: in the fence for less than the dwell.
                try await Self.report(server, latitude: 52.4999, longitude: 13.4)
                try await Self.report(server, latitude: 52.5010, longitude: 13.4)
                // Comes back and waits there for longer than the 2 s dwell, with a few metres of jitter
                // (the pause is the dwell itself: the detector times it by when reports arrive).
                for step in 0..<6 {
                    try await Task.sleep(for: .milliseconds(700))
                    try await Self.report(server, latitude: 52.5 + Double(step % 3 - 1) * 0.00005, longitude: 13.4 + Double(step % 2) * 0.00005)
                }
                try await Self.report(server, latitude: 52.502, longitude: 13.4)  // 220 m on
                let deliveries = await receiver.wait { $0.count >= 2 }
                // Nothing more comes once the detector has read the whole log (every arrival event
                // it will append is in the log then) and the subscription's checkpoint has passed the
                // last of them (every delivery up to it has been answered).
                let head = try await Self.head(url)
                #expect(await waitFor(.seconds(60)) { try await Self.detectorPosition(server) >= head }, "the detector did not read the log up to \(head)")
                let logged = try await Self.arrivalEvents(url)
                #expect(logged.map(\.1) == ["VehicleArrivedNearStop", "VehicleLeftStop"])
                let lastArrival = logged.map(\.2).max() ?? 0
                #expect(await waitFor(.seconds(60)) {
                    try await server.json("GET", "/v1/providers/acme/webhooks/arrivals").1["status"]?["position"]?.int64Value ?? 0 >= lastArrival
                }, "the webhook's checkpoint did not pass the last arrival event")
                #expect(receiver.deliveries.map(\.type) == ["VehicleArrivedNearStop", "VehicleLeftStop"], "\(receiver.deliveries.map(\.json))")
                let arrived = try #require(deliveries.first?.json["data"])
                #expect(arrived["tripId"] == "t-1" && arrived["vehicleId"] == "v-1")
                #expect(arrived["waypointIndex"] == 0 && arrived["waypointType"] == "PICKUP_WAYPOINT_TYPE")
                #expect(arrived["radiusMeters"] == 40 && arrived["dwellSeconds"] == 2)
                #expect((arrived["distanceMeters"]?.doubleValue ?? 99) <= 40)
                #expect(deliveries.first?.streamId == "arrival:acme/t-1")
                let metrics = try await server.request("GET", "/metrics").text
                #expect(metrics.contains("waymark_arrival_events_appended_total 2"))
                if recordsInMemory == "0" {
                    // v-1 serves t-1 from the assignment on, so it stays; before that it was let go and read back.
                    #expect(metrics.contains(#"waymark_projection_records_read_back_total{projection="fleet"} 1"#), "\(metrics)")
                }
                // The trip's status is the fleet's to change (the automatic advance is off by default).
                #expect(try await server.json("GET", "/v1/providers/acme/trips/t-1").1["tripStatus"] == "ENROUTE_TO_PICKUP")
                server.stop()
            } catch {
                server.stop()
                throw error
            }
            let stored = try await Self.arrivalEvents(url)
            #expect(stored.map(\.1) == ["VehicleArrivedNearStop", "VehicleLeftStop"])

            // The detector reads the whole log again from the start: the same causes give the same
            // event ids, so nothing is appended twice.
            try await Blocking.run {
                let connection = try Connection(conninfo: url)
                try connection.query("UPDATE arrival_detector_checkpoint SET transaction_id = 0, global_position = 0")
                try connection.query("DELETE FROM arrival_detector_vehicles")
            }
            let head = try await Self.head(url)
            let again = try await TestServer.start(databaseURL: url, environment: environment)
            defer { again.stop() }
            // The detector appends before it moves its position on: once it has read up to the head,
            // anything it would append again is in the log.
            #expect(await waitFor(.seconds(60)) { try await Self.detectorPosition(again) >= head }, "the detector read the log again up to its head")
            #expect(try await Self.arrivalEvents(url).map(\.0) == stored.map(\.0))
        }
    }

    @Test func withTheAdvanceOnAnArrivalAtThePickupMovesTheTripToArrivedAtPickup() async throws {
        var environment = Self.environment
        environment["WAYMARK_ARRIVALS_ADVANCE_TRIP_STATUS"] = "true"
        try await TestServer.with(environment: environment) { server in
            try await server.startTrip()
            for _ in 0..<5 {  // at the pickup for longer than the 2 s dwell, timed by when the reports arrive
                try await Self.report(server, latitude: 52.5, longitude: 13.4)
                try await Task.sleep(for: .milliseconds(700))
            }
            var status: JSONValue = .null
            for _ in 0..<100 {
                status = try await server.json("GET", "/v1/providers/acme/trips/t-1").1["tripStatus"] ?? .null
                if status == "ARRIVED_AT_PICKUP" { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(status == "ARRIVED_AT_PICKUP")
            let url = server.databaseURL
            let metadata = try await Blocking.run {
                try Connection(conninfo: url).query("SELECT metadata->>'subject' FROM events WHERE stream_id = 'trip:acme/t-1' AND event_type = 'TripStatusChanged' ORDER BY stream_version DESC LIMIT 1").first?.string(0)
            }
            #expect(metadata == "arrival-detector")
        }
    }
}
