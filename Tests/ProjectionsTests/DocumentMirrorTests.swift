import EventStore
import Foundation
import JSON
import Postgres
import Projections
import ReadModels
import Synchronization
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(3))) struct DocumentMirrorTests {
    @Test func theOwnersMirrorHoldsWhatTheTableHoldsOnceItsCheckpointIsPublished() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await prepare(url)
            let store = EventStore(.init(conninfo: url, listen: true))
            try await appendMany(store, streams: 3, each: 4)
            let mirror = DocumentMirror()
            #expect(mirror.document("counts", "test:s0") == nil, "invalid before the runner loads")
            let runner = ProjectionRunner(store: store, conninfo: url, options: .init(batchSize: 5, mirror: mirror)) { StreamCountProjector() }
            runner.start()
            try await waitFor("12 applied") { runner.status.eventsApplied == 12 }
            #expect(mirror.isValid)
            let appended = try await store.append([event()], to: "test:s0", expectedVersion: .exact(4))
            let position = try #require(appended.feedPosition)
            #expect(await runner.waitUntilApplied(position))
            // Right after the checkpoint says so, the mirror has the new state (read-your-writes).
            #expect(mirror.document("counts", "test:s0")??["events"]?.int64Value == 5)
            #expect(mirror.document("counts", "test:none") == .some(nil), "known absent")
            let stored = try await storedCounts(url)
            for (key, events) in stored {
                #expect(mirror.document("counts", key)??["events"]?.int64Value == events)
            }
            await runner.stop()
            #expect(!mirror.isValid, "a stopped runner's mirror must not be read")
            await store.shutdown()
        }
    }

    @Test func aStandbyRunnersMirrorStaysInvalidUntilItTakesOver() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await prepare(url)
            let store = EventStore(.init(conninfo: url, listen: true))
            try await appendMany(store, streams: 2, each: 3)
            let mirrors = [DocumentMirror(), DocumentMirror()]
            let runners = mirrors.map { mirror in
                ProjectionRunner(store: store, conninfo: url, options: .init(standbyInterval: .milliseconds(100), mirror: mirror)) { StreamCountProjector() }
            }
            for runner in runners { runner.start() }
            try await waitFor("6 applied") { try await checkpointEvents(url).applied == 6 }
            try await waitFor("one owner") { runners.contains { $0.status.isOwner } }
            let owner = runners[0].status.isOwner ? 0 : 1
            #expect(mirrors[owner].isValid)
            #expect(!mirrors[1 - owner].isValid)
            await runners[owner].stop()
            try await waitFor("the standby takes over") { mirrors[1 - owner].isValid }
            #expect(mirrors[1 - owner].document("counts", "test:s1")??["events"]?.int64Value == 3)
            await runners[1 - owner].stop()
            await store.shutdown()
        }
    }

    @Test func theMirrorHoldsABatchBeforeItCommitsAndAFailedCommitIsFoldedAgainToTheSameDocuments() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await prepare(url)
            let store = EventStore(.init(conninfo: url, listen: true))
            try await appendMany(store, streams: 1, each: 4)
            let mirror = DocumentMirror()
            // Per commit of a batch that holds s0's fifth event: what the mirror and the table held
            // just before COMMIT. The first such commit dies there.
            let seen = Mutex<[(mirrored: Int64?, stored: Int64?)]>([])
            let beforeCommit: @Sendable (Connection) throws -> Void = { connection in
                let mirrored = mirror.document("counts", "test:s0")??["events"]?.int64Value
                guard mirrored == 5 else { return }
                let stored = try Connection(conninfo: url).query("SELECT (document::json->>'events')::bigint FROM rm_test_counts WHERE key = 'test:s0'")
                    .first.map { try $0.int64(0) }
                let first = seen.withLock { seen in
                    seen.append((mirrored, stored))
                    return seen.count == 1
                }
                if first { try connection.query("SELECT pg_terminate_backend(pg_backend_pid())") }
            }
            let runner = ProjectionRunner(store: store, conninfo: url, options: .init(batchSize: 5, beforeCommit: beforeCommit, mirror: mirror)) {
                StreamCountProjector()
            }
            runner.start()
            try await waitFor("4 applied") { runner.status.eventsApplied == 4 }
            let appended = try await store.append([event()], to: "test:s0", expectedVersion: .exact(4))
            let position = try #require(appended.feedPosition)
            let applied = await runner.waitUntilApplied(position, timeout: .seconds(90))
            let holders = applied ? "" : await oldestTransactions()
            #expect(applied, "oldest transactions: \(holders)")
            let commits = seen.withLock { $0 }
            #expect(commits.count == 2, "one commit died, the batch was folded again and committed")
            for commit in commits {
                #expect(commit.mirrored == 5 && commit.stored == 4, "the mirror had the batch before its commit, the table did not")
            }
            #expect(runner.status.batchesAbandoned == 1)
            #expect(try await storedCounts(url)["test:s0"] == 5)
            #expect(mirror.document("counts", "test:s0")??["events"]?.int64Value == 5)
            await runner.stop()
            await store.shutdown()
        }
    }

    @Test func theMirrorHoldsEachBatchsDocumentsAsTheCanonicalTextTheTableStores() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await prepare(url)
            let store = EventStore(.init(conninfo: url, listen: true))
            try await appendMany(store, streams: 2, each: 3)
            let mirror = DocumentMirror()
            let runner = ProjectionRunner(store: store, conninfo: url, options: .init(batchSize: 2, mirror: mirror)) { UnsortedCountProjector() }
            runner.start()
            try await waitFor("6 applied") { runner.status.eventsApplied == 6 }
            let stored = try await Blocking.run {
                try Connection(conninfo: url).query("SELECT key, document FROM rm_test_counts ORDER BY key").rows.map { (try $0.string(0), try $0.string(1)) }
            }
            #expect(stored.map(\.0) == ["test:s0", "test:s1"])
            for (key, text) in stored {
                #expect(text == #"{"alpha":3,"zulu":1.5}"#, "stored canonical: members sorted, the number's canonical lexeme")
                #expect(mirror.documentBytes("counts", key) == .some(.some(Array(text.utf8))), "the mirror holds the stored bytes, not a re-encoding of its own")
            }
            await runner.stop()
            await store.shutdown()
        }
    }
}

/// `StreamCountProjector`'s counts in documents whose members are out of key order and whose number
/// is not in its canonical form: only the canonical encoding puts them as the table stores them.
private struct UnsortedCountProjector: Projector {
    var counts = StreamCountProjector()
    var name: String { counts.name }
    mutating func load(_ documents: [DocumentChange]) {
        counts.load(documents.map { DocumentChange(collection: $0.collection, key: $0.key, document: ["events": $0.document?["alpha"] ?? 0]) })
    }
    mutating func apply(_ event: RecordedEvent) { counts.apply(event) }
    mutating func drainChanges() -> [DocumentChange] {
        counts.drainChanges().map { change in
            let events = change.document?["events"]?.int64Value ?? 0
            return DocumentChange(collection: change.collection, key: change.key, document: try! JSONValue.parse(#"{"zulu":1.50,"alpha":\#(events)}"#))
        }
    }
}
