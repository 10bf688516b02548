import API
import Foundation
import JSON
import Postgres
import Schema
import Testing
import TestSupport

// Faults survived (issue 11): scripted crash and outage tests against a real `waymark serve`.
// They kill servers and stop a PostgreSQL of their own, so scripts/test.sh runs them in its last
// run, away from the timing-sensitive tests; `make test-faults` (scripts/test-faults.sh) runs them alone.

/// What the load clients saw: every request, whether it was acknowledged, and what it carried.
final class FaultLedger: @unchecked Sendable {
    struct Batch: Sendable {
        let eventIds: [String]
        let acknowledged: Bool
    }
    struct Location: Sendable {
        let vehicle: String
        let latitude: Double
        let acknowledged: Bool
    }
    struct TripCreation: Sendable {
        let trip: String
        let acknowledged: Bool
    }
    struct TripCancel: Sendable {
        let trip: String
        let acknowledged: Bool
    }

    private let lock = NSLock()
    private var _batches: [Batch] = []
    private var _locations: [Location] = []
    private var _trips: [TripCreation] = []
    private var _cancels: [TripCancel] = []

    var batches: [Batch] { lock.withLock { _batches } }
    var locations: [Location] { lock.withLock { _locations } }
    var trips: [TripCreation] { lock.withLock { _trips } }
    func add(_ batch: Batch) { lock.withLock { _batches.append(batch) } }
    func add(_ location: Location) { lock.withLock { _locations.append(location) } }
    var cancels: [TripCancel] { lock.withLock { _cancels } }
    func add(_ trip: TripCreation) { lock.withLock { _trips.append(trip) } }
    func add(_ cancel: TripCancel) { lock.withLock { _cancels.append(cancel) } }
}

/// Runs a SQL query on `url` off the cooperative pool; the rows as text columns ("" for NULL).
func faultQuery(_ url: String, _ sql: String, _ parameters: [String?] = []) async throws -> [[String]] {
    try await Blocking.run {
        try Connection(conninfo: url).query(sql, parameters).rows.map { row in row.values.map { $0 ?? "" } }
    }
}

/// `{a,b,c}`: a PostgreSQL array literal of uuids.
func uuidArray(_ ids: [String]) -> String { "{" + ids.joined(separator: ",") + "}" }

