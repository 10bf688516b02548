import API
import Foundation
import JSON
import Postgres
import ReadSide
import Schema
import Testing
import TestSupport

// Read replicas and several nodes (issue 11): a primary of the test's own, a streaming replica made
// with `pg_basebackup -R`, and two `waymark serve` nodes reading from the replica. scripts/test.sh
// runs these in its last run, beside the fault tests (they start clusters and pause replay).

extension TestServer {
    /// A Prometheus sample of `/metrics` (the first line starting with `name`), or nil.
    func metric(_ name: String) async throws -> Double? {
        let text = try await request("GET", "/metrics").text
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + " ") }) else { return nil }
        return Double(line.split(separator: " ").last ?? "")
    }

    /// Whether this node's runner owns `projection`, from `/metrics`.
    func ownsProjection(_ projection: String) async throws -> Bool {
        try await metric("waymark_projection_owner{projection=\"\(projection)\"}") == 1
    }

    /// UpdateVehicle lastLocation with `token`; the status, the answer and its consistency token.
    func moveVehicle(_ vehicle: String, latitude: Double, token: String) async throws -> (Int, JSONValue, String?) {
        let response = try await request("PUT", "/v1/providers/acme/vehicles/\(vehicle)?updateMask=lastLocation",
                                         body: #"{"lastLocation":{"location":{"latitude":\#(latitude),"longitude":13.405},"heading":90}}"#, token: token)
        return (response.status, response.json, response.header(WaymarkAPI.consistencyTokenHeader))
    }

    /// GetVehicle (bearer `bearer`) with an optional consistency token; the status and the vehicle.
    func readVehicle(_ vehicle: String, after token: String?, bearer: String) async throws -> (Int, JSONValue) {
        let response = try await request("GET", "/v1/providers/acme/vehicles/\(vehicle)", token: bearer,
                                         headers: token.map { [WaymarkAPI.consistencyTokenHeader: $0] } ?? [:])
        return (response.status, response.json)
    }
}

