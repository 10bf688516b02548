import EventStore
import Foundation
import JSON
import Postgres
import Projections
import ReadModels
import Synchronization
import Testing
import TestSupport

/// Counts events per stream: the smallest projector that shows whether every event was applied once.
struct StreamCountProjector: Projector {
    var counts: [String: (events: Int, lastVersion: Int64)] = [:]
    var changed: Set<String> = []
    var name: String { "test_counts" }

    mutating func load(_ documents: [DocumentChange]) {
        for document in documents {
            counts[document.key] = (Int(document.document?["events"]?.int64Value ?? 0), document.document?["lastVersion"]?.int64Value ?? 0)
        }
    }

    mutating func apply(_ event: RecordedEvent) {
        let current = counts[event.streamId] ?? (0, 0)
        counts[event.streamId] = (current.events + 1, event.streamVersion)
        changed.insert(event.streamId)
    }

    mutating func drainChanges() -> [DocumentChange] {
        defer { changed = [] }
        return changed.sorted().map { key in
            let value = counts[key]!
            return DocumentChange(collection: "counts", key: key,
                                  document: .object(JSONObject([("events", .number(JSONNumber(value.events))), ("lastVersion", .number(JSONNumber(value.lastVersion)))])))
        }
    }
}

func event() -> EventData { EventData(id: UUID(), type: "Counted", data: ["n": 1]) }

/// Creates the test projector's table next to the real ones.
func prepare(_ url: String) async throws {
    try await Blocking.run { try Connection(conninfo: url).execute("CREATE TABLE rm_test_counts (LIKE rm_journey INCLUDING ALL)") }
}

func storedCounts(_ url: String) async throws -> [String: Int64] {
    try await Blocking.run {
        var counts: [String: Int64] = [:]
        for row in try Connection(conninfo: url).query("SELECT key, (document::json->>'events')::bigint FROM rm_test_counts").rows {
            counts[try row.string(0)] = try row.int64(1)
        }
        return counts
    }
}

func checkpointEvents(_ url: String) async throws -> (applied: Int64, generation: Int64) {
    try await Blocking.run {
        guard let row = try Connection(conninfo: url).query("SELECT events_applied, generation FROM projection_checkpoints WHERE name = 'test_counts'").first else {
            return (0, 0)  // the runner has not loaded yet
        }
        return (try row.int64(0), try row.int64(1))
    }
}

func appendMany(_ store: EventStore, streams: Int, each: Int, prefix: String = "s") async throws {
    for round in 0..<each {
        for stream in 0..<streams {
            _ = try await store.append([event()], to: "test:\(prefix)\(stream)", expectedVersion: .exact(Int64(round)))
        }
    }
}

/// Appends `each` events to each of `streams` streams in one transaction (one `appendBatch`).
func appendInOneTransaction(_ store: EventStore, streams: Int, each: Int, prefix: String = "s") async throws {
    let appends = (0..<streams).map { stream in
        StreamAppend(streamId: "test:\(prefix)\(stream)", expectedVersion: .noStream, events: (0..<each).map { _ in event() })
    }
    for result in await store.appendBatch(appends) { _ = try result.get() }
}

/// Polls `condition` until it holds. The wait is long: runners read the feed only below the oldest
/// transaction of the whole shared test cluster, and under the full suite's load other tests'
/// transactions (a CREATE DATABASE, an import) have held every runner back for half a minute. A
/// wait that still runs out says which transactions were the oldest then.
func waitFor(_ what: String, seconds: Double = 90, _ condition: @Sendable () async throws -> Bool) async throws {
    let deadline = Date().addingTimeInterval(seconds)
    while try await !condition() {
        if Date() > deadline { throw TestSetupError("\(what) not reached within \(seconds) s; oldest transactions: \(await oldestTransactions())") }
        try await Task.sleep(for: .milliseconds(20))
    }
}

/// The three oldest transactions with an id on the test cluster (what bounds the feed's horizon).
func oldestTransactions() async -> String {
    guard let url = try? TestDatabase.adminURL() else { return "unknown" }
    let rows = try? await Blocking.run {
        try Connection(conninfo: url).query("""
            SELECT concat_ws(' ', datname, pid, state, round(extract(epoch FROM now() - xact_start)::numeric, 1) || ' s', left(query, 80))
            FROM pg_stat_activity WHERE backend_xid IS NOT NULL ORDER BY xact_start LIMIT 3
            """).rows.map { try $0.string(0) }
    }
    return rows.map { $0.isEmpty ? "none" : $0.joined(separator: "; ") } ?? "unknown"
}

