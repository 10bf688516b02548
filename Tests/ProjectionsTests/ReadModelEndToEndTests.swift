import EventStore
import Foundation
import JSON
import Journey
import Postgres
import Projections
import ReadModels
import Simulator
import Synchronization
import Testing
import TestSupport

/// The real read models, fed a simulated fleet through the real store and runtime, equal a
/// rebuild from the feed: live, after a crash mid-batch, and after a rebuild swap.
@Suite(.timeLimit(.minutes(3)))
struct ReadModelEndToEndTests {
    static let provider = "acme"
    static let start = Timestamp(secondsSinceEpoch: 1_772_352_000)
    /// Sparser location reports than the default keep the suite fast on two cores; every kind of event still occurs.
    static let reportInterval = 15.0...30.0

    /// Appends `commands` in order with their expected versions, several commands per
    /// `appendBatch` (one transaction, so feed order is workload order); returns the event count.
    static func append(_ commands: some Sequence<WorkloadCommand>, to store: EventStore, commandsPerBatch: Int = 150) async throws -> Int {
        var batch: [StreamAppend] = []
        var commandsInBatch = 0
        var count = 0
        func flush() async throws {
            guard !batch.isEmpty else { return }
            let results = await store.appendBatch(batch)
            for (append, result) in zip(batch, results) {
                if case .failure(let error) = result {
                    throw TestSetupError("append to \(append.streamId) at \(append.expectedVersion) failed: \(error)")
                }
            }
            batch = []
            commandsInBatch = 0
        }
        for command in commands {
            for append in command.appends {
                batch.append(StreamAppend(
                    streamId: append.streamId,
                    expectedVersion: append.expectedVersion == 0 ? .noStream : .exact(append.expectedVersion),
                    events: append.events.map { EventData(id: $0.id, type: $0.type, data: $0.data) }))
                count += append.events.count
            }
            commandsInBatch += 1
            if commandsInBatch == commandsPerBatch { try await flush() }
        }
        try await flush()
        return count
    }

    /// One runner per catalog projection, started.
    static func startRunners(_ store: EventStore, _ url: String, options: @Sendable (String) -> ProjectionRunner.Options = { _ in .init() }) -> [ProjectionRunner] {
        ProjectionCatalog.all.map { entry in
            let runner = ProjectionRunner(store: store, conninfo: url, options: options(entry.name), projector: entry.make)
            runner.start()
            return runner
        }
    }

    static func waitUntilApplied(_ runners: [ProjectionRunner], _ count: Int, seconds: Double = 90) async throws {
        for runner in runners {
            try await waitFor("\(runner.name) applied \(count) events", seconds: seconds) {
                runner.status.eventsApplied == Int64(count)
            }
        }
    }

    /// Every catalog projection's live table equals a rebuild from the feed.
    static func expectNoDifferences(_ store: EventStore, _ url: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        for entry in ProjectionCatalog.all {
            let differences = try await Rebuilder.verify(store: store, conninfo: url, make: entry.make)
            #expect(differences.isEmpty, "\(entry.name): \(differences.count) differences, first \(differences.prefix(5))", sourceLocation: sourceLocation)
        }
    }

    /// The documents of `rm_<name>` as stored, (collection, key, text) ordered; records an issue
    /// for every text that is not already canonical JSON (the writers store canonical text, so a
    /// rebuilt table equals the live one byte for byte, not only as JSON values).
    static func documents(_ url: String, table: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String] {
        let rows = try await Blocking.run {
            try Connection(conninfo: url).query("SELECT collection, key, document::text FROM \(table) ORDER BY collection, key").rows.map { row in
                (key: try row.string(0) + "\u{1}" + row.string(1), text: try row.string(2))
            }
        }
        return try rows.map { row in
            let canonical = String(decoding: try JSONValue.parse(row.text).canonicalBytes(), as: UTF8.self)
            #expect(row.text == canonical, "\(table) \(row.key): the stored text is not canonical", sourceLocation: sourceLocation)
            return row.key + "\u{1}" + row.text
        }
    }

    /// Every stored event, in feed order.
    static func feed(_ store: EventStore) async throws -> [RecordedEvent] {
        var events: [RecordedEvent] = []
        var position = FeedPosition.start
        while true {
            let batch = try await store.readAll(after: position, limit: 5_000)
            events += batch
            guard let last = batch.last, batch.count == 5_000 else { return events }
            position = last.feedPosition
        }
    }

    /// The final status of each trip, from the workload's own events ("DELETED" for a deleted one,
    /// "" for one that never finished).
    static func finalStatuses(_ commands: [WorkloadCommand]) -> [String: String] {
        var statuses: [String: String] = [:]
        for event in commands.lazy.flatMap(\.events) where event.streamId.hasPrefix("trip:") {
            let tripId = String(event.streamId.split(separator: "/").last!)
            switch event.type {
            case Trip.Event.tripCompleted: statuses[tripId] = TripStatus.complete.rawValue
            case Trip.Event.tripCanceled: statuses[tripId] = TripStatus.canceled.rawValue
            case Trip.Event.tripDeleted: statuses[tripId] = "DELETED"
            case Trip.Event.tripCreated: statuses[tripId] = ""
            default: if statuses[tripId] == nil { statuses[tripId] = "" }
            }
        }
        return statuses
    }

