@testable import EventStore
import Foundation
import JSON
import Postgres
import Testing
import TestSupport
import Simulator

@Suite(.serialized, .timeLimit(.minutes(4))) struct FeedTests {
    /// One raw insert into `events`, as the store would write it (hash content is irrelevant to the feed).
    static let insertSQL = """
        INSERT INTO events (category, stream_id, stream_version, event_id, event_type, data, metadata, recorded_at, hash)
        SELECT 'trip', u.stream_id, u.version, u.event_id, 'Raw', '{}', '{}', now(), decode(repeat('00', 32), 'hex')
        FROM unnest($1::text[], $2::bigint[], $3::uuid[]) AS u(stream_id, version, event_id)
        """

    @Test func theFeedIsSortedByTheTransactionIdItselfNotByItsText() async throws {
        // A bare `ORDER BY txid` binds to an output column of that name before the table's column.
        // When the select list named `txid::text` so, pages were sorted as text ("100000" before
        // "99999") after a full scan: the plan had `Sort Key: ((events.txid)::text)`.
        try await TestDatabase.withTestDatabase { url in
            let store = makeStore(url)
            _ = try await store.append([event(), event()], to: "trip:f/a", expectedVersion: .any)
            let plan = try await Blocking.run {
                try Connection(conninfo: url).query("EXPLAIN (VERBOSE) " + EventStore.feedStatement.sql, ["0", "0", "100"]).rows.map { try $0.string(0) }
            }
            #expect(plan.contains { $0.contains("events") }, "\(plan)")
            #expect(!plan.contains { $0.contains("Sort Key") && $0.contains("::text") }, "\(plan)")
            await store.shutdown()
        }
    }

    @Test func theHeadIsTheLastCommittedEventFoundThroughTheFeedIndex() async throws {
        try await TestDatabase.withTestDatabase { url in
            let store = makeStore(url)
            #expect(try await store.head() == .start)
            _ = try await store.append([event(), event()], to: "trip:f/h1", expectedVersion: .any)
            let last = try await store.append([event()], to: "trip:f/h2", expectedVersion: .any)
            let stored = try await store.readStream("trip:f/h2")
            #expect(try await store.head() == stored.last?.feedPosition, "\(last)")
            let plan = try await Blocking.run {
                try Connection(conninfo: url).query("EXPLAIN (VERBOSE) " + EventStore.headSQL).rows.map { try $0.string(0) }
            }
            #expect(!plan.contains { $0.contains("Sort Key") && $0.contains("::text") }, "\(plan)")
            await store.shutdown()
        }
    }

    @Test func feedPagesCarryEveryColumnExactlyAsStreamReadsDo() async throws {
        // The feed page is a prepared statement with binary columns; stream reads use text columns.
        try await TestDatabase.withTestDatabase { url in
            let store = makeStore(url)
            for n in 0..<7 {
                _ = try await store.append([event("Started", ["n": .number(JSONNumber(n)), "s": "ü \"q\" \\ 🚗", "x": 52.4918280]),
                                            event("Ended", ["list": [1.5, nil, true, ["deep": []]]])],
                                           to: "trip:f/s\(n % 3)", expectedVersion: .any)
            }
            var feed: [RecordedEvent] = []
            for _ in 0..<3000 where feed.count < 14 {  // other tests' transactions hold the horizon back for a while
                feed = []
                var page = try await store.readAll(after: .start, limit: 4)
                while let last = page.last {
                    #expect(page.count <= 4)
                    feed += page
                    page = try await store.readAll(after: last.feedPosition, limit: 4)
                }
                if feed.count < 14 { try await Task.sleep(for: .milliseconds(10)) }
            }
            var streams: [RecordedEvent] = []
            for n in 0..<3 { streams += try await store.readStream("trip:f/s\(n)") }
            #expect(feed.count == 14)
            #expect(feed.map(\.feedPosition) == feed.map(\.feedPosition).sorted(), "pages continue where the last one ended")
            #expect(feed.sorted { $0.globalPosition < $1.globalPosition } == streams.sorted { $0.globalPosition < $1.globalPosition })
            #expect(feed.allSatisfy { $0.hash.count == 32 && $0.transactionId > 0 && $0.recordedAtMicros > 1_700_000_000_000_000 })
            await store.shutdown()
        }
    }

    @Test func anOpenTransactionHoldsBackLaterCommitsUntilItEnds() async throws {
        try await TestDatabase.withTestDatabase { url in
            let store = makeStore(url)
            let early = UUID(), late = UUID()
            try await Blocking.run {
                let first = try Connection(conninfo: url), second = try Connection(conninfo: url)
                try first.execute("BEGIN")
                try first.query(Self.insertSQL, ["{trip:f/a}", "{1}", "{\(early.uuidString)}"])
                // A second transaction starts later, writes and commits while the first is still open.
                try second.query(Self.insertSQL, ["{trip:f/b}", "{1}", "{\(late.uuidString)}"])
                let visible = try first.query("SELECT 1")  // keep the first open
                _ = visible
                let whileOpen = try Connection(conninfo: url).query("""
                    SELECT count(*) FROM events WHERE txid < pg_snapshot_xmin(pg_current_snapshot())
                    """).first!.int64(0)
                #expect(whileOpen == 0)
                try first.execute("COMMIT")
            }
            // Other tests' transactions share the cluster-wide horizon: wait until both are visible.
            var events: [RecordedEvent] = []
            for _ in 0..<3000 where events.count < 2 {  // up to about 30 s
                events = try await store.readAll(after: .start)
                if events.count < 2 { try await Task.sleep(for: .milliseconds(10)) }
            }
            #expect(events.map(\.id) == [early, late], "feed order is (txid, position): the earlier transaction first")
            await store.shutdown()
        }
    }

    @Test func feedWhileATransactionIsOpenReturnsNothingAboveItsHorizon() async throws {
        try await TestDatabase.withTestDatabase { url in
            let store = makeStore(url)
            let opened = Bag<Int>(), released = Bag<Int>()
            // The transaction stays open until the test has looked (not for a fixed time: on a
            // loaded machine the append and read could outlast any sleep).
            let blocker = Task.detached {
                try await Blocking.run {
                    let connection = try Connection(conninfo: url)
                    try connection.execute("BEGIN")
                    try connection.query(Self.insertSQL, ["{trip:f/open}", "{1}", "{\(UUID().uuidString)}"])
                    opened.add(1)
                    let deadline = Date().addingTimeInterval(60)
                    while released.count == 0 && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
                    try connection.execute("ROLLBACK")
                }
            }
            try await waitUntil("blocker opened") { opened.count == 1 }
            _ = try await store.append([event()], to: "trip:f/committed", expectedVersion: .any)
            let whileOpen = try await store.readAll(after: .start)
            released.add(1)
            #expect(whileOpen.isEmpty, "a commit newer than an open transaction must wait")
            try await blocker.value
            var after: [RecordedEvent] = []
            for _ in 0..<3000 where after.isEmpty {  // up to about 30 s
                after = try await store.readAll(after: .start)
                if after.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
            }
            #expect(after.map(\.streamId) == ["trip:f/committed"], "the rolled-back event never appears")
            await store.shutdown()
        }
    }

    @Test func lateCommittingWritersAreNeverSkippedByTheTailingReader() async throws {
        try await TestDatabase.withTestDatabase { url in
            let store = makeStore(url, listen: true)
            let committed = Bag<UUID>(), rolledBack = Bag<UUID>()
            let received = Bag<RecordedEvent>()
            let readerErrors = Bag<String>()
            let reader = Task {
                do {
                    for try await event in store.subscribe(after: .start, batchSize: 700) { received.add(event) }
                } catch {
                    readerErrors.add("\(error)")
                }
            }
            let rawWriters = 6, storeWriters = 2, perWriter = 2500
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<rawWriters {
                    group.addTask {
                        try await Blocking.run {
                            try Self.rawWriter(url: url, writer: writer, events: perWriter, committed: committed, rolledBack: rolledBack)
                        }
                    }
                }
                for writer in 0..<storeWriters {
                    group.addTask {
                        var random = SeededRandom(seed: UInt64(100 + writer))
                        var written = 0
                        while written < perWriter {
                            let count = min(perWriter - written, Int.random(in: 1...20, using: &random))
                            let events = (0..<count).map { _ in event("Stored") }
                            _ = try await store.append(events, to: "vehicle:feed/s\(writer)-\(written % 7)", expectedVersion: .any)
                            committed.add(contentsOf: events.map(\.id))
                            written += count
                        }
                    }
                }
                try await group.waitForAll()
            }
            let expected = committed.count
            #expect(expected == (rawWriters + storeWriters) * perWriter)
            try await waitUntil(seconds: 60, "reader caught up") { received.count >= expected || readerErrors.count > 0 }
            #expect(readerErrors.all.isEmpty)
            // The marker, appended after everything: the reader delivers in feed order, so anything
            // extra it would deliver comes before the marker does.
            let marker = event("Marker")
            _ = try await store.append([marker], to: "vehicle:feed/marker", expectedVersion: .noStream)
            try await waitUntil(seconds: 60, "the marker arrived") { received.all.contains { $0.id == marker.id } || readerErrors.count > 0 }
            reader.cancel()
            #expect(readerErrors.all.isEmpty)

            let events = received.all
            #expect(events.last?.id == marker.id, "the marker is the last event delivered")
            let ids = events.map(\.id).filter { $0 != marker.id }
            #expect(ids.count == expected, "every committed event exactly once: got \(ids.count) for \(expected)")
            #expect(Set(ids) == Set(committed.all))
            #expect(Set(ids).isDisjoint(with: Set(rolledBack.all)), "no event of a rolled-back transaction")
            #expect(rolledBack.count > 0, "the workload must include rollbacks to prove anything")
            var lastVersion: [String: Int64] = [:]
            var lastFeed = FeedPosition.start
            for (index, event) in events.enumerated() where index > 0 && event.feedPosition <= events[index - 1].feedPosition {
                let around = events[max(0, index - 3)..<min(events.count, index + 3)]
                    .map { "\($0.feedPosition) \($0.streamId) v\($0.streamVersion) \($0.id.uuidString.prefix(8))" }
                Issue.record("feed went backwards at \(index): \(around.joined(separator: " | "))")
            }
            for event in events {
                #expect(event.streamVersion > lastVersion[event.streamId, default: 0], "per-stream order in \(event.streamId)")
                lastVersion[event.streamId] = event.streamVersion
                #expect(event.feedPosition > lastFeed)
                lastFeed = event.feedPosition
            }
            await store.shutdown()
        }
    }

    /// Appends `events` events in transactions of random size and duration; ~15% roll back.
    static func rawWriter(url: String, writer: Int, events: Int, committed: Bag<UUID>, rolledBack: Bag<UUID>) throws {
        var random = SeededRandom(seed: UInt64(writer + 1))
        let connection = try Connection(conninfo: url)
        var versions: [String: Int64] = [:]
        var done = 0
        while done < events {
            let size = min(events - done, Int.random(in: 1...40, using: &random))
            var pending = versions
            var ids: [UUID] = []
            try connection.execute("BEGIN")
            var remaining = size
            while remaining > 0 {
                let chunk = min(remaining, Int.random(in: 1...15, using: &random))
                var streams: [String?] = [], numbers: [Int64] = [], chunkIds: [String?] = []
                for _ in 0..<chunk {
                    let stream = "trip:feed/w\(writer)-\(Int.random(in: 0..<5, using: &random))"
                    let version = pending[stream, default: 0] + 1
                    pending[stream] = version
                    let id = UUID()
                    ids.append(id)
                    streams.append(stream)
                    numbers.append(version)
                    chunkIds.append(id.uuidString)
                }
                try connection.query(insertSQL, [PostgresText.arrayLiteral(streams), PostgresText.arrayLiteral(numbers), PostgresText.arrayLiteral(chunkIds)])
                remaining -= chunk
                Thread.sleep(forTimeInterval: Double(Int.random(in: 0...3000, using: &random)) / 1_000_000)
            }
            if Int.random(in: 0..<100, using: &random) < 15 {
                try connection.execute("ROLLBACK")
                rolledBack.add(contentsOf: ids)
            } else {
                try connection.execute("COMMIT")
                versions = pending
                committed.add(contentsOf: ids)
                done += size
            }
        }
    }

    /// Positions of a page, to compare pages.
    static func positions(_ page: [RecordedEvent]) -> [FeedPosition] { page.map(\.feedPosition) }

    /// Reads the whole feed through `store` in pages of `size`, polling until `count` events are visible.
    static func readWhole(_ store: EventStore, count: Int, size: Int) async throws -> [RecordedEvent] {
        for _ in 0..<3000 {  // up to about 30 s: other tests' transactions hold the horizon back
            var all: [RecordedEvent] = []
            while true {
                let page = try await store.readAll(after: all.last?.feedPosition ?? .start, limit: size)
                all += page
                if page.count < size { break }
            }
            if all.count >= count { return all }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw StoreTestError("\(count) events not visible in the feed")
    }

    @Test func pagesFromTheCacheOfRecentEventsAreThePagesTheDatabaseGives() async throws {
        try await TestDatabase.withTestDatabase { url in
            let cached = EventStore(.init(conninfo: url, readPoolSize: 2, listen: false, feedCacheEvents: 40))
            let uncached = EventStore(.init(conninfo: url, readPoolSize: 2, listen: false, feedCacheEvents: 0))
            for round in 0..<12 {
                _ = await cached.appendBatch((0..<(round % 4 + 1)).map { index in
                    StreamAppend(streamId: "vehicle:acme/v-\(index)", expectedVersion: .any, events: [event(), event()])
                })
            }
            // 60 events; the cache keeps the latest 40 of what one reader read in pages of 7.
            let truth = try await Self.readWhole(uncached, count: 60, size: 1000)
            #expect(truth.count == 60)
            #expect(Self.positions(try await Self.readWhole(cached, count: 60, size: 7)) == Self.positions(truth))
            let hitsBefore = cached.feedCacheHits
            // Another reader, from every position and with every page size, gets what the database gives.
            for start in [FeedPosition.start] + truth.map(\.feedPosition) {
                for limit in [1, 3, 7, 25, 100] {
                    let page = try await cached.readAll(after: start, limit: limit)
                    let expected = try await uncached.readAll(after: start, limit: limit)
                    #expect(Self.positions(page) == Self.positions(expected), "after \(start), limit \(limit)")
                    #expect(page.map(\.id) == expected.map(\.id))
                }
            }
            #expect(cached.feedCacheHits > hitsBefore, "pages inside the cached run came from it")
            await cached.shutdown()
            await uncached.shutdown()
        }
    }

    @Test func readersOfTheSameCachedEventsShareWhatTheFirstDerivedFromThem() async throws {
        try await TestDatabase.withTestDatabase { url in
            let cached = EventStore(.init(conninfo: url, readPoolSize: 2, listen: false, feedCacheEvents: 100))
            let uncached = EventStore(.init(conninfo: url, readPoolSize: 2, listen: false, feedCacheEvents: 0))
            _ = try await cached.append([event(), event(), event()], to: "trip:acme/t-1", expectedVersion: .noStream)
            let first = try await Self.readWhole(cached, count: 3, size: 1000)
            let firstMemos = try first.map { try #require($0.memo, "events read from the feed carry a memo") }
            for (index, memo) in firstMemos.enumerated() { #expect(memo.value { index } == index) }
            // A second reader of the same events gets them from the cache, with what the first kept.
            let second = try await cached.readAll(after: .start, limit: 3)
            #expect(second == first, "a memo does not take part in an event's equality")
            #expect(second.map { $0.memo?.value { -1 } } == [0, 1, 2])
            // Events read apart from the cache share nothing (an empty memo makes the value, even
            // when it is asked for as an optional).
            let apart = try await uncached.readAll(after: .start, limit: 3)
            #expect(apart == first)
            #expect(apart.map { $0.memo?.value { -1 } } == [-1, -1, -1])
            await cached.shutdown()
            await uncached.shutdown()
        }
    }

    @Test func aPageThatRunsPastTheCachedEventsIsCompletedFromTheDatabase() async throws {
        try await TestDatabase.withTestDatabase { url in
            let cached = EventStore(.init(conninfo: url, readPoolSize: 2, listen: false, feedCacheEvents: 100))
            let uncached = EventStore(.init(conninfo: url, readPoolSize: 2, listen: false, feedCacheEvents: 0))
            for _ in 0..<5 { _ = try await cached.append([event(), event()], to: "trip:acme/t-1", expectedVersion: .any) }
            let first = try await Self.readWhole(cached, count: 10, size: 4)
            #expect(first.count == 10)
            for _ in 0..<5 { _ = try await cached.append([event()], to: "trip:acme/t-2", expectedVersion: .any) }
            _ = try await Self.readWhole(uncached, count: 15, size: 1000)
            // From the middle of the cached run, past its end: the cached events, then the new ones.
            let hitsBefore = cached.feedCacheHits
            let page = try await cached.readAll(after: first[3].feedPosition, limit: 1000)
            let expected = try await uncached.readAll(after: first[3].feedPosition, limit: 1000)
            #expect(page.count == 11)
            #expect(Self.positions(page) == Self.positions(expected))
            #expect(cached.feedCacheHits == hitsBefore + 1)
            // A page that ends inside the run is answered from it alone, and a short page still means "caught up".
            #expect(Self.positions(try await cached.readAll(after: first[0].feedPosition, limit: 5)) == Self.positions(Array(first[1...5])))
            #expect(try await cached.readAll(after: expected.last!.feedPosition, limit: 10).isEmpty)
            await cached.shutdown()
            await uncached.shutdown()
        }
    }

    @Test func oneDatabaseReadAfterAPositionIsInFlightAtATime() {
        let cache = FeedCache(capacity: 10)
        let after = FeedPosition(transactionId: 7, globalPosition: 3)
        #expect(cache.lead(after: after))
        #expect(!cache.lead(after: after), "one read after a position at a time")
        #expect(cache.lead(after: .start), "a read after another position is its own")
        cache.finish(after: .start, page: [])
        cache.finish(after: after, page: [])
        #expect(cache.lead(after: after), "a finished read leaves the position free")
        cache.finish(after: after, page: nil)
        #expect(cache.joinCount == 0)
    }

    @Test func aReaderJoiningAReadInFlightTopsUpItsShortPageWithWhatCommittedSince() async throws {
        try await TestDatabase.withTestDatabase { url in
            let store = EventStore(.init(conninfo: url, readPoolSize: 2, listen: false, feedCacheEvents: 100))
            let uncached = EventStore(.init(conninfo: url, readPoolSize: 2, listen: false, feedCacheEvents: 0))
            let feedCache = try #require(store.feedCache)
            for _ in 0..<3 { _ = try await uncached.append([event()], to: "trip:acme/t-1", expectedVersion: .any) }
            // What another reader's read, begun now, would get: the three events.
            let early = try await Self.readWhole(uncached, count: 3, size: 1000)
            #expect(feedCache.lead(after: .start))
            // Committed after that read took its snapshot, before the next reader asks.
            _ = try await uncached.append([event(), event()], to: "trip:acme/t-2", expectedVersion: .any)
            let truth = try await Self.readWhole(uncached, count: 5, size: 1000)
            let joiner = Task { try await store.readAll(after: .start, limit: 100) }
            try await waitUntil(seconds: 30, "the reader joins the read in flight") { store.feedReadsJoined == 1 }
            feedCache.finish(after: .start, page: early)
            let page = try await joiner.value
            // Not the joined page alone: that short page would say "caught up" without the two.
            #expect(Self.positions(page) == Self.positions(truth))
            #expect(page.map(\.id) == truth.map(\.id))

            // A joined page as long as the reader asked for is its answer; the page of a failed
            // read is not, and the reader reads for itself.
            #expect(feedCache.lead(after: .start))
            let short = Task { try await store.readAll(after: .start, limit: 2) }
            try await waitUntil(seconds: 30, "a second reader joins") { store.feedReadsJoined == 2 }
            feedCache.finish(after: .start, page: early)
            #expect(Self.positions(try await short.value) == Self.positions(Array(early.prefix(2))))
            let middle = truth[0].feedPosition
            #expect(feedCache.lead(after: middle))
            let failed = Task { try await store.readAll(after: middle, limit: 100) }
            try await waitUntil(seconds: 30, "a third reader joins") { store.feedReadsJoined == 3 }
            feedCache.finish(after: middle, page: nil)
            #expect(Self.positions(try await failed.value) == Self.positions(Array(truth.dropFirst())))
            await store.shutdown()
            await uncached.shutdown()
        }
    }

    @Test func aSubscriberWakesForAppendsMadeByAnotherStoreInstance() async throws {
        try await TestDatabase.withTestDatabase { url in
            let writer = makeStore(url, listen: false)
            let reader = makeStore(url, listen: true)
            let received = Bag<UUID>()
            let task = Task { for try await event in reader.subscribe(after: .start, pollInterval: .seconds(30)) { received.add(event.id) } }
            // The reader's listener connects on a thread of its own: wait until its LISTEN is in,
            // then until the subscriber has had a first event, so it is idle when the next comes.
            let listening = try await Blocking.run {
                let connection = try Connection(conninfo: url)
                let deadline = Date().addingTimeInterval(30)
                while Date() < deadline {
                    let count = try connection.query("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'")
                        .first?.int64(0) ?? 0
                    if count > 0 { return true }
                    Thread.sleep(forTimeInterval: 0.01)
                }
                return false
            }
            try #require(listening, "the reader's listener did not LISTEN within 30 s")
            let warmUp = event()
            _ = try await writer.append([warmUp], to: "trip:acme/t-0", expectedVersion: .any)
            try await waitUntil(seconds: 60, "the first event") { received.all.contains(warmUp.id) }
            let sent = event()
            _ = try await writer.append([sent], to: "trip:acme/t-1", expectedVersion: .any)
            // The poll interval is 30 s: arriving within 5 s proves the NOTIFY woke the reader.
            try await waitUntil(seconds: 5, "notified subscriber") { received.all.contains(sent.id) }
            task.cancel()
            await writer.shutdown()
            await reader.shutdown()
        }
    }
}
