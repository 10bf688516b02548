import API
import Foundation
import JSON
import Postgres
import Testing
import TestSupport

/// Retention: finished trips quiet for `WAYMARK_TRIP_RETENTION_SECONDS` are deleted by a sweep,
/// as Fleet Engine deletes trips after 7 days; trips in progress and recent ones stay.
@Suite(.timeLimit(.minutes(2))) struct TripRetentionTests {
    /// Sweeps every second, and a trip is quiet after `seconds`.
    static func environment(seconds: Int) -> [String: String] {
        ["WAYMARK_TRIP_RETENTION_SECONDS": String(seconds), "WAYMARK_RETENTION_SWEEP_SECONDS": "1"]
    }

    @Test func aFinishedTripQuietForTheRetentionPeriodIsDeletedAndItsHistorySaysBySweep() async throws {
        try await TestServer.with(environment: Self.environment(seconds: 2)) { server in
            try await server.startTrip("t-1", vehicle: "v-1")  // in progress: stays
            try await server.createTrip("t-new")  // NEW, no vehicle: stays
            try await server.startTrip("t-done", vehicle: "v-2")
            try await server.completeTrip("t-done")
            try await server.createTrip("t-canceled")
            try await Self.cancel("t-canceled", on: server)

            #expect(await waitFor { try await server.json("GET", "/v1/providers/acme/trips/t-done").0 == 404 },
                     "the completed trip was not deleted")
            #expect(await waitFor { try await server.json("GET", "/v1/providers/acme/trips/t-canceled").0 == 404 },
                     "the canceled trip was not deleted")
            // Several more sweeps: what is in progress stays, however quiet.
            try await Task.sleep(for: .seconds(3))
            #expect(try await server.json("GET", "/v1/providers/acme/trips/t-1").0 == 200)
            #expect(try await server.json("GET", "/v1/providers/acme/trips/t-new").0 == 200)
            #expect(try await server.journey("t-1").status == 200)
            #expect(try await server.journey("t-done").status == 404)

            // The deletion is an event of the trip's history, and says who deleted it.
            let (status, body) = try await server.history("trips/t-done")
            #expect(status == 200, "\(body)")
            let last = try #require(body["events"]?.arrayValue?.last)
            #expect(last["type"]?.stringValue == "TripDeleted", "\(last)")
            #expect(last["metadata"]?["subject"]?.stringValue == "waymark-retention", "\(last)")
            #expect(last["metadata"]?["role"]?.stringValue == "server", "\(last)")
            #expect(try await IngestEndpointTests.metric(server, "waymark_retention_trips_deleted_total") == 2)
            #expect(try await IngestEndpointTests.metric(server, "waymark_retention_sweeps_total") >= 2)

            // The vehicle that served the deleted trip goes on, and the id can be used again.
            try await server.report("v-2", latitude: 52.51)
            try await server.createTrip("t-done")
            #expect(try await server.json("GET", "/v1/providers/acme/trips/t-done").1["tripStatus"]?.stringValue == "NEW")
        }
    }

    @Test func aSweepPagesThroughEveryQuietTripAndLooksAtEachOnce() async throws {
        var environment = Self.environment(seconds: 2)
        environment["WAYMARK_RETENTION_PAGE"] = "2"
        try await TestServer.with(environment: environment) { server in
            let finished = (1...5).map { "t-\($0)" }
            for trip in finished {
                try await server.createTrip(trip)
                try await Self.cancel(trip, on: server)
            }
            try await server.createTrip("t-open")
            #expect(await waitFor { try await IngestEndpointTests.metric(server, "waymark_retention_trips_deleted_total") == 5 },
                    "five canceled trips over pages of two")
            for trip in finished {  // the fleet projection applies the deletions a moment later
                #expect(await waitFor { try await server.json("GET", "/v1/providers/acme/trips/\(trip)").0 == 404 }, "\(trip)")
            }
            // Later sweeps neither count them again nor touch the open trip.
            try await Task.sleep(for: .seconds(3))
            #expect(try await IngestEndpointTests.metric(server, "waymark_retention_trips_deleted_total") == 5)
            #expect(try await server.json("GET", "/v1/providers/acme/trips/t-open").0 == 200)
            let history = try await server.history("trips/t-3").1["events"]?.arrayValue ?? []
            #expect(history.filter { $0["type"]?.stringValue == "TripDeleted" }.count == 1)
        }
    }

    @Test func aRecentlyFinishedTripStaysUntilItHasBeenQuietForTheWholePeriod() async throws {
        try await TestServer.with(environment: Self.environment(seconds: 3600)) { server in
            try await server.startTrip("t-1", vehicle: "v-1")
            try await server.completeTrip("t-1")
            #expect(await waitFor { try await IngestEndpointTests.metric(server, "waymark_retention_sweeps_total") >= 2 },
                    "no sweep ran")
            #expect(try await server.json("GET", "/v1/providers/acme/trips/t-1").0 == 200)
            #expect(try await IngestEndpointTests.metric(server, "waymark_retention_trips_deleted_total") == 0)
        }
    }

    @Test func retentionZeroKeepsFinishedTripsAndRunsNoSweep() async throws {
        try await TestServer.with(environment: Self.environment(seconds: 0)) { server in
            try await server.startTrip("t-1", vehicle: "v-1")
            try await server.completeTrip("t-1")
            try await Task.sleep(for: .seconds(3))
            #expect(try await server.json("GET", "/v1/providers/acme/trips/t-1").0 == 200)
            #expect(try await IngestEndpointTests.metric(server, "waymark_retention_sweeps_total") == -1)  // not reported
        }
    }

    @Test func serveRefusesRetentionSettingsThatAreNotWholeNumbersOfSeconds() async throws {
        for (name, bad, message) in [
            ("WAYMARK_TRIP_RETENTION_SECONDS", "7d", "from 0 to 3153600000"), ("WAYMARK_TRIP_RETENTION_SECONDS", "-1", "from 0 to 3153600000"),
            ("WAYMARK_RETENTION_SWEEP_SECONDS", "0", "from 1 to 86400"), ("WAYMARK_RETENTION_SWEEP_SECONDS", "hourly", "from 1 to 86400"),
        ] {
            let result = try await WaymarkBinary.run(["serve"], environment: [name: bad, "WAYMARK_HTTP_PORT": "0"])
            #expect(result.status == 2)
            #expect(result.stderr.contains("\(name) must be a whole number of seconds \(message)"), "\(result.stderr)")
        }
    }

    /// Cancels `trip`. Under the whole suite's load the fleet projection may apply the write later
    /// than the consistency timeout: a 503 then says the write was kept, and the sweep still finds it.
    static func cancel(_ trip: String, on server: TestServer, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let (status, body) = try await server.updateTrip(trip, mask: "tripStatus", #"{"tripStatus":"CANCELED"}"#)
        #expect(status == 200 || (status == 503 && body["error"]?["status"]?.stringValue == "UNAVAILABLE"),
                "cancel \(trip): \(status) \(body)", sourceLocation: sourceLocation)
    }
}