    @Test func aRandomWorkloadOf200TripsAnd50VehiclesLeavesNoDifferenceBetweenLiveAndRebuiltModels() async throws {
        let commands = DomainWorkload(seed: 0x2026_0301, provider: Self.provider, vehicles: 50, trips: 200, start: Self.start, reportInterval: Self.reportInterval).commands()
        try await TestDatabase.withTestDatabase { url in
            let store = EventStore(.init(conninfo: url, listen: true))
            let runners = Self.startRunners(store, url)
            let count = try await Self.append(commands, to: store)
            try await Self.waitUntilApplied(runners, count)
            for runner in runners { await runner.stop() }
            try await Self.expectNoDifferences(store, url)

            // The live journey views equal the same events folded by a fresh, in-memory projection.
            let events = try await Self.feed(store)
            #expect(events.count == count)
            var projector = ReadModelProjector<JourneyViewProjection>()
            for event in events {
                guard case .success = EnvelopeDecoder.decode(event) else {
                    Issue.record("event \(event.globalPosition) of \(event.streamId) (\(event.type)) does not decode")
                    continue
                }
                projector.apply(event)
            }
            #expect(projector.undecodable == 0)
            let live = try await Blocking.run {
                var views: [String: JSONValue] = [:]
                for row in try Connection(conninfo: url).query("SELECT key, document::text FROM rm_journey WHERE collection = 'views'").rows {
                    views[try row.string(0)] = try JSONValue.parse(try row.string(1))
                }
                return views
            }
            let statuses = Self.finalStatuses(commands)
            #expect(statuses.count == 200)
            let deleted = statuses.filter { $0.value == "DELETED" }.map(\.key)
            #expect(!deleted.isEmpty, "the workload deletes trips")
            for tripId in deleted {
                #expect(live["providers/\(Self.provider)/trips/\(tripId)"] == nil, "deleted trip \(tripId) has no view")
            }
            for tripId in statuses.keys.sorted().enumerated().filter({ $0.offset % 20 == 0 }).map(\.element) where statuses[tripId] != "DELETED" {
                let folded = projector.model.view(provider: Self.provider, tripId: tripId)
                let stored = live["providers/\(Self.provider)/trips/\(tripId)"]
                #expect(folded != nil && stored != nil, "trip \(tripId) has a view")
                #expect(folded?.canonicalBytes() == stored?.canonicalBytes(), "trip \(tripId): live view differs from the in-memory fold")
            }
            let completed = statuses.filter { $0.value == TripStatus.complete.rawValue }.map(\.key)
            #expect(completed.count > 100)
            for tripId in completed {
                #expect(live["providers/\(Self.provider)/trips/\(tripId)"]?["tripStatus"]?.stringValue == "COMPLETE", "trip \(tripId)")
            }
            for (tripId, status) in statuses where status == TripStatus.canceled.rawValue {
                #expect(live["providers/\(Self.provider)/trips/\(tripId)"]?["tripStatus"]?.stringValue == "CANCELED", "trip \(tripId)")
            }
            await store.shutdown()
        }
    }

    @Test func aCrashMidBatchWithRealReadModelsStillConverges() async throws {
        let commands = DomainWorkload(seed: 0xC4A5, provider: Self.provider, vehicles: 8, trips: 25, start: Self.start, reportInterval: Self.reportInterval).commands()
        try await TestDatabase.withTestDatabase { url in
            let store = EventStore(.init(conninfo: url, listen: true))
            let batches = Mutex<[String: Int]>([:])
            let runners = Self.startRunners(store, url) { name in
                ProjectionRunner.Options(batchSize: 250) { connection in
                    let crash = batches.withLock { counts -> Bool in
                        counts[name, default: 0] += 1
                        return counts[name] == 3  // each projection's third batch dies after its writes, before COMMIT
                    }
                    if crash { try connection.query("SELECT pg_terminate_backend(pg_backend_pid())") }
                }
            }
            let count = try await Self.append(commands, to: store, commandsPerBatch: 40)
            try await Self.waitUntilApplied(runners, count)
            for runner in runners {
                #expect(runner.status.batchesAbandoned >= 1, "\(runner.name): the crash happened")
                await runner.stop()
            }
            try await Self.expectNoDifferences(store, url)
            await store.shutdown()
        }
    }