@Suite(.timeLimit(.minutes(3))) struct ProjectionRunnerTests {
    @Test func theRunnerAppliesEveryEventOnceAndStoresDocumentsWithItsCheckpoint() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await prepare(url)
            let store = EventStore(.init(conninfo: url, listen: true))
            try await appendMany(store, streams: 3, each: 10)
            let runner = ProjectionRunner(store: store, conninfo: url, options: .init(batchSize: 7)) { StreamCountProjector() }
            runner.start()
            try await waitFor("30 events applied") { runner.status.eventsApplied == 30 }
            try await appendMany(store, streams: 3, each: 2, prefix: "late")
            try await waitFor("36 events applied") { runner.status.eventsApplied == 36 }
            #expect(try await storedCounts(url) == ["test:s0": 10, "test:s1": 10, "test:s2": 10, "test:late0": 2, "test:late1": 2, "test:late2": 2])
            #expect(try await checkpointEvents(url).applied == 36)
            #expect(runner.status.isOwner)
            await runner.stop()
            #expect(try await Rebuilder.verify(store: store, conninfo: url) { StreamCountProjector() }.isEmpty)
            await store.shutdown()
        }
    }

    @Test func aSettlingRunnerLetsEventsGatherAndAppliesThemTogether() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await prepare(url)
            let store = EventStore(.init(conninfo: url, listen: true))
            let runner = ProjectionRunner(store: store, conninfo: url, options: .init(settle: .seconds(2))) { StreamCountProjector() }
            runner.start()
            _ = try await store.append([event()], to: "test:first", expectedVersion: .noStream)
            try await waitFor("the first event applied") { runner.status.eventsApplied == 1 }
            let before = runner.status.stages.batches
            let appended = ContinuousClock.now
            try await appendMany(store, streams: 5, each: 1, prefix: "together")
            try await waitFor("the five later events applied") { runner.status.eventsApplied == 6 }
            let waited = ContinuousClock.now - appended
            // One batch; more when other tests' open transactions held the feed's horizon between
            // appends (the whole suite runs on one cluster, and some tests hold transactions open on
            // purpose): each hold that ends within the settle splits the events once. Seen: 3 in a
            // full `make test`. Without settling, each append would be a batch of its own.
            #expect(runner.status.stages.batches - before <= 3, "\(runner.status.stages.batches - before) batches for 5 events")
            #expect(waited >= .seconds(1), "applied after \(waited), before the settle ended")
            #expect(try await storedCounts(url).count == 6)
            await runner.stop()
            #expect(try await Rebuilder.verify(store: store, conninfo: url) { StreamCountProjector() }.isEmpty)
            await store.shutdown()
        }
    }

    @Test func aReaderWaitingForAPositionCutsASettlingRunnersWaitShort() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await prepare(url)
            let store = EventStore(.init(conninfo: url, listen: true))
            let runner = ProjectionRunner(store: store, conninfo: url, options: .init(settle: .seconds(120))) { StreamCountProjector() }
            runner.start()
            _ = try await store.append([event()], to: "test:first", expectedVersion: .noStream)
            try await waitFor("the first event applied") { runner.status.eventsApplied == 1 }
            let written = try await store.append([event()], to: "test:second", expectedVersion: .noStream)
            let position = try #require(written.feedPosition)
            let started = ContinuousClock.now
            #expect(await runner.waitUntilApplied(position, timeout: .seconds(30)))
            #expect(ContinuousClock.now - started < .seconds(30))
            #expect(runner.status.eventsApplied == 2)
            await runner.stop()
            await store.shutdown()
        }
    }

    @Test func ofTwoRunnersOnlyOneOwnsTheProjectionAndTheOtherTakesOverWhenItStops() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await prepare(url)
            let store = EventStore(.init(conninfo: url, listen: true))
            let options = ProjectionRunner.Options(batchSize: 5, standbyInterval: .milliseconds(100))
            let first = ProjectionRunner(store: store, conninfo: url, options: options) { StreamCountProjector() }
            let second = ProjectionRunner(store: store, conninfo: url, options: options) { StreamCountProjector() }
            first.start()
            second.start()
            try await appendMany(store, streams: 4, each: 5)
            try await waitFor("20 applied") { try await checkpointEvents(url).applied == 20 }
            #expect(first.status.isOwner != second.status.isOwner, "exactly one owner")
            let (owner, standby) = first.status.isOwner ? (first, second) : (second, first)
            await owner.stop()
            try await appendMany(store, streams: 4, each: 5, prefix: "after")
            try await waitFor("40 applied") { try await checkpointEvents(url).applied == 40 }
            #expect(standby.status.isOwner)
            let counts = try await storedCounts(url)
            #expect(counts.count == 8 && counts.values.allSatisfy { $0 == 5 }, "every event applied exactly once: \(counts)")
            await standby.stop()
            await store.shutdown()
        }
    }

    @Test func aCrashBetweenWritingTheReadModelAndCommittingLosesNothingAndDoublesNothing() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await prepare(url)
            let store = EventStore(.init(conninfo: url, listen: true))
            try await appendMany(store, streams: 2, each: 6)
            let crashes = Mutex(0)
            let options = ProjectionRunner.Options(batchSize: 4) { connection in
                let crash = crashes.withLock { count -> Bool in
                    count += 1
                    return count == 2  // the second batch dies after its writes, before COMMIT
                }
                if crash { try connection.query("SELECT pg_terminate_backend(pg_backend_pid())") }
            }
            let runner = ProjectionRunner(store: store, conninfo: url, options: options) { StreamCountProjector() }
            runner.start()
            try await waitFor("12 applied") { try await checkpointEvents(url).applied == 12 }
            #expect(runner.status.batchesAbandoned >= 1, "the crash happened")
            #expect(try await storedCounts(url) == ["test:s0": 6, "test:s1": 6])
            await runner.stop()
            #expect(try await Rebuilder.verify(store: store, conninfo: url) { StreamCountProjector() }.isEmpty)
            await store.shutdown()
        }
    }

    @Test func aRebuildSwapsInAFreshTableAndTheLiveRunnerCarriesOnFromIt() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await prepare(url)
            let store = EventStore(.init(conninfo: url, listen: true))
            try await appendMany(store, streams: 3, each: 4)
            let runner = ProjectionRunner(store: store, conninfo: url) { StreamCountProjector() }
            runner.start()
            try await waitFor("12 applied") { runner.status.eventsApplied == 12 }
            let report = try await Rebuilder.rebuild(store: store, conninfo: url) { StreamCountProjector() }
            #expect(report.events == 12 && report.documents == 3)
            #expect(try await checkpointEvents(url) == (12, 1))
            try await appendMany(store, streams: 3, each: 2, prefix: "after")
            try await waitFor("18 applied after the swap") { try await checkpointEvents(url).applied == 18 }
            #expect(try await storedCounts(url).values.reduce(0, +) == 18)
            await runner.stop()
            #expect(try await Rebuilder.verify(store: store, conninfo: url) { StreamCountProjector() }.isEmpty)
            await store.shutdown()
        }
    }

    @Test func aRebuiltTableKeepsTheStorageParametersCompressionAndDocumentTypeOfTheTableItReplaces() async throws {
        try await TestDatabase.withTestDatabase { url in
            let storage = { @Sendable (table: String) async throws -> [String] in
                try await Blocking.run {
                    let connection = try Connection(conninfo: url)
                    let options = try connection.query("SELECT array_to_string(reloptions, ',') FROM pg_class WHERE oid = $1::regclass", [table]).first?[0] ?? ""
                    let column = try connection.query("""
                        SELECT attcompression::text, format_type(atttypid, atttypmod) FROM pg_attribute
                        WHERE attrelid = $1::regclass AND attname = 'document'
                        """, [table]).first
                    return [options, column?[0] ?? "", column?[1] ?? ""]
                }
            }
            // The migrations give every read model table room for HOT updates, lz4 compression, and
            // documents stored as plain text (migration 13: nothing looks inside them).
            for table in ["rm_journey", "rm_fleet", "rm_route_audit", "rm_driver_feed"] {
                let (options, compression, type) = try await { let s = try await storage(table); return (s[0], s[1], s[2]) }()
                #expect(options.contains("fillfactor=70"), "\(table): \(options)")
                #expect(compression == "l", "\(table) compresses documents with lz4")
                #expect(type == "text", "\(table) stores documents as text")
            }
            let record = try await Blocking.run {
                try Connection(conninfo: url).query("""
                    SELECT attcompression::text, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'rm_fleet'::regclass AND attname = 'record'
                    """).first.map { [$0[0] ?? "", $0[1] ?? ""] }
            }
            #expect(record == ["l", "text"], "the fleet's records ride in their resources' rows as lz4-compressed text")
            try await prepare(url)
            try await Blocking.run { try Connection(conninfo: url).execute("ALTER TABLE rm_test_counts SET (fillfactor = 70, autovacuum_vacuum_threshold = 10000)") }
            let before = try await storage("rm_test_counts")
            let store = EventStore(.init(conninfo: url, listen: false))
            try await appendMany(store, streams: 2, each: 2)
            _ = try await Rebuilder.rebuild(store: store, conninfo: url) { StreamCountProjector() }
            #expect(try await storage("rm_test_counts") == before)
            #expect(before[0] == "fillfactor=70,autovacuum_vacuum_threshold=10000")
            await store.shutdown()
        }
    }

    @Test func verifyNamesEveryDocumentThatDiffersFromARebuild() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await prepare(url)
            let store = EventStore(.init(conninfo: url, listen: true))
            try await appendMany(store, streams: 2, each: 3)
            let runner = ProjectionRunner(store: store, conninfo: url) { StreamCountProjector() }
            runner.start()
            try await waitFor("6 applied") { runner.status.eventsApplied == 6 }
            await runner.stop()
            try await Blocking.run {
                let connection = try Connection(conninfo: url)
                try connection.execute(#"UPDATE rm_test_counts SET document = '{"events": 99, "lastVersion": 3}' WHERE key = 'test:s1'"#)
                try connection.execute(#"INSERT INTO rm_test_counts VALUES ('counts', 'test:ghost', '{"events": 1}')"#)
            }
            let differences = try await Rebuilder.verify(store: store, conninfo: url) { StreamCountProjector() }
            #expect(differences == ["rm_test_counts counts test:ghost: in the live model, not in the rebuild",
                                    "rm_test_counts counts test:s1: live and rebuilt documents differ"])
            await store.shutdown()
        }
    }
}

