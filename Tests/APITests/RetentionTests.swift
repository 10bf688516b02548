import API
import Foundation
import JSON
import Postgres
import Testing
import TestSupport

/// Retention: trips and vehicles quiet for `WAYMARK_TRIP_RETENTION_SECONDS` and
/// `WAYMARK_VEHICLE_RETENTION_SECONDS` are deleted by a sweep, as Fleet Engine deletes both after
/// 7 days; a trip whose vehicle still reports, recent trips and reporting vehicles stay.
@Suite(.timeLimit(.minutes(4))) struct RetentionTests {
    /// The retention period of the tests that expect deletions: longer than one setup step takes
    /// under the whole suite's load, so nothing is swept halfway through its setup (a NEW trip
    /// waiting for its assignment, say). A step answers once the fleet projection shows it, and
    /// under load that took more than 6 s at times while the trip's event was already quiet.
    static let period = 12

    /// How long a test waits for a deletion: a period and the sweeps after it, with room for load.
    static let deletionWait = Duration.seconds(60)

    /// Sweeps every second; trips are quiet after `seconds`, vehicles after `vehicleSeconds` (0: kept).
    static func environment(seconds: Int, vehicleSeconds: Int = 0) -> [String: String] {
        ["WAYMARK_TRIP_RETENTION_SECONDS": String(seconds), "WAYMARK_VEHICLE_RETENTION_SECONDS": String(vehicleSeconds),
         "WAYMARK_RETENTION_SWEEP_SECONDS": "1"]
    }

    /// Reports `vehicle`'s location every 300 ms until the returned task is canceled.
    static func keepReporting(_ vehicle: String, on server: TestServer) -> Task<Void, Never> {
        Task {
            var n = 0
            while !Task.isCancelled {
                n += 1
                try? await server.report(vehicle, latitude: 52.5 + Double(n % 100) / 10_000)
                try? await Task.sleep(for: .milliseconds(300))
            }
        }
    }

    static func types(_ history: (Int, JSONValue)) -> [String] {
        (history.1["events"]?.arrayValue ?? []).compactMap { $0["type"]?.stringValue }
    }

    @Test func quietTripsAreDeletedWhateverTheirStatusUnlessTheirVehicleStillReports() async throws {
        try await TestServer.with(environment: Self.environment(seconds: Self.period)) { server in
            try await server.startTrip("t-1", vehicle: "v-1")  // in progress, its vehicle reporting: stays
            let reporting = Self.keepReporting("v-1", on: server)
            defer { reporting.cancel() }
            try await server.createTrip("t-new")  // NEW, no vehicle: deleted
            try await server.startTrip("t-done", vehicle: "v-2")
            try await server.completeTrip("t-done")
            try await server.createTrip("t-canceled")
            try await Self.cancel("t-canceled", on: server)
            try await server.startTrip("t-abandoned", vehicle: "v-3")  // in progress, vehicle silent: canceled, then deleted

            for trip in ["t-done", "t-canceled", "t-new", "t-abandoned"] {
                #expect(await waitFor(Self.deletionWait) { try await server.json("GET", "/v1/providers/acme/trips/\(trip)").0 == 404 }, "\(trip) was not deleted")
            }
            // Several more sweeps: the trip whose vehicle reports stays, however quiet its own stream.
            try await Self.waitForMoreSweeps(3, on: server)
            #expect(!Self.types(try await server.history("trips/t-1")).contains("TripDeleted"), "t-1 was deleted")
            #expect(try await server.json("GET", "/v1/providers/acme/trips/t-1").0 == 200)
            #expect(try await server.journey("t-1").status == 200)
            #expect(try await server.journey("t-done").status == 404)

            // Each deletion is an event of the trip's history, and says who made it.
            let (status, body) = try await server.history("trips/t-done")
            #expect(status == 200, "\(body)")
            let last = try #require(body["events"]?.arrayValue?.last)
            #expect(last["type"]?.stringValue == "TripDeleted", "\(last)")
            #expect(last["metadata"]?["subject"]?.stringValue == "waymark-retention", "\(last)")
            #expect(last["metadata"]?["role"]?.stringValue == "server", "\(last)")
            // The abandoned trip was canceled first, which took it off its vehicle; the vehicle stays (vehicle retention is off).
            let abandoned = try await server.history("trips/t-abandoned").1["events"]?.arrayValue ?? []
            #expect(abandoned.suffix(2).map { $0["type"]?.stringValue } == ["TripCanceled", "TripDeleted"], "\(abandoned.suffix(2))")
            #expect(abandoned.suffix(2).allSatisfy { $0["metadata"]?["subject"]?.stringValue == "waymark-retention" })
            #expect(await waitFor {
                let (code, vehicle) = try await server.json("GET", "/v1/providers/acme/vehicles/v-3")
                return code == 200 && (vehicle["currentTrips"]?.arrayValue ?? []).isEmpty
            }, "v-3 still lists the abandoned trip")
            #expect(try await IngestEndpointTests.metric(server, "waymark_retention_trips_deleted_total") == 4)
            #expect(try await IngestEndpointTests.metric(server, "waymark_retention_trips_canceled_total") == 1)
            #expect(try await IngestEndpointTests.metric(server, "waymark_retention_vehicles_deleted_total") == 0)
            #expect(try await IngestEndpointTests.metric(server, "waymark_retention_sweeps_total") >= 2)

            // The vehicle that served the deleted trip goes on, and the id can be used again.
            try await server.report("v-2", latitude: 52.51)
            try await server.createTrip("t-done")
            #expect(try await server.json("GET", "/v1/providers/acme/trips/t-done").1["tripStatus"]?.stringValue == "NEW")
        }
    }

    @Test func quietVehiclesAreDeletedWithTheirAbandonedTripsAndReportingOnesStay() async throws {
        try await TestServer.with(environment: Self.environment(seconds: Self.period, vehicleSeconds: Self.period)) { server in
            try await server.createVehicle("v-idle")
            try await server.createVehicle("v-busy")
            let busy = Self.keepReporting("v-busy", on: server)
            defer { busy.cancel() }
            // A trip in progress whose vehicle reports for a while after the trip's last event: the
            // trip's own quiet spell is seen while the vehicle still reports, so it is the vehicle's
            // sweep, once the vehicle falls silent too, that cancels and deletes it.
            try await server.startTrip("t-late", vehicle: "v-late")
            let late = Self.keepReporting("v-late", on: server)
            // It reports until a trip sweep has looked at t-late: the sweep's recorded cutoff passed
            // the trip's last event while the vehicle was not quiet.
            let url = server.databaseURL
            #expect(await waitFor(Self.deletionWait) {
                try await Blocking.run {
                    try Connection(conninfo: url).query("""
                        SELECT EXISTS (SELECT 1 FROM retention_sweeps r, streams s
                                       WHERE r.name = 'trips' AND s.stream_id = 'trip:acme/t-late' AND r.swept_before > s.updated_at)
                        """).first?.bool(0) ?? false
                }
            }, "no trip sweep looked at t-late while v-late reported")
            late.cancel()

            #expect(await waitFor(Self.deletionWait) { try await server.json("GET", "/v1/providers/acme/vehicles/v-idle").0 == 404 }, "v-idle was not deleted")
            #expect(await waitFor(Self.deletionWait) { try await server.json("GET", "/v1/providers/acme/vehicles/v-late").0 == 404 }, "v-late was not deleted")
            #expect(await waitFor(Self.deletionWait) { try await server.json("GET", "/v1/providers/acme/trips/t-late").0 == 404 }, "t-late was not deleted")
            #expect(try await server.json("GET", "/v1/providers/acme/vehicles/v-busy").0 == 200)

            #expect(Self.types(try await server.history("vehicles/v-idle")).last == "VehicleDeleted")
            let lateTrip = Self.types(try await server.history("trips/t-late"))
            #expect(lateTrip.suffix(2) == ["TripCanceled", "TripDeleted"], "\(lateTrip)")
            let lateVehicle = try await server.history("vehicles/v-late").1["events"]?.arrayValue ?? []
            #expect(lateVehicle.last?["type"]?.stringValue == "VehicleDeleted")
            #expect(lateVehicle.last?["metadata"]?["subject"]?.stringValue == "waymark-retention")
            #expect(try await IngestEndpointTests.metric(server, "waymark_retention_vehicles_deleted_total") == 2)

            // A deleted vehicle's id can be registered again.
            try await server.createVehicle("v-idle")
            #expect(try await server.json("GET", "/v1/providers/acme/vehicles/v-idle").0 == 200)
        }
    }

    @Test func aSweepPagesThroughEveryQuietTripAndLooksAtEachOnce() async throws {
        var environment = Self.environment(seconds: Self.period)
        environment["WAYMARK_RETENTION_PAGE"] = "2"
        try await TestServer.with(environment: environment) { server in
            let finished = (1...5).map { "t-\($0)" }
            for trip in finished { try await server.createTrip(trip) }  // NEW and on no vehicle: swept when quiet
            #expect(await waitFor(Self.deletionWait) { try await IngestEndpointTests.metric(server, "waymark_retention_trips_deleted_total") == 5 },
                    "five quiet trips over pages of two")
            for trip in finished {  // the fleet projection applies the deletions a moment later
                #expect(await waitFor(Self.deletionWait) { try await server.json("GET", "/v1/providers/acme/trips/\(trip)").0 == 404 }, "\(trip)")
            }
            // Later sweeps do not count them again.
            try await Self.waitForMoreSweeps(3, on: server)
            #expect(try await IngestEndpointTests.metric(server, "waymark_retention_trips_deleted_total") == 5)
            let history = try await server.history("trips/t-3").1["events"]?.arrayValue ?? []
            #expect(history.filter { $0["type"]?.stringValue == "TripDeleted" }.count == 1)
        }
    }

    @Test func aRecentlyFinishedTripStaysUntilItHasBeenQuietForTheWholePeriod() async throws {
        try await TestServer.with(environment: Self.environment(seconds: 3600, vehicleSeconds: 3600)) { server in
            try await server.startTrip("t-1", vehicle: "v-1")
            try await server.completeTrip("t-1")
            #expect(await waitFor { try await IngestEndpointTests.metric(server, "waymark_retention_sweeps_total") >= 2 },
                    "no sweep ran")
            #expect(try await server.json("GET", "/v1/providers/acme/trips/t-1").0 == 200)
            #expect(try await IngestEndpointTests.metric(server, "waymark_retention_trips_deleted_total") == 0)
        }
    }

    @Test func retentionZeroKeepsTripsAndVehiclesAndRunsNoSweep() async throws {
        try await TestServer.with(environment: Self.environment(seconds: 0, vehicleSeconds: 0)) { server in
            try await server.startTrip("t-1", vehicle: "v-1")
            try await server.completeTrip("t-1")
            // The marker: a node sweeping every second as this one would, started after it, completes
            // two sweeps. By then a sweep on this node, had it one, would have run too.
            try await TestServer.with(environment: Self.environment(seconds: 3600, vehicleSeconds: 3600)) { reference in
                #expect(await waitFor(Self.deletionWait) { try await IngestEndpointTests.metric(reference, "waymark_retention_sweeps_total") >= 2 },
                        "the reference node did not sweep")
            }
            #expect(!Self.types(try await server.history("trips/t-1")).contains("TripDeleted"), "t-1 was deleted")
            #expect(!Self.types(try await server.history("vehicles/v-1")).contains("VehicleDeleted"), "v-1 was deleted")
            #expect(try await server.json("GET", "/v1/providers/acme/trips/t-1").0 == 200)
            #expect(try await server.json("GET", "/v1/providers/acme/vehicles/v-1").0 == 200)
            #expect(try await IngestEndpointTests.metric(server, "waymark_retention_sweeps_total") == -1)  // not reported
        }
    }

    @Test func serveRefusesRetentionSettingsThatAreNotWholeNumbersOfSeconds() async throws {
        for (name, bad, message) in [
            ("WAYMARK_TRIP_RETENTION_SECONDS", "7d", "from 0 to 3153600000"), ("WAYMARK_TRIP_RETENTION_SECONDS", "-1", "from 0 to 3153600000"),
            ("WAYMARK_VEHICLE_RETENTION_SECONDS", "1w", "from 0 to 3153600000"),
            ("WAYMARK_RETENTION_SWEEP_SECONDS", "0", "from 1 to 86400"), ("WAYMARK_RETENTION_SWEEP_SECONDS", "hourly", "from 1 to 86400"),
        ] {
            let result = try await WaymarkBinary.run(["serve"], environment: [name: bad, "WAYMARK_HTTP_PORT": "0"])
            #expect(result.status == 2)
            #expect(result.stderr.contains("\(name) must be a whole number of seconds \(message)"), "\(result.stderr)")
        }
    }

    /// Waits until the node has completed `count` more sweeps than it has now.
    static func waitForMoreSweeps(_ count: Int, on server: TestServer, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let done = try await IngestEndpointTests.metric(server, "waymark_retention_sweeps_total")
        #expect(await waitFor(Self.deletionWait) { try await IngestEndpointTests.metric(server, "waymark_retention_sweeps_total") >= done + count },
                "\(count) more sweeps after \(done) did not run", sourceLocation: sourceLocation)
    }

    /// Cancels `trip`. Under the whole suite's load the fleet projection may apply the write later
    /// than the consistency timeout: a 503 then says the write was kept, and the sweep still finds it.
    static func cancel(_ trip: String, on server: TestServer, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let (status, body) = try await server.updateTrip(trip, mask: "tripStatus", #"{"tripStatus":"CANCELED"}"#)
        #expect(status == 200 || (status == 503 && body["error"]?["status"]?.stringValue == "UNAVAILABLE"),
                "cancel \(trip): \(status) \(body)", sourceLocation: sourceLocation)
    }
}