    @Test func runnersThatLetEveryIdleVehicleGoAndReadItBackLeaveNoDifferenceEvenAcrossACrash() async throws {
        let commands = DomainWorkload(seed: 0x1D1E, provider: Self.provider, vehicles: 30, trips: 80, start: Self.start, reportInterval: Self.reportInterval).commands()
        try await TestDatabase.withTestDatabase { url in
            let store = EventStore(.init(conninfo: url, listen: true))
            let batches = Mutex<[String: Int]>([:])
            // A limit of 0: after every batch each projection keeps only the vehicles linked to a trip.
            let runners = Self.startRunners(store, url) { name in
                ProjectionRunner.Options(batchSize: 60, beforeCommit: { connection in
                    let crash = batches.withLock { counts -> Bool in
                        counts[name, default: 0] += 1
                        return counts[name] == 5  // the fifth batch dies before COMMIT: the runner reloads and lets go again
                    }
                    if crash { try connection.query("SELECT pg_terminate_backend(pg_backend_pid())") }
                }, recordLimit: 0)
            }
            let count = try await Self.append(commands, to: store, commandsPerBatch: 20)
            try await Self.waitUntilApplied(runners, count)
            for runner in runners {
                let status = runner.status
                if [FleetResourceProjection.name, JourneyViewProjection.name, DriverFeedProjection.name].contains(runner.name) {
                    #expect(status.recordsLetGo > 0 && status.recordsRestored > 0, "\(runner.name): \(status.recordsLetGo) let go, \(status.recordsRestored) read back")
                }
                if runner.name == RouteAuditProjection.name {  // the finished trips' audits
                    #expect(status.recordsLetGo > 0, "\(runner.name): \(status.recordsLetGo) let go")
                }
                #expect(!status.recordLimitDisabled, "\(runner.name): \(status.lastError ?? "")")
                #expect(status.batchesAbandoned >= 1, "\(runner.name): the crash happened")
                await runner.stop()
            }
            try await Self.expectNoDifferences(store, url)
            await store.shutdown()
        }
    }

    @Test func runnersThatWriteBehindLeaveNoDifferenceEvenWhenTheyReadLetGoRecordsBackFromUnwrittenPagesAndCrash() async throws {
        let commands = DomainWorkload(seed: 0xB3D1, provider: Self.provider, vehicles: 30, trips: 80, start: Self.start, reportInterval: Self.reportInterval).commands()
        try await TestDatabase.withTestDatabase { url in
            let store = EventStore(.init(conninfo: url, listen: true))
            // Everything is in before the runners start, so they are behind and fold up to 300 events
            // (five pages) before each write; a limit of 0 lets every idle vehicle go after each page.
            let count = try await Self.append(commands, to: store, commandsPerBatch: 20)
            let writes = Mutex<[String: Int]>([:])
            let runners = Self.startRunners(store, url) { name in
                ProjectionRunner.Options(batchSize: 60, beforeCommit: { connection in
                    let crash = writes.withLock { counts -> Bool in
                        counts[name, default: 0] += 1
                        return counts[name] == 3  // the third write dies before COMMIT
                    }
                    if crash { try connection.query("SELECT pg_terminate_backend(pg_backend_pid())") }
                }, recordLimit: 0, writeBehind: .seconds(5), maximumPendingEvents: 300)
            }
            try await Self.waitUntilApplied(runners, count)
            for runner in runners {
                let status = runner.status
                if runner.name == FleetResourceProjection.name {
                    #expect(status.recordsRestoredUnwritten > 0, "\(runner.name): \(status.recordsRestoredUnwritten) read back from unwritten pages")
                }
                #expect(status.stages.events > status.stages.batches * 60, "\(runner.name): several pages per write")
                #expect(!status.recordLimitDisabled, "\(runner.name): \(status.lastError ?? "")")
                #expect(status.batchesAbandoned >= 1, "\(runner.name): the crash happened")
                await runner.stop()
            }
            try await Self.expectNoDifferences(store, url)
            await store.shutdown()
        }
    }

    @Test func rebuildOfEveryProjectionEqualsTheLiveModelsAndSwapsGeneration() async throws {
        let commands = DomainWorkload(seed: 0x5EB1, provider: Self.provider, vehicles: 10, trips: 40, start: Self.start, reportInterval: Self.reportInterval).commands()
        let split = commands.count * 2 / 3
        try await TestDatabase.withTestDatabase { url in
            let store = EventStore(.init(conninfo: url, listen: true))
            let runners = Self.startRunners(store, url)
            let first = try await Self.append(commands[..<split], to: store)
            try await Self.waitUntilApplied(runners, first)
            for entry in ProjectionCatalog.all {
                let table = "rm_" + entry.name
                let before = try await Self.documents(url, table: table)
                let report = try await Rebuilder.rebuild(store: store, conninfo: url, make: entry.make)
                #expect(report.events == first, "\(entry.name)")
                let after = try await Self.documents(url, table: table)
                #expect(before.count > 0 && after == before, "\(entry.name): the rebuilt table equals the live one, text for text")
                let generation = try await Blocking.run {
                    try Connection(conninfo: url).query("SELECT generation FROM projection_checkpoints WHERE name = $1", [entry.name]).first?.int64(0)
                }
                #expect(generation == 1, "\(entry.name): the rebuild swapped in a new generation")
            }
            // The live runners carry on from the swapped-in tables.
            let rest = try await Self.append(commands[split...], to: store)
            try await Self.waitUntilApplied(runners, first + rest)
            for runner in runners { await runner.stop() }
            try await Self.expectNoDifferences(store, url)
            await store.shutdown()
        }
    }
}