@Suite(.timeLimit(.minutes(2))) struct SkippedEventTests {
    @Test func anUndecodableTripEventIsCountedInTheRunnersStatusNotSilentlyDropped() async throws {
        try await TestDatabase.withTestDatabase { url in
            let store = EventStore(.init(conninfo: url, listen: true))
            _ = try await store.append([EventData(id: UUID(), type: "TripCreated", data: ["not": "a trip"])],
                                       to: "trip:acme/t-1", expectedVersion: .noStream)
            _ = try await store.append([EventData(id: UUID(), type: "SomethingElse", data: ["n": 1])],
                                       to: "other:acme/x", expectedVersion: .noStream)
            let runner = ProjectionRunner(store: store, conninfo: url) { ReadModelProjector<JourneyViewProjection>() }
            runner.start()
            try await waitFor("both events passed") { runner.status.eventsApplied == 2 }
            #expect(runner.status.skippedEvents == 1, "the malformed trip event is reported; the foreign stream is not one of ours")
            await runner.stop()
            await store.shutdown()
        }
    }

    @Test func aBatchThatReadARecordNotReadBackIsNotWrittenAndTheRunnerThenKeepsEveryRecord() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await prepare(url)
            let store = EventStore(.init(conninfo: url, listen: true))
            try await appendMany(store, streams: 2, each: 3)
            let runner = ProjectionRunner(store: store, conninfo: url, options: .init(recordLimit: 5)) { ForgetfulProjector() }
            runner.start()
            try await waitFor("6 events applied") { runner.status.eventsApplied == 6 }
            // The first load folded a batch with a record missing; it was refused, and the reload kept everything.
            #expect(runner.status.recordLimitDisabled)
            #expect(try await storedCounts(url) == ["test:s0": 3, "test:s1": 3])
            #expect(try await checkpointEvents(url).applied == 6)
            await runner.stop()
            await store.shutdown()
        }
    }

    @Test func aRunnerThatIsBehindWritesTheFoldedPagesOnceWithTheCheckpointOfTheLast() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await prepare(url)
            let store = EventStore(.init(conninfo: url, listen: true))
            // One transaction: the runner finds all twelve at once, in three full pages of four.
            try await appendInOneTransaction(store, streams: 2, each: 6)
            // A window far longer than folding three tiny pages takes even on a loaded machine (300 ms
            // was not, under the whole suite): the window's end writes all three at once.
            let runner = ProjectionRunner(store: store, conninfo: url, options: .init(batchSize: 4, writeBehind: .seconds(5))) { StreamCountProjector() }
            runner.start()
            try await waitFor("12 events applied") { runner.status.eventsApplied == 12 }
            #expect(runner.status.stages.batches == 1, "one write for the three pages")
            #expect(runner.status.stages.documentsWritten == 2, "each stream's document written once")
            #expect(try await storedCounts(url) == ["test:s0": 6, "test:s1": 6])
            #expect(try await checkpointEvents(url).applied == 12)
            await runner.stop()
            #expect(try await Rebuilder.verify(store: store, conninfo: url) { StreamCountProjector() }.isEmpty)
            await store.shutdown()
        }
    }

    @Test func foldedPagesAreWrittenWhenTooManyArePendingOrAReaderWaitsForThem() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await prepare(url)
            let store = EventStore(.init(conninfo: url, listen: true))
            try await appendInOneTransaction(store, streams: 2, each: 6)
            // The feed shows them once no older transaction of the shared cluster is still open.
            try await waitFor("the 12 events in the feed") { try await store.readAll(after: .start, limit: 100).count == 12 }
            let head = try #require(try await store.readAll(after: .start, limit: 100).last).feedPosition
            let options = ProjectionRunner.Options(batchSize: 4, writeBehind: .seconds(60), maximumPendingEvents: 8)
            let runner = ProjectionRunner(store: store, conninfo: url, options: options) { StreamCountProjector() }
            runner.start()
            // Eight events reach the bound and are written; the last four wait (a minute) for a reader.
            try await waitFor("8 events applied") { runner.status.eventsApplied == 8 }
            try await Task.sleep(for: .milliseconds(300))
            #expect(runner.status.eventsApplied == 8)
            let started = ContinuousClock.now
            #expect(await runner.waitUntilApplied(head, timeout: .seconds(30)))
            #expect(ContinuousClock.now - started < .seconds(20))
            #expect(runner.status.eventsApplied == 12 && runner.status.stages.batches == 2)
            #expect(try await storedCounts(url) == ["test:s0": 6, "test:s1": 6])
            await runner.stop()
            #expect(try await Rebuilder.verify(store: store, conninfo: url) { StreamCountProjector() }.isEmpty)
            await store.shutdown()
        }
    }

    @Test func aRunnerWithAMirrorHoldsWhatItFoldsForTheSnapshotIntervalAndWritesItOnceWhenAReaderWaits() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await prepare(url)
            let store = EventStore(.init(conninfo: url, listen: true))
            let mirror = DocumentMirror()
            // An interval no test run reaches: only a waiting reader has the documents written.
            let options = ProjectionRunner.Options(batchSize: 100, mirror: mirror, snapshotInterval: .seconds(600))
            let runner = ProjectionRunner(store: store, conninfo: url, options: options) { StreamCountProjector() }
            runner.start()
            try await waitFor("the runner owns the projection") { runner.status.isOwner }
            @Sendable func mirrored() -> Int64? { mirror.document("counts", "test:s0")??["events"]?.int64Value }

            try await appendInOneTransaction(store, streams: 1, each: 3)
            try await waitFor("3 events in the mirror") { mirrored() == 3 }
            let more = StreamAppend(streamId: "test:s0", expectedVersion: .any, events: [event(), event()])
            for result in await store.appendBatch([more]) { _ = try result.get() }
            try await waitFor("5 events in the mirror") { mirrored() == 5 }
            let head = try await store.head()
            #expect(runner.status.visible == head, "what the mirror answers for")
            #expect(await runner.waitUntilApplied(head, timeout: .seconds(30), written: false), "folded is enough for this wait")
            // Nothing is written while the runner keeps up and nobody waits for the table.
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await storedCounts(url).isEmpty)
            #expect(try await checkpointEvents(url).applied == 0)
            #expect(runner.status.checkpoint < head)

            #expect(await runner.waitUntilApplied(head, timeout: .seconds(30)), "a reader of the table has it written")
            #expect(try await storedCounts(url) == ["test:s0": 5])
            #expect(try await checkpointEvents(url).applied == 5)
            #expect(runner.status.stages.batches == 1 && runner.status.stages.documentsWritten == 1, "both appends' changes in one write, the document once")
            await runner.stop()
            #expect(try await Rebuilder.verify(store: store, conninfo: url) { StreamCountProjector() }.isEmpty)
            await store.shutdown()
        }
    }

    /// Appends `streams` streams of `each` events in one transaction to a runner with `options`,
    /// and waits, with no reader asking for a position, until the table holds them and the runner
    /// has published that write (what it shows is then what the table holds).
    func expectWrittenWithNoReaderAsking(_ options: ProjectionRunner.Options, streams: Int, each: Int) async throws {
        try await TestDatabase.withTestDatabase { url in
            try await prepare(url)
            let store = EventStore(.init(conninfo: url, listen: true))
            let runner = ProjectionRunner(store: store, conninfo: url, options: options) { StreamCountProjector() }
            runner.start()
            try await appendInOneTransaction(store, streams: streams, each: each)
            let expected = Dictionary(uniqueKeysWithValues: (0..<streams).map { ("test:s\($0)", Int64(each)) })
            try await waitFor("the documents in the table") { try await storedCounts(url) == expected }
            // The commit is visible in the table a moment before the runner publishes its checkpoint.
            try await waitFor("the write published") { runner.status.checkpoint == runner.status.visible }
            await runner.stop()
            await store.shutdown()
        }
    }

    @Test func aHeldSnapshotIsWrittenWhenItsIntervalEndsWithNoReaderAsking() async throws {
        let options = ProjectionRunner.Options(batchSize: 100, mirror: DocumentMirror(), snapshotInterval: .milliseconds(500))
        try await expectWrittenWithNoReaderAsking(options, streams: 2, each: 2)
    }

    @Test func heldDocumentsAreWrittenOnceTheyReachTheByteBoundWithNoReaderAsking() async throws {
        // Each count document is about 30 bytes: the first page's reaches the bound of 20.
        let options = ProjectionRunner.Options(batchSize: 100, mirror: DocumentMirror(), snapshotInterval: .seconds(600), maximumPendingBytes: 20)
        try await expectWrittenWithNoReaderAsking(options, streams: 1, each: 3)
    }

    @Test func aRunnerWithoutAMirrorWritesEveryPageWhateverTheSnapshotInterval() async throws {
        // Nobody could read what it folded before the write: the interval is for mirrored projections.
        let options = ProjectionRunner.Options(batchSize: 100, snapshotInterval: .seconds(600))
        try await expectWrittenWithNoReaderAsking(options, streams: 1, each: 3)
    }

    @Test func aCrashInAWriteOfSeveralPagesLosesNothingAndDoublesNothing() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await prepare(url)
            let store = EventStore(.init(conninfo: url, listen: true))
            try await appendInOneTransaction(store, streams: 2, each: 6)
            let crashes = Mutex(0)
            let options = ProjectionRunner.Options(batchSize: 4, beforeCommit: { connection in
                let crash = crashes.withLock { count -> Bool in
                    count += 1
                    return count == 1  // the first write, of all three pages, dies before COMMIT
                }
                if crash { try connection.query("SELECT pg_terminate_backend(pg_backend_pid())") }
            }, writeBehind: .milliseconds(200))
            let runner = ProjectionRunner(store: store, conninfo: url, options: options) { StreamCountProjector() }
            runner.start()
            try await waitFor("12 applied") { try await checkpointEvents(url).applied == 12 }
            #expect(runner.status.batchesAbandoned >= 1, "the crash happened")
            #expect(try await storedCounts(url) == ["test:s0": 6, "test:s1": 6])
            await runner.stop()
            #expect(try await Rebuilder.verify(store: store, conninfo: url) { StreamCountProjector() }.isEmpty)
            await store.shutdown()
        }
    }
}

/// Counts like `StreamCountProjector`, but while it has a record limit every batch claims it read a
/// record it had let go and did not get back: what a projection with a wrong `documentsNeeded` does.
struct ForgetfulProjector: Projector {
    var counter = StreamCountProjector()
    var recordLimit: Int?
    var name: String { counter.name }

    mutating func load(_ documents: [DocumentChange]) { counter.load(documents) }
    mutating func apply(_ event: RecordedEvent) { counter.apply(event) }
    mutating func drainChanges() -> [DocumentChange] { counter.drainChanges() }
    func takeUnrestoredReads() -> [String] { recordLimit == nil ? [] : ["test:s0"] }
}