@Suite(.serialized, .timeLimit(.minutes(4))) struct ReadReplicaTests {
    /// What the load saw: acknowledged writes, and reads that missed their client's own write.
    final class Ledger: @unchecked Sendable {
        private let lock = NSLock()
        private var _locations: [(vehicle: String, latitude: Double)] = []
        private var _trips: [String] = []
        private var _misses: [String] = []
        private var _reads = 0
        var locations: [(vehicle: String, latitude: Double)] { lock.withLock { _locations } }
        var trips: [String] { lock.withLock { _trips } }
        var misses: [String] { lock.withLock { _misses } }
        var reads: Int { lock.withLock { _reads } }
        func location(_ vehicle: String, _ latitude: Double) { lock.withLock { _locations.append((vehicle, latitude)) } }
        func trip(_ trip: String) { lock.withLock { _trips.append(trip) } }
        func read(missed: String?) { lock.withLock { _reads += 1; if let missed { _misses.append(missed) } } }
    }

    static let clients = 3
    static let loadSeconds = 8

    /// One client: moves its own vehicle through both nodes in turn and reads each move back through
    /// the other node with the write's token; every third step creates a trip on node A and reads it
    /// back on node B.
    static func client(_ index: Int, nodes: (TestServer, TestServer), until end: ContinuousClock.Instant, ledger: Ledger) async throws {
        let vehicle = "v-load-\(index)"
        let bearer = nodes.0.server  // both nodes verify node A's secret
        var step = 0
        while ContinuousClock.now < end {
            step += 1
            let (writer, reader) = step.isMultiple(of: 2) ? (nodes.0, nodes.1) : (nodes.1, nodes.0)
            if step.isMultiple(of: 3) {
                let trip = "t-load-\(index)-\(step)"
                let response = try await nodes.0.request("POST", "/v1/providers/acme/trips?tripId=\(trip)", body: """
                    {"tripType":"EXCLUSIVE","pickupPoint":{"point":{"latitude":52.5,"longitude":13.4}},"dropoffPoint":{"point":{"latitude":52.53,"longitude":13.38}}}
                    """, token: nodes.0.server)
                guard response.status == 200 else { ledger.read(missed: "CreateTrip \(trip) answered \(response.status) \(response.text)"); continue }
                ledger.trip(trip)
                let token = response.header(WaymarkAPI.consistencyTokenHeader)
                let read = try await nodes.1.request("GET", "/v1/providers/acme/trips/\(trip)", token: bearer,
                                                     headers: token.map { [WaymarkAPI.consistencyTokenHeader: $0] } ?? [:])
                ledger.read(missed: read.status == 200 && token != nil ? nil : "trip \(trip) on node B after its creation (token \(token ?? "none")): \(read.status)")
            } else {
                let latitude = 52.0 + Double(step) / 10_000
                let (status, answer, token) = try await writer.moveVehicle(vehicle, latitude: latitude, token: bearer)
                guard status == 200 else { ledger.read(missed: "UpdateVehicle \(vehicle) answered \(status) \(answer)"); continue }
                ledger.location(vehicle, latitude)
                let (readStatus, read) = try await reader.readVehicle(vehicle, after: token, bearer: bearer)
                let seen = read["lastLocation"]?["location"]?["latitude"]?.doubleValue
                ledger.read(missed: readStatus == 200 && token != nil && seen == latitude
                    ? nil : "\(vehicle) read back \(String(describing: seen)) (status \(readStatus), token \(token ?? "none")) after writing \(latitude)")
            }
        }
    }

    @Test func twoNodesOnAReplicaServeMixedLoadWithEachClientReadingItsOwnWritesAndStreamsFollowingTheOtherNode() async throws {
        try await ReplicatedCluster.with { cluster in
            let (a, b) = try await cluster.startNodes()
            defer { a.stop(); b.stop() }
            for index in 0..<Self.clients { try await a.createVehicle("v-load-\(index)") }
            // A rider on node B follows a trip whose vehicle moves through node A.
            try await a.startTrip("t-1", vehicle: "v-1")
            _ = try await b.journeyView("t-1", token: a.server) { $0["tripStatus"]?.stringValue == "ENROUTE_TO_PICKUP" }
            let stream = try await b.openStream("/v1/providers/acme/trips/t-1/journey:stream", token: a.server, timeoutSeconds: 30)
            defer { stream.close() }
            try #require(stream.status == 200, "\(stream.errorBody)")

            let ledger = Ledger()
            let end = ContinuousClock.now + .seconds(Self.loadSeconds)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<Self.clients {
                    group.addTask { try await Self.client(index, nodes: (a, b), until: end, ledger: ledger) }
                }
                // Riders' plain GETs on node B meanwhile (eventually consistent: no token).
                group.addTask {
                    while ContinuousClock.now < end {
                        let response = try await b.journey("t-1", token: a.server)
                        ledger.read(missed: response.status == 200 ? nil : "rider GET on node B: \(response.status) \(response.text)")
                        try await Task.sleep(for: .milliseconds(50))
                    }
                }
                try await group.waitForAll()
            }
            let locations = ledger.locations, trips = ledger.trips, misses = ledger.misses
            print("read replica load: \(locations.count) locations, \(trips.count) trips acknowledged, \(ledger.reads) reads, \(misses.count) misses")
            #expect(locations.count >= Self.clients * 3 && trips.count >= Self.clients, "the load ran: \(locations.count) locations, \(trips.count) trips")
            #expect(misses.isEmpty, "reads missed their client's own writes: \(misses.prefix(5))")

            // The stream on node B shows a move made through node A.
            let final = 52.5123
            try await a.report("v-1", latitude: final)
            let deadline = ContinuousClock.now + .seconds(20)
            var shown: Double?
            while ContinuousClock.now < deadline, shown != final {
                guard let event = try await stream.nextEventAsync() else { break }
                if event.event == "journey" || event.event == nil, let view = try? JSONValue.parse(Array(event.data.utf8)) {
                    shown = vehicleLatitude(view) ?? shown
                }
            }
            #expect(shown == final, "the rider's stream on node B shows the move made on node A (last shown \(String(describing: shown)))")

            // Reads really went to the replica: whichever node does not own the fleet projection read there.
            let replicaReads = try await a.metric("waymark_replica_reads_total") ?? 0
            let replicaReadsB = try await b.metric("waymark_replica_reads_total") ?? 0
            #expect(replicaReads + replicaReadsB > 0, "the replica answered reads (A \(replicaReads), B \(replicaReadsB))")

            // Every acknowledged write is in the event log.
            for (vehicle, latitude) in locations {
                let rows = try await faultQuery(cluster.primaryURL, """
                    SELECT count(*) FROM events WHERE stream_id = $1 AND event_type = 'VehicleLocationReported'
                      AND (data #>> '{location,location,latitude}')::float8 = $2::float8
                    """, ["vehicle:acme/\(vehicle)", String(latitude)])
                #expect(rows.first?.first == "1", "acknowledged location \(latitude) of \(vehicle) is not in the log once: \(rows)")
            }
            for trip in trips {
                let rows = try await faultQuery(cluster.primaryURL, "SELECT count(*) FROM events WHERE stream_id = $1 AND event_type = 'TripCreated'", ["trip:acme/\(trip)"])
                #expect(rows.first?.first == "1", "acknowledged trip \(trip) is not in the log")
            }

            stream.close()
            a.stop()
            b.stop()
            let projections = try await WaymarkBinary.run(["verify-projections"], environment: ["DATABASE_URL": cluster.primaryURL])
            #expect(projections.status == 0, "verify-projections: \(projections.output)")
            let log = try await WaymarkBinary.run(["verify"], environment: ["DATABASE_URL": cluster.primaryURL])
            #expect(log.status == 0, "verify: \(log.output)")
        }
    }

    @Test func whileTheReplicaLagsAReadWithTheWritersTokenStillShowsTheWriteAndOneWithoutIsStale() async throws {
        try await ReplicatedCluster.with { cluster in
            let (a, b) = try await cluster.startNodes(environment: ["WAYMARK_READ_REPLICA_WAIT_MS": "300"])
            defer { a.stop(); b.stop() }
            try await a.createVehicle("v-1", latitude: 52.1)
            // The reader is the node that does not own the fleet projection (the owner answers from memory).
            var owner: TestServer?
            let deadline = ContinuousClock.now + .seconds(20)
            while owner == nil, ContinuousClock.now < deadline {
                if try await a.ownsProjection("fleet") { owner = a } else if try await b.ownsProjection("fleet") { owner = b }
                if owner == nil { try await Task.sleep(for: .milliseconds(100)) }
            }
            let writer = try #require(owner, "one node owns the fleet projection")
            let reader = writer === a ? b : a
            let bearer = a.server
            let (status, _, created) = try await writer.moveVehicle("v-1", latitude: 52.2, token: bearer)
            try #require(status == 200 && created != nil, "the write's answer carries a token")
            let (firstStatus, first) = try await reader.readVehicle("v-1", after: created, bearer: bearer)
            #expect(firstStatus == 200 && first["lastLocation"]?["location"]?["latitude"]?.doubleValue == 52.2, "\(first)")

            try await cluster.pauseReplay(true)
            do {
                let (moved, _, token) = try await writer.moveVehicle("v-1", latitude: 52.3, token: bearer)
                try #require(moved == 200, "the write succeeds while the replica lags")
                let fallbacksBefore = try await reader.metric("waymark_replica_fallbacks_total{reason=\"lag\"}") ?? -1
                let (withStatus, withToken) = try await reader.readVehicle("v-1", after: token, bearer: bearer)
                #expect(withStatus == 200 && withToken["lastLocation"]?["location"]?["latitude"]?.doubleValue == 52.3,
                        "with the writer's token the lagging replica is bypassed: \(withToken)")
                let fallbacksAfter = try await reader.metric("waymark_replica_fallbacks_total{reason=\"lag\"}") ?? -1
                #expect(fallbacksAfter == fallbacksBefore + 1, "one read fell back to the primary (\(fallbacksBefore) → \(fallbacksAfter))")
                let (staleStatus, stale) = try await reader.readVehicle("v-1", after: nil, bearer: bearer)
                #expect(staleStatus == 200 && stale["lastLocation"]?["location"]?["latitude"]?.doubleValue == 52.2,
                        "without a token the read comes from the paused replica: \(stale)")
                // A malformed token is refused, in Fleet Engine's error shape.
                let bad = try await reader.request("GET", "/v1/providers/acme/vehicles/v-1", token: bearer,
                                                   headers: [WaymarkAPI.consistencyTokenHeader: "not-a-position"])
                expectError((bad.status, bad.json), 400, "INVALID_ARGUMENT", containing: WaymarkAPI.consistencyTokenHeader)
            } catch {
                try? await cluster.pauseReplay(false)
                throw error
            }
            try await cluster.pauseReplay(false)
            // Once replay resumes, a plain read on the replica catches up.
            var latest: Double?
            let caughtUp = ContinuousClock.now + .seconds(20)
            while latest != 52.3, ContinuousClock.now < caughtUp {
                latest = try await reader.readVehicle("v-1", after: nil, bearer: bearer).1["lastLocation"]?["location"]?["latitude"]?.doubleValue
                if latest != 52.3 { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(latest == 52.3, "the replica caught up after replay resumed")
        }
    }

    @Test func aBadReplicaWaitIsRefusedNamingTheVariable() async throws {
        // Settings are read before any database is touched: the server exits at once with status 2.
        let outcome = try await WaymarkBinary.run(["serve"], environment: [
            "DATABASE_URL": "postgresql:///none?host=/nonexistent", "WAYMARK_READ_DATABASE_URL": "postgresql:///none?host=/nonexistent",
            "WAYMARK_READ_REPLICA_WAIT_MS": "soon",
        ])
        #expect(outcome.status == 2, "\(outcome.output)")
        #expect(outcome.stderr.contains("WAYMARK_READ_REPLICA_WAIT_MS must be a whole number of milliseconds from 0 to 60000, got \"soon\""), "\(outcome.output)")
    }

    @Test func anUnreachableReplicaStopsTheServerWithAnErrorNamingTheSetting() async throws {
        try await TestDatabase.withTestDatabase { url in
            let missing = "postgresql:///postgres?host=/tmp/wm-no-replica-\(UUID().uuidString.prefix(8))&port=5432&user=postgres"
            let process = try Subprocess.spawn(WaymarkBinary.path, ["serve"], environment: [
                "DATABASE_URL": url, "WAYMARK_JWT_SECRET": "replica-test-secret-0123456789abcdef", "WAYMARK_HTTP_PORT": "0", "WAYMARK_GRPC_PORT": "off",
                "WAYMARK_READ_DATABASE_URL": missing,
            ])
            defer { process.cleanUp() }
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline, !process.stderr.contains("could not use the read replica"), !process.stderr.contains("listening on") {
                try await Task.sleep(for: .milliseconds(50))
            }
            let log = process.stderr
            let status = process.stop()
            #expect(!log.contains("listening on"), "the server must not serve without its replica: \(log.suffix(600))")
            #expect(log.contains("could not use the read replica (WAYMARK_READ_DATABASE_URL"), "\(log.suffix(600))")
            #expect(status == 1, "exit status \(status)")
        }
    }
}

@Suite struct WALPositionTests {
    @Test func parsesAndPrintsPostgresTextForm() throws {
        let position = try #require(WALPosition("16/B374D848"))
        #expect(position.value == 0x16_B374_D848)
        #expect(position.description == "16/B374D848")
        #expect(WALPosition("0/0")?.value == 0)
        #expect(WALPosition("0/16B3748")! < WALPosition("1/0")!)
    }

    @Test func rejectsMalformedPositions() {
        for text in ["", "/", "1/", "/1", "1/2/3", "G/0", "123456789/0", "0/123456789", "-1/0", " 0/1"] {
            #expect(WALPosition(text) == nil, "\(text.debugDescription)")
        }
    }
}
