import EventStore
import Foundation
import JSON
import Postgres
import Signing
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2))) struct AuditRootsTests {
    let key = Array("audit-test-key".utf8)

    /// Appends `count` events to `streams` round-robin, one append each.
    private func append(_ store: EventStore, count: Int, streams: [String]) async throws {
        for index in 0..<count {
            _ = try await store.append([event("ThingHappened", ["n": .number(JSONNumber(index))])], to: streams[index % streams.count], expectedVersion: .any)
        }
    }

    /// Waits until every stored event sits below the cluster's xmin horizon (other tests' open
    /// transactions hold it back), so the roots written next cover all of them.
    private func waitForHorizon(_ url: String) async throws {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let settled = try await Blocking.run {
                try Connection(conninfo: url).query("SELECT NOT EXISTS (SELECT 1 FROM events WHERE txid >= pg_snapshot_xmin(pg_current_snapshot()))").first?.bool(0) ?? false
            }
            if settled { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw StoreTestError("events did not fall below the xmin horizon within 60 s")
    }

    /// Writes roots until none is due (forcing the last partial one when `force`).
    private func writeRoots(_ url: String, every: Int, force: Bool) async throws -> [AuditRoot] {
        let key = self.key
        return try await Blocking.run {
            let connection = try Connection(conninfo: url)
            var written: [AuditRoot] = []
            while let root = try AuditRoots.appendNext(on: connection, key: key, every: every, force: force) { written.append(root) }
            return written
        }
    }

    private func verify(_ url: String, key: [UInt8]) async throws -> AuditRoots.RootVerification {
        try await Blocking.run { try AuditRoots.verify(on: try Connection(conninfo: url), key: key) }
    }

    @Test func rootsCoverTheFeedInFixedRangesChainedToEachOtherAndVerify() async throws {
        try await TestDatabase.withTestDatabase { url in
            let store = makeStore(url)
            try await append(store, count: 23, streams: ["trip:acme/t-1", "vehicle:acme/v-1", "trip:acme/t-2"])
            try await waitForHorizon(url)
            let full = try await writeRoots(url, every: 10, force: false)
            #expect(full.map(\.eventCount) == [10, 10])
            let rest = try await writeRoots(url, every: 10, force: true)
            #expect(rest.map(\.eventCount) == [3])
            let roots = full + rest
            try #require(roots.map(\.number) == [1, 2, 3])
            #expect(roots[0].previousRoot == AuditRoots.genesis)
            #expect(roots[1].previousRoot == roots[0].root && roots[2].previousRoot == roots[1].root)
            // The root is the documented HMAC over the range's hashes in feed order.
            let events = try await store.readAll(after: .start, limit: 100)
            #expect(events.count == 23)
            let expected = AuditRoots.compute(key: key, previous: AuditRoots.genesis, number: 1, last: events[9].feedPosition, hashes: events.prefix(10).map(\.hash))
            #expect(roots[0].root == expected && roots[0].first == events[0].feedPosition && roots[0].last == events[9].feedPosition)
            let verified = try await verify(url, key: key)
            #expect(verified.roots == 3 && verified.breaks.isEmpty, "\(verified.breaks)")
            // Nothing new: no further root, even forced.
            #expect(try await writeRoots(url, every: 10, force: true).isEmpty)
            await store.shutdown()
        }
    }

    @Test func anEditedDeletedOrReorderedEventBreaksTheRootCoveringIt() async throws {
        try await TestDatabase.withTestDatabase { url in
            let store = makeStore(url)
            try await append(store, count: 30, streams: ["trip:acme/t-1", "vehicle:acme/v-1"])
            try await waitForHorizon(url)
            #expect(try await writeRoots(url, every: 10, force: false).count == 3)
            let events = try await store.readAll(after: .start, limit: 100)
            try await Blocking.run {
                let superuser = try Connection(conninfo: url)
                try superuser.execute("SET session_replication_role = replica")
                // Root 1: an event's hash rewritten (as a tamperer re-hashing an edit would).
                try superuser.query("UPDATE events SET hash = sha256(hash) WHERE global_position = $1", [String(events[4].globalPosition)])
                // Root 2: an event deleted.
                try superuser.query("DELETE FROM events WHERE global_position = $1", [String(events[15].globalPosition)])
                // Root 3: two events' feed places swapped (transaction id and position).
                try superuser.query("""
                    UPDATE events e SET txid = o.txid, global_position = o.global_position FROM events o
                    WHERE (e.global_position = $1 AND o.global_position = $2) OR (e.global_position = $2 AND o.global_position = $1)
                    """, [String(events[21].globalPosition), String(events[22].globalPosition)])
            }
            let verified = try await verify(url, key: key)
            try #require(verified.breaks.map(\.number) == [1, 2, 3], "\(verified.breaks)")
            #expect(verified.breaks[1].description.contains("range no longer matches") && verified.breaks[1].description.contains("the range now holds 9 events"),
                    "\(verified.breaks[1])")
            await store.shutdown()
        }
    }

    @Test func rootsCheckedWithAnotherKeyAllFail() async throws {
        try await TestDatabase.withTestDatabase { url in
            let store = makeStore(url)
            try await append(store, count: 4, streams: ["trip:acme/t-1"])
            try await waitForHorizon(url)
            #expect(try await writeRoots(url, every: 2, force: false).count == 2)
            let verified = try await verify(url, key: Array("another key".utf8))
            #expect(verified.roots == 2 && verified.breaks.count == 2)
            await store.shutdown()
        }
    }

    @Test func theServerRoleMayAppendRootsButNeverChangeThem() async throws {
        try await TestDatabase.withTestDatabase { url in
            let store = makeStore(url)
            try await append(store, count: 2, streams: ["trip:acme/t-1"])
            try await waitForHorizon(url)
            let key = self.key
            try await Blocking.run {
                let app = try Connection(conninfo: url, setupStatements: ["SET ROLE waymark_app"])
                #expect(try AuditRoots.appendNext(on: app, key: key, every: 2, force: false)?.number == 1)
                for sql in ["UPDATE audit_roots SET event_count = 3", "DELETE FROM audit_roots", "INSERT INTO audit_anchors VALUES ('x', 1, sha256('x'), now())"] {
                    #expect(throws: PostgresError.self, "\(sql) must be refused") { try app.execute(sql) }
                }
                let owner = try Connection(conninfo: url)
                #expect(throws: PostgresError.self) { try owner.execute("UPDATE audit_roots SET event_count = 3") }
            }
            await store.shutdown()
        }
    }

    @Test func rootsFollowTheNumericTransactionOrderAcrossADigitBoundary() async throws {
        try await TestDatabase.withTestDatabase { url in
            // Transaction ids 9 and 10 (as text, "10" sorts before "9"): only the hash matters to a root.
            try await Blocking.run {
                try Connection(conninfo: url).execute("""
                    INSERT INTO events (txid, global_position, category, stream_id, stream_version, event_id, event_type, data, metadata, recorded_at, hash)
                    VALUES ('10', 2, 'trip', 'trip:x/b', 1, gen_random_uuid(), 'T', '{}', '{}', now(), sha256('b')),
                           ('9', 1, 'trip', 'trip:x/a', 1, gen_random_uuid(), 'T', '{}', '{}', now(), sha256('a'))
                    """)
            }
            let roots = try await writeRoots(url, every: 1, force: false)
            #expect(roots.map(\.last) == [FeedPosition(transactionId: 9, globalPosition: 1), FeedPosition(transactionId: 10, globalPosition: 2)])
            let verified = try await verify(url, key: key)
            #expect(verified.roots == 2 && verified.breaks.isEmpty, "\(verified.breaks)")
        }
    }
}