@Suite(.timeLimit(.minutes(5))) struct CrashDuringIngestFaultTests {
    static let clients = 4
    static let vehiclesPerClient = 2
    static let rounds = 4

    /// The latitude of the `n`th location sent for a vehicle: strictly increasing in send order.
    static func latitude(_ n: Int) -> Double { 52.5 + Double(n) / 100_000 }

    /// One client: owns its vehicles, sends in order (report batches with client event ids,
    /// UpdateVehicle, CreateTrip, and every other time a cancel of its last created trip) until the
    /// server stops answering.
    static func client(_ index: Int, server: TestServer, round: Int, counters: Counters, ledger: FaultLedger) async {
        let token = server.server
        var step = 0
        var created: [String] = []
        while !Task.isCancelled {
            step += 1
            let vehicle = "v-\(index)-\(step % vehiclesPerClient)"
            switch step % 3 {
            case 0:
                // A batch of five reports over both vehicles of the client.
                var ids: [String] = []
                var reports: [String] = []
                var sent: [(String, Double)] = []
                for k in 0..<5 {
                    let v = "v-\(index)-\(k % vehiclesPerClient)"
                    let id = UUID().uuidString.lowercased()
                    let latitude = latitude(counters.next(v))
                    ids.append(id)
                    sent.append((v, latitude))
                    reports.append(IngestEndpointTests.report(v, eventId: id, latitude: latitude, longitude: 13.4))
                }
                // A request the server never answered (killed) is recorded as sent, not acknowledged.
                let response = try? await server.request("POST", IngestEndpointTests.path, body: IngestEndpointTests.batch(reports), token: token)
                let results = response.map { IngestEndpointTests.results($0.json) } ?? []
                let acknowledged = response?.status == 200 && results.count == 5
                    && results.allSatisfy { $0["status"]?.stringValue == "ACCEPTED" }
                ledger.add(FaultLedger.Batch(eventIds: ids, acknowledged: acknowledged))
                for (v, latitude) in sent { ledger.add(FaultLedger.Location(vehicle: v, latitude: latitude, acknowledged: acknowledged)) }
                if response == nil { return }
            case 1:
                let latitude = latitude(counters.next(vehicle))
                let response = try? await server.request("PUT", "/v1/providers/acme/vehicles/\(vehicle)?updateMask=lastLocation",
                                                         body: #"{"lastLocation":{"location":{"latitude":\#(latitude),"longitude":13.4},"heading":90}}"#,
                                                         token: token)
                ledger.add(FaultLedger.Location(vehicle: vehicle, latitude: latitude, acknowledged: response?.status == 200))
                if response == nil { return }
            case 2 where step % 2 == 1 && !created.isEmpty:
                let trip = created.removeLast()
                let response = try? await server.request("PUT", "/v1/providers/acme/trips/\(trip)?updateMask=tripStatus",
                                                         body: #"{"tripStatus":"CANCELED"}"#, token: token)
                ledger.add(FaultLedger.TripCancel(trip: trip, acknowledged: response?.status == 200))
                if response == nil { return }
            default:
                let trip = "t-\(round)-\(index)-\(step)"
                let response = try? await server.request("POST", "/v1/providers/acme/trips?tripId=\(trip)", body: """
                    {"tripType":"EXCLUSIVE","pickupPoint":{"point":{"latitude":52.5,"longitude":13.4}},
                     "dropoffPoint":{"point":{"latitude":52.53,"longitude":13.38}}}
                    """, token: token)
                ledger.add(FaultLedger.TripCreation(trip: trip, acknowledged: response?.status == 200))
                if response?.status == 200 { created.append(trip) }
                if response == nil { return }
            }
        }
    }

    /// Polls GetTrip until it answers 200 with `status` ("any": any status) or `deadline` passes;
    /// whether it did, and the last answer.
    static func readBack(_ server: TestServer, trip: String, status wanted: String, before deadline: ContinuousClock.Instant) async throws -> (Bool, String) {
        var last = "no answer"
        while ContinuousClock.now < deadline {
            let (status, body) = try await server.json("GET", "/v1/providers/acme/trips/\(trip)")
            last = "\(status) \(body)"
            if status == 200, wanted == "any" || body["tripStatus"]?.stringValue == wanted { return (true, last) }
            try await Task.sleep(for: .milliseconds(100))
        }
        return (false, last)
    }

    /// Per-vehicle send counters shared by the rounds (a vehicle's latitudes only grow).
    final class Counters: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [String: Int] = [:]
        func next(_ vehicle: String) -> Int {
            lock.withLock {
                values[vehicle, default: 0] += 1
                return values[vehicle]!
            }
        }
    }

    @Test func killNineDuringIngestLosesNothingAcknowledgedAndWritesNoHalfBatch() async throws {
        try await TestDatabase.withTestDatabase { url in
            let ledger = FaultLedger()
            let counters = Counters()
            let vehicles = (0..<Self.clients).flatMap { c in (0..<Self.vehiclesPerClient).map { "v-\(c)-\($0)" } }
            var killed = 0
            var delays: [Int] = []
            for round in 0..<Self.rounds {
                let server = try await TestServer.start(databaseURL: url, environment: ["WAYMARK_CONSISTENCY_TIMEOUT_SECONDS": "10"])
                if round == 0 {
                    for vehicle in vehicles { try await server.createVehicle(vehicle, latitude: Self.latitude(0), longitude: 13.4) }
                }
                let clients = (0..<Self.clients).map { index in
                    Task { await Self.client(index, server: server, round: round, counters: counters, ledger: ledger) }
                }
                // A random moment under load, then SIGKILL: no shutdown, no flush.
                let delay = Int.random(in: 600...2_500)
                delays.append(delay)
                try await Task.sleep(for: .milliseconds(delay))
                let status = server.process.stop(signal: SIGKILL)
                server.process.cleanUp()
                killed += 1
                #expect(status != 0, "the server was killed, not stopped (status \(status))")
                for task in clients { await task.value }
            }
            #expect(killed == Self.rounds)

            // A last start on the same database: it recovers, its projections catch up.
            let server = try await TestServer.start(databaseURL: url, environment: ["WAYMARK_CONSISTENCY_TIMEOUT_SECONDS": "10"])
            defer { server.stop() }
            let batches = ledger.batches, locations = ledger.locations, trips = ledger.trips, cancels = ledger.cancels
            #expect(batches.contains { $0.acknowledged } && locations.contains { $0.acknowledged } && trips.contains { $0.acknowledged },
                    "the load did get answers: \(batches.count) batches, \(locations.count) locations, \(trips.count) trips")

            print("crash during ingest: kills after \(delays) ms; batches \(batches.filter(\.acknowledged).count) acknowledged / \(batches.count) sent, "
                  + "locations \(locations.filter(\.acknowledged).count) / \(locations.count), trips \(trips.filter(\.acknowledged).count) / \(trips.count), "
                  + "cancels \(cancels.filter(\.acknowledged).count) / \(cancels.count)")
            // Every batch is all or nothing; every acknowledged batch is all there.
            for batch in batches {
                let rows = try await faultQuery(url, "SELECT count(*) FROM events WHERE event_id = ANY($1::uuid[])", [uuidArray(batch.eventIds)])
                let stored = Int(rows.first?.first ?? "") ?? -1
                #expect(stored == 0 || stored == batch.eventIds.count, "a batch of \(batch.eventIds.count) is half-written: \(stored) stored")
                if batch.acknowledged { #expect(stored == batch.eventIds.count, "an acknowledged batch is missing: \(stored) of \(batch.eventIds.count)") }
            }
            // Every acknowledged location (batch or UpdateVehicle) is in its vehicle's log.
            var logged: [String: [Double]] = [:]
            for vehicle in vehicles {
                let rows = try await faultQuery(url, """
                    SELECT data #>> '{location,location,latitude}' FROM events
                    WHERE stream_id = $1 AND event_type = 'VehicleLocationReported' ORDER BY stream_version
                    """, ["vehicle:acme/\(vehicle)"])
                logged[vehicle] = rows.compactMap { Double($0.first ?? "") }
            }
            for location in locations where location.acknowledged {
                #expect(logged[location.vehicle, default: []].contains { abs($0 - location.latitude) < 1e-9 },
                        "acknowledged location \(location.latitude) of \(location.vehicle) is not in the log")
            }
            // Every acknowledged CreateTrip is in the log.
            for trip in trips where trip.acknowledged {
                let rows = try await faultQuery(url, "SELECT count(*) FROM events WHERE stream_id = $1 AND event_type = 'TripCreated'", ["trip:acme/\(trip.trip)"])
                #expect(rows.first?.first == "1", "acknowledged trip \(trip.trip) is not in the log")
            }
            let canceled = Set(cancels.filter(\.acknowledged).map(\.trip))
            #expect(!canceled.isEmpty, "some cancels were acknowledged")
            for trip in canceled {
                let rows = try await faultQuery(url, "SELECT count(*) FROM events WHERE stream_id = $1 AND event_type = 'TripCanceled'", ["trip:acme/\(trip)"])
                #expect(rows.first?.first == "1", "acknowledged cancel of \(trip) is not in the log")
            }

            // Projections converge: the fleet read model shows each vehicle's last logged location,
            // which is no older than its last acknowledged one; every acknowledged trip reads back.
            // (A generous deadline: under `make test` a long import elsewhere on the cluster holds projections back.)
            let deadline = ContinuousClock.now + .seconds(90)
            for vehicle in vehicles {
                let last = try #require(logged[vehicle]?.last, "no location logged for \(vehicle)")
                let acknowledged = locations.filter { $0.vehicle == vehicle && $0.acknowledged }.map(\.latitude).max() ?? Self.latitude(0)
                #expect(last >= acknowledged - 1e-9, "\(vehicle): the log ends at \(last), before the acknowledged \(acknowledged)")
                var shown: Double?
                while ContinuousClock.now < deadline {
                    let (status, body) = try await server.json("GET", "/v1/providers/acme/vehicles/\(vehicle)")
                    shown = status == 200 ? body["lastLocation"]?["location"]?["latitude"]?.doubleValue : nil
                    if let shown, abs(shown - last) < 1e-9 { break }
                    try await Task.sleep(for: .milliseconds(100))
                }
                #expect(shown.map { abs($0 - last) < 1e-9 } == true, "\(vehicle): the fleet read model shows \(String(describing: shown)), the log ends at \(last)")
            }
            for trip in trips where trip.acknowledged {
                // A trip whose cancel was acknowledged reads back CANCELED.
                let wanted = canceled.contains(trip.trip) ? "CANCELED" : "any"
                let (readBack, last) = try await Self.readBack(server, trip: trip.trip, status: wanted, before: deadline)
                #expect(readBack, "acknowledged trip \(trip.trip) does not read back (wanted status \(wanted)): \(last)")
            }

            server.stop()
            let projections = try await WaymarkBinary.run(["verify-projections"], environment: ["DATABASE_URL": url])
            #expect(projections.status == 0, "verify-projections: \(projections.output)")
            let log = try await WaymarkBinary.run(["verify"], environment: ["DATABASE_URL": url])
            #expect(log.status == 0, "verify: \(log.output)")
        }
    }
}

