import EventStore
import Foundation
import Postgres
import Synchronization
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(3))) struct FeedFollowerTests {
    @Test func ofTwoFollowersOneOwnsAndTheOtherTakesOverWhenTheOwnerStops() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await createTables(url)
            let store = makeStore(url, listen: true)
            let first = follower(store, url), second = follower(store, url)
            record(first, as: "first")
            record(second, as: "second")
            try await appendEvents(store, 10, stream: "test:before")
            try await eventually("10 events handled") { try await handledCount(url) == 10 }
            #expect(first.status.isOwner != second.status.isOwner, "exactly one owner")
            let (owner, standby, standbyLabel) = first.status.isOwner ? (first, second, "second") : (second, first, "first")
            await owner.stop()
            let after = try await appendEvents(store, 10, stream: "test:after")
            try await eventually("20 events handled") { try await handledCount(url) == 20 }
            #expect(standby.status.isOwner)
            let handled = try await handledEvents(url)
            #expect(handled.values.allSatisfy { $0.count == 1 }, "every event handled exactly once: \(handled)")
            #expect(Set(after.map { handled[$0]?.first }) == [standbyLabel], "the events after the hand-over went to the standby")
            await standby.stop()
            await store.shutdown()
        }
    }

    @Test func aRestartedFollowerResumesFromItsStoredCheckpoint() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await createTables(url)
            let store = makeStore(url, listen: true)
            let before = follower(store, url)
            record(before, as: "before")
            try await appendEvents(store, 7, stream: "test:before")
            try await eventually("7 events handled") { try await handledCount(url) == 7 }
            await before.stop()
            let later = try await appendEvents(store, 4, stream: "test:later")
            let restarted = follower(store, url)
            record(restarted, as: "restarted")
            try await eventually("11 events handled") { try await handledCount(url) == 11 }
            let handled = try await handledEvents(url)
            #expect(handled.values.allSatisfy { $0.count == 1 }, "nothing handled twice: \(handled)")
            #expect(Set(handled.filter { $0.value == ["restarted"] }.keys) == Set(later), "the restarted follower handled only what came after")
            try await waitUntil("the checkpoint published") { restarted.status.checkpoint.globalPosition > before.status.checkpoint.globalPosition }
            await restarted.stop()
            await store.shutdown()
        }
    }

    @Test func aFailedBatchIsRecordedAndRetriedFromTheStoredCheckpoint() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await createTables(url)
            let store = makeStore(url, listen: true)
            let failing = Mutex(true)
            let subject = follower(store, url)
            record(subject, as: "subject", failing: { failing.withLock { $0 } })
            try await appendEvents(store, 5, stream: "test:failing")
            try await waitUntil(seconds: 60, "the failure recorded") { subject.status.lastError?.contains("failed on purpose") == true }
            #expect(try await handledCount(url) == 0)
            failing.withLock { $0 = false }
            try await eventually("5 events handled after the retry") { try await handledCount(url) == 5 }
            let handled = try await handledEvents(url)
            #expect(handled.values.allSatisfy { $0.count == 1 }, "nothing handled twice: \(handled)")
            try await waitUntil("the error cleared by the commit") { subject.status.lastError == nil }
            #expect(subject.status.isOwner)
            await subject.stop()
            await store.shutdown()
        }
    }
}

private func follower(_ store: EventStore, _ url: String) -> FeedFollower {
    FeedFollower(store: store, conninfo: url, setupStatements: [],
                 options: .init(name: "test", lockNamespace: 0x5446, connectionName: "follower-test", standbyInterval: .milliseconds(100),
                                retryDelay: .milliseconds(100)))
}

/// Follows the feed, storing each handled event with the checkpoint in one transaction, in
/// batches of 3; a batch throws while `failing` says so.
private func record(_ follower: FeedFollower, as label: String, failing: (@Sendable () -> Bool)? = nil) {
    follower.start { owner in
        let checkpoint = try await owner.withConnection { connection -> FeedPosition in
            try connection.query("INSERT INTO follower_test_checkpoint (name) VALUES ('test') ON CONFLICT DO NOTHING")
            let row = try connection.query("SELECT transaction_id, global_position FROM follower_test_checkpoint WHERE name = 'test'").first!
            return FeedPosition(transactionId: try row.uint64(0), globalPosition: try row.int64(1))
        }
        follower.loaded(checkpoint)
        try await owner.follow(after: checkpoint, batchSize: 3) { batch in
            if failing?() == true { throw StoreTestError("the batch failed on purpose") }
            let last = batch.last!.feedPosition
            let ids = batch.map { $0.id.uuidString.lowercased() }
            try await owner.withSession(orThrow: { StoreTestError("the session changed") }) { connection in
                try connection.withTransaction { connection in
                    for id in ids { try connection.query("INSERT INTO follower_test_handled (event_id, follower) VALUES ($1::uuid, $2)", [id, label]) }
                    try connection.query("UPDATE follower_test_checkpoint SET transaction_id = $1::bigint, global_position = $2::bigint WHERE name = 'test'",
                                         [String(last.transactionId), String(last.globalPosition)])
                }
            }
            follower.committed(last)
            return true
        }
    }
}

private func createTables(_ url: String) async throws {
    try await Blocking.run {
        let connection = try Connection(conninfo: url)
        try connection.execute("""
            CREATE TABLE follower_test_checkpoint (name text PRIMARY KEY, transaction_id bigint NOT NULL DEFAULT 0, global_position bigint NOT NULL DEFAULT 0);
            CREATE TABLE follower_test_handled (event_id uuid NOT NULL, follower text NOT NULL)
            """)
    }
}

/// Appends `count` events to `stream`, one transaction each; their ids, lowercased.
@discardableResult
private func appendEvents(_ store: EventStore, _ count: Int, stream: String) async throws -> [String] {
    var ids: [String] = []
    for version in 0..<count {
        let appended = event()
        _ = try await store.append([appended], to: stream, expectedVersion: .exact(Int64(version)))
        ids.append(appended.id.uuidString.lowercased())
    }
    return ids
}

private func handledCount(_ url: String) async throws -> Int {
    try await Blocking.run { Int(try Connection(conninfo: url).query("SELECT count(*) FROM follower_test_handled").first?.int64(0) ?? 0) }
}

/// Polls `condition` every 20 ms for up to `seconds` (long: the feed reads only below the oldest
/// transaction of the whole shared test cluster).
private func eventually(_ what: String, seconds: Double = 60, _ condition: @Sendable () async throws -> Bool) async throws {
    let deadline = Date().addingTimeInterval(seconds)
    while try await !condition() {
        if Date() > deadline { throw StoreTestError("\(what) not reached within \(seconds) s") }
        try await Task.sleep(for: .milliseconds(20))
    }
}

/// Each handled event's id, with the followers that handled it.
private func handledEvents(_ url: String) async throws -> [String: [String]] {
    try await Blocking.run {
        var handled: [String: [String]] = [:]
        for row in try Connection(conninfo: url).query("SELECT event_id::text, follower FROM follower_test_handled").rows {
            handled[try row.string(0), default: []].append(try row.string(1))
        }
        return handled
    }
}