@Suite(.timeLimit(.minutes(5))) struct DatabaseRestartFaultTests {
    /// One request of the load: when it was answered, how, and how long it took.
    struct Answer: Sendable {
        /// The report's event id (reportLocations), "" for UpdateVehicle, "trip:ID" for CreateTrip.
        let eventId: String
        let latitude: Double
        let status: Int?
        let errorStatus: String?
        let seconds: Double
        /// When it was sent and when it was answered.
        let sent: ContinuousClock.Instant
        let at: ContinuousClock.Instant
    }

    final class Answers: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [Answer] = []
        var all: [Answer] { lock.withLock { values } }
        func add(_ answer: Answer) { lock.withLock { values.append(answer) } }
    }

    @Test func postgresStoppedForTenSecondsGets503sQuicklyThenRecoversWithNothingLostAndStreamsResume() async throws {
        // A cluster of its own: this test stops it, and the shared test cluster must never stop.
        let dir = "/tmp/wm-faults-\(UUID().uuidString.prefix(8).lowercased())/pg"
        let started = try await WaymarkBinary.run(["db", "start", "--data-dir", dir])
        try #require(started.status == 0, "db start: \(started.output)")
        let stopCluster: @Sendable () async -> Void = {
            _ = try? await WaymarkBinary.run(["db", "stop", "--data-dir", dir])
            try? FileManager.default.removeItem(atPath: (dir as NSString).deletingLastPathComponent)
        }
        do {
            let urlOutcome = try await WaymarkBinary.run(["db", "url", "--data-dir", dir])
            let url = urlOutcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            try #require(urlOutcome.status == 0 && !url.isEmpty, "db url: \(urlOutcome.output)")
            try await Blocking.run { try Migrator().migrate(try Connection(conninfo: url)) }
            let server = try await TestServer.start(databaseURL: url, environment: ["WAYMARK_CONSISTENCY_TIMEOUT_SECONDS": "5"])
            defer { server.stop() }
            try await exercise(server, url: url, dir: dir)
        } catch {
            await stopCluster()
            throw error
        }
        await stopCluster()
    }

    private func exercise(_ server: TestServer, url: String, dir: String) async throws {
        try await server.startTrip()
        let stream = try await server.openStream(RiderEndpoints.JourneyStreamTests.path, token: server.server, timeoutSeconds: 60)
        let first = try #require(try await stream.nextEventAsync())
        var lastSeenId = try #require(first.id.flatMap { Int64($0) })

        // The load: one write every 100 ms, until told to stop.
        let answers = Answers()
        let token = server.server
        let load = Task {
            var n = 0
            while !Task.isCancelled {
                n += 1
                let latitude = 52.52 + Double(n) / 100_000
                let start = ContinuousClock.now
                // In turn: a report batch with an event id, UpdateVehicle, CreateTrip.
                let id: String
                let response: TestServer.Response?
                let accepted: Bool
                switch n % 3 {
                case 0:
                    id = UUID().uuidString.lowercased()
                    let body = IngestEndpointTests.batch([IngestEndpointTests.report("v-1", eventId: id, latitude: latitude, longitude: 13.405)])
                    response = try? await server.request("POST", IngestEndpointTests.path, body: body, token: token)
                    accepted = response.map { IngestEndpointTests.results($0.json).first?["status"]?.stringValue == "ACCEPTED" } ?? false
                case 1:
                    id = ""
                    response = try? await server.request("PUT", "/v1/providers/acme/vehicles/v-1?updateMask=lastLocation",
                                                         body: #"{"lastLocation":{"location":{"latitude":\#(latitude),"longitude":13.405},"heading":90}}"#,
                                                         token: token)
                    accepted = true
                default:
                    id = "trip:t-load-\(n)"
                    response = try? await server.request("POST", "/v1/providers/acme/trips?tripId=t-load-\(n)", body: """
                        {"tripType":"EXCLUSIVE","pickupPoint":{"point":{"latitude":52.5,"longitude":13.4}},
                         "dropoffPoint":{"point":{"latitude":52.53,"longitude":13.38}}}
                        """, token: token)
                    accepted = true
                }
                let took = (ContinuousClock.now - start).components
                // A request cut short by this task's own cancellation (the end of the load) got no
                // answer because the test stopped waiting for it, not because the server failed.
                if response == nil, Task.isCancelled { break }
                // 200 only for an accepted report; -1 for a 200 whose report was not accepted.
                answers.add(Answer(eventId: id, latitude: latitude, status: response.map { accepted ? $0.status : ($0.status == 200 ? -1 : $0.status) },
                                   errorStatus: response?.json["error"]?["status"]?.stringValue,
                                   seconds: Double(took.seconds) + Double(took.attoseconds) / 1e18, sent: start, at: ContinuousClock.now))
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        // The outage starts once the load runs: each kind of request acknowledged (checked at the end).
        _ = await waitFor(.seconds(60)) {
            Set(answers.all.filter { $0.status == 200 }.map { $0.eventId.isEmpty ? 1 : $0.eventId.hasPrefix("trip:") ? 2 : 0 }).count == 3
        }
        let stopped = try await WaymarkBinary.run(["db", "stop", "--data-dir", dir])
        try #require(stopped.status == 0, "db stop: \(stopped.output)")
        let outageStart = ContinuousClock.now
        // PostgreSQL stays down for ten seconds (the outage is the scenario: real time has to pass),
        // and until a request sent during it has been answered.
        let outageEnds = outageStart + .seconds(10), outageLimit = outageStart + .seconds(60)
        while ContinuousClock.now < outageLimit, ContinuousClock.now < outageEnds || !answers.all.contains(where: { $0.sent > outageStart }) {
            try await Task.sleep(for: .milliseconds(100))
        }
        // PostgreSQL accepts connections before `db start` returns: the outage ends here.
        let restarting = ContinuousClock.now
        let restarted = try await WaymarkBinary.run(["db", "start", "--data-dir", dir])
        try #require(restarted.status == 0, "db start: \(restarted.output)")
        let outageEnd = ContinuousClock.now

        // The server reconnects by itself: reports are accepted again without restarting it.
        let recovery = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < recovery, !answers.all.contains(where: { $0.at > outageEnd && $0.status == 200 }) {
            try await Task.sleep(for: .milliseconds(100))
        }
        // The load goes on for a few more answers after the recovery before it stops.
        let recovered = answers.all.count
        _ = await waitFor(.seconds(30)) { answers.all.count >= recovered + 5 }
        load.cancel()
        await load.value
        let all = answers.all
        // Sent and answered while PostgreSQL was down.
        let during = all.filter { $0.sent > outageStart && $0.at < restarting }
        print("database restart: \(all.count) requests, \(during.count) during the outage, \(all.filter { $0.status == 200 }.count) accepted, "
              + "slowest answer \(all.map(\.seconds).max() ?? 0) s")
        #expect(!during.isEmpty, "requests were answered during the outage")
        for answer in during {
            #expect(answer.status == 503 && answer.errorStatus == "UNAVAILABLE",
                    "during the outage (\(answer.eventId.isEmpty ? "UpdateVehicle" : answer.eventId), sent \(answer.sent - outageStart) into it): status \(String(describing: answer.status)) \(answer.errorStatus ?? "")")
        }
        for answer in all {
            #expect(answer.status != nil, "every request got an HTTP answer")
            #expect(answer.seconds < 15, "an answer took \(answer.seconds) s")
        }
        #expect(all.contains { $0.at > outageEnd && $0.status == 200 }, "the server accepted reports again after PostgreSQL came back")

        // Nothing acknowledged is lost: reports by event id, UpdateVehicle by location, trips by stream.
        let acknowledged = all.filter { $0.status == 200 }
        let reports = acknowledged.filter { !$0.eventId.isEmpty && !$0.eventId.hasPrefix("trip:") }
        let rows = try await faultQuery(url, "SELECT count(*) FROM events WHERE event_id = ANY($1::uuid[])", [uuidArray(reports.map(\.eventId))])
        #expect(Int(rows.first?.first ?? "") == reports.count, "acknowledged \(reports.count) reports, stored \(rows.first?.first ?? "?")")
        let logged = try await faultQuery(url, """
            SELECT data #>> '{location,location,latitude}' FROM events WHERE stream_id = 'vehicle:acme/v-1' AND event_type = 'VehicleLocationReported'
            """).compactMap { Double($0.first ?? "") }
        for answer in acknowledged where answer.eventId.isEmpty {
            #expect(logged.contains { abs($0 - answer.latitude) < 1e-9 }, "acknowledged UpdateVehicle \(answer.latitude) is not in the log")
        }
        for answer in acknowledged where answer.eventId.hasPrefix("trip:") {
            let trip = answer.eventId.dropFirst("trip:".count)
            let stored = try await faultQuery(url, "SELECT count(*) FROM events WHERE stream_id = $1 AND event_type = 'TripCreated'", ["trip:acme/\(trip)"])
            #expect(stored.first?.first == "1", "acknowledged trip \(trip) is not in the log")
        }
        #expect(acknowledged.contains { $0.eventId.isEmpty } && acknowledged.contains { $0.eventId.hasPrefix("trip:") } && !reports.isEmpty,
                "every kind of request was acknowledged at some point")

        // The rider's stream: read what the old connection still delivers, then reconnect with
        // Last-Event-ID; the new stream sends only newer versions, up to a report made after it opened.
        let drained = try await Blocking.run {
            stream.setTimeout(seconds: 2)
            var ids: [Int64] = []
            while let event = try? stream.nextEvent() { if let id = event.id.flatMap({ Int64($0) }) { ids.append(id) } }
            stream.close()
            return ids
        }
        print("database restart: the first stream delivered \(drained.count) more events after the initial view")
        lastSeenId = max(lastSeenId, drained.max() ?? lastSeenId)
        let resumed = try await server.openStream(RiderEndpoints.JourneyStreamTests.path, token: server.server,
                                                   headers: [("Last-Event-ID", String(lastSeenId))], timeoutSeconds: 30)
        defer { resumed.close() }
        #expect(resumed.status == 200, "\(resumed.errorBody)")
        let lastLatitude = 52.53
        let (status, body) = try await server.json("POST", IngestEndpointTests.path,
                                                   IngestEndpointTests.batch([IngestEndpointTests.report("v-1", latitude: lastLatitude, longitude: 13.405)]))
        #expect(status == 200, "a report after the outage: \(body)")
        var previous = lastSeenId
        var reached = false
        while !reached, let event = try await resumed.nextEventAsync() {
            let id = try #require(event.id.flatMap { Int64($0) }, "an event without an id: \(event)")
            #expect(id > previous, "after Last-Event-ID \(lastSeenId) the stream sent version \(id) after \(previous)")
            previous = id
            let view = try JSONValue.parse(Array(event.data.utf8))
            if let latitude = vehicleLatitude(view), abs(latitude - lastLatitude) < 1e-9 { reached = true }
        }
        #expect(reached, "the resumed stream reached the report made after reconnecting (\(lastLatitude))")
    }
}
