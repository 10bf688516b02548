import Foundation
import JSON
import Postgres

/// The append-only event log on PostgreSQL: append with optimistic concurrency and idempotency,
/// read streams, and tail one global feed in a gap-safe order.
///
/// Appends go through group commit (`AppendCommitter`); reads use a pool of their own. The store
/// knows nothing of trips or vehicles: streams are ids, events are typed JSON.
package final class EventStore: Sendable {
    /// How the store connects and batches.
    package struct Configuration: Sendable {
        package var conninfo: String
        /// Statements run on every new connection, e.g. `SET ROLE waymark_app`.
        package var setupStatements: [String]
        package var readPoolSize: Int
        package var committers: Int
        package var maxGroupEvents: Int
        /// LISTEN for other processes' appends (a single-process test may turn it off).
        package var listen: Bool
        package var notifyChannel: String
        /// How many of the latest feed events read are kept for this process's other readers
        /// (`FeedCache`); 0 turns the cache off.
        package var feedCacheEvents: Int
        /// Wall clock in microseconds since the Unix epoch; injectable for tests.
        package var clock: @Sendable () -> Int64

        package init(conninfo: String, setupStatements: [String] = [], readPoolSize: Int = 4, committers: Int = 2,
                     maxGroupEvents: Int = 5000, listen: Bool = true, notifyChannel: String = "waymark_events",
                     feedCacheEvents: Int = 4096, clock: @escaping @Sendable () -> Int64 = MonotonicMicros.wallClock) {
            self.conninfo = conninfo
            self.setupStatements = setupStatements
            self.readPoolSize = readPoolSize
            self.committers = committers
            self.maxGroupEvents = maxGroupEvents
            self.listen = listen
            self.notifyChannel = notifyChannel
            self.feedCacheEvents = feedCacheEvents
            self.clock = clock
        }
    }

    package let configuration: Configuration
    package let pool: ConnectionPool
    package let signal: FeedSignal
    private let committer: AppendCommitter
    private let listener: NotificationListener?
    /// Internal, not private: tests stand in for a reader whose read is in flight.
    let feedCache: FeedCache?

    package init(_ configuration: Configuration) {
        self.configuration = configuration
        let signal = FeedSignal()
        self.signal = signal
        self.pool = ConnectionPool(.init(conninfo: configuration.conninfo, size: configuration.readPoolSize,
                                         setupStatements: configuration.setupStatements, name: "store-read"))
        self.committer = AppendCommitter(
            settings: .init(conninfo: configuration.conninfo, setupStatements: configuration.setupStatements,
                            committers: configuration.committers, maxGroupEvents: configuration.maxGroupEvents,
                            notifyChannel: configuration.notifyChannel, clock: configuration.clock),
            onCommit: { signal.notify() })
        self.listener = configuration.listen
            ? NotificationListener(conninfo: configuration.conninfo, channels: [configuration.notifyChannel]) { _ in signal.notify() }
            : nil
        self.feedCache = configuration.feedCacheEvents > 0 ? FeedCache(capacity: configuration.feedCacheEvents) : nil
    }

    /// Stops the committers (after committing what is queued), the listener and the read pool.
    package func shutdown() async {
        await committer.shutdown()
        await listener?.stop()
        await pool.shutdown()
    }

    // MARK: - Appending

    /// How the committers have been writing (fast path, locking path, retries).
    package var appendStatistics: AppendStatistics.Snapshot { committer.statistics.snapshot }
    /// The most recent append groups that took `AppendStatistics.slowGroupMicros` or more.
    package var slowAppendGroups: [AppendStatistics.SlowGroup] { committer.statistics.slowGroups }

    /// Appends `events` to `stream` if its version matches `expectedVersion`; durable when this returns.
    package func append(_ events: [EventData], to stream: String, expectedVersion: ExpectedVersion) async throws(EventStoreError) -> AppendResult {
        let results = await committer.submit([StreamAppend(streamId: stream, expectedVersion: expectedVersion, events: events)])
        return try results[0].get()
    }

    /// Appends to many streams in one transaction; each append succeeds or fails on its own
    /// (a version conflict in one never fails the others). Results are in request order.
    package func appendBatch(_ appends: [StreamAppend]) async -> [Result<AppendResult, EventStoreError>] {
        guard !appends.isEmpty else { return [] }
        return await committer.submit(appends)
    }

    // MARK: - Reading

    /// The columns `decode` reads, by position.
    ///
    /// The text of `txid` is named `txid_text`: output column names take precedence over table
    /// columns in a bare `ORDER BY`, so naming it `txid` made `ORDER BY txid` sort the feed by the
    /// text (`"100000" < "99999"`), with a full scan and sort of the table for every page.
    static let columns = """
        global_position, txid::text AS txid_text, stream_id, stream_version, event_id, event_type, data::text, metadata::text, \
        (extract(epoch FROM recorded_at) * 1000000)::bigint, hash
        """

    /// Events of `stream` from `version` on (ascending), at most `limit`.
    package func readStream(_ stream: String, from version: Int64 = 1, limit: Int = 1000) async throws(EventStoreError) -> [RecordedEvent] {
        try await read("read stream \(stream)", """
            SELECT \(Self.columns) FROM events
            WHERE category = $1 AND stream_id = $2 AND stream_version >= $3
            ORDER BY stream_version LIMIT $4
            """, [PreparedAppend.category(of: stream), stream, String(version), String(limit)])
    }

    /// Events of `stream` from `version` (default: the last) backwards, at most `limit`.
    package func readStreamBackwards(_ stream: String, from version: Int64 = .max, limit: Int = 1000) async throws(EventStoreError) -> [RecordedEvent] {
        try await read("read stream \(stream) backwards", """
            SELECT \(Self.columns) FROM events
            WHERE category = $1 AND stream_id = $2 AND stream_version <= $3
            ORDER BY stream_version DESC LIMIT $4
            """, [PreparedAppend.category(of: stream), stream, String(version), String(limit)])
    }

    /// The current version of `stream`, 0 when it does not exist.
    package func streamVersion(_ stream: String) async throws(EventStoreError) -> Int64 {
        do {
            let result = try await pool.query("SELECT version FROM streams WHERE stream_id = $1", [stream])
            return try result.first?.int64(0) ?? 0
        } catch {
            throw EventStoreError.wrapping(error, "read version of \(stream)")
        }
    }

    /// The global feed after `position`, at most `limit` events, in (transaction id, position) order.
    ///
    /// Only events of transactions older than the oldest transaction still running are returned, in
    /// the same statement that reads them: every such transaction has committed or aborted, so no
    /// event with a lower feed position can become visible later. A reader that advances its
    /// checkpoint to the last event it received therefore never skips one.
    ///
    /// Events another reader of this process read a moment ago come from the `FeedCache`; what it
    /// does not hold is read from the database. When another reader of this process is already
    /// reading the events after the same position, this one waits for that read's page instead.
    ///
    /// A joined page that is short is topped up by a read of this reader's own. The joined read
    /// may have taken its snapshot before this reader was called, so an event committed in
    /// between could be missing from it; a short page must still mean "nothing more committed
    /// when you asked", or the reader would wait for the next poll to see that event.
    package func readAll(after position: FeedPosition, limit: Int = 1000) async throws(EventStoreError) -> [RecordedEvent] {
        guard let feedCache else { return try await readPage(after: position, limit: limit) }
        let cached = feedCache.events(after: position, limit: limit)
        guard cached.count < limit else { return cached }
        let from = cached.last?.feedPosition ?? position
        let wanted = limit - cached.count
        var read: [RecordedEvent]
        if feedCache.lead(after: from) {
            do {
                read = try await readPage(after: from, limit: wanted)
            } catch {
                feedCache.finish(after: from, page: nil)
                throw error
            }
            feedCache.add(read, after: from)
            feedCache.finish(after: from, page: read)
        } else {
            read = Array((await feedCache.join(after: from) ?? []).prefix(wanted))
            if read.count < wanted {
                let after = read.last?.feedPosition ?? from
                let rest = try await readPage(after: after, limit: wanted - read.count)
                feedCache.add(rest, after: after)
                read += rest
            }
        }
        return cached.isEmpty ? read : cached + read
    }

    /// Feed reads answered (in part) from the cache of recent events.
    package var feedCacheHits: Int { feedCache?.hitCount ?? 0 }

    /// Feed reads that took (in part) the page of another reader's database read in flight.
    package var feedReadsJoined: Int { feedCache?.joinCount ?? 0 }

    /// One page of the feed from the database.
    private func readPage(after position: FeedPosition, limit: Int) async throws(EventStoreError) -> [RecordedEvent] {
        let parameters = [String(position.transactionId), String(position.globalPosition), String(limit)]
        do {
            return try await pool.withConnection { connection in
                var events: [RecordedEvent] = []
                events.reserveCapacity(Swift.min(Swift.max(limit, 0), 10_000))
                var decoder = FeedRowDecoder()
                try connection.forEachRow(Self.feedStatement, parameters, format: .binary, streaming: true) { row in
                    events.append(try decoder.decode(row))
                }
                return events
            }
        } catch {
            throw EventStoreError.wrapping(error, "read feed")
        }
    }

    /// The feed page query: `$1` transaction id and `$2` position to read after, `$3` the limit.
    ///
    /// Ordered by the `xid8` column and the position, which the `(txid, global_position)` index
    /// of each partition returns in order, so a page reads only its own rows.
    ///
    /// Each read connection prepares it once: planning a query over the partitioned `events` table
    /// took 1–5 ms of a 5,000-event page. Its columns come in binary format (`FeedRowDecoder` reads
    /// them), which spares the server the text output of integers, the uuid, the timestamp and the
    /// hash, and us their parsing; the rows are decoded as they arrive (single-row mode), while the
    /// server is still producing the rest of the page.
    static let feedStatement = PreparedStatement(name: "waymark_feed_page", sql: """
        SELECT global_position, txid, stream_id, stream_version, event_id, event_type, data, metadata, recorded_at, hash
        FROM events
        WHERE (txid, global_position) > ($1::xid8, $2::bigint)
          AND txid < pg_snapshot_xmin(pg_current_snapshot())
        ORDER BY events.txid, events.global_position LIMIT $3
        """, parameterCount: 3)

    /// A live, gap-safe feed of every event after `position`: catches up, then waits for new ones.
    package func subscribe(after position: FeedPosition, batchSize: Int = 500, pollInterval: Duration = .milliseconds(500)) -> FeedSubscription {
        FeedSubscription(store: self, start: position, batchSize: batchSize, pollInterval: pollInterval)
    }

    private func read(_ what: String, _ sql: String, _ parameters: [String?]) async throws(EventStoreError) -> [RecordedEvent] {
        do {
            return try await pool.withConnection { connection in
                try Self.events(connection, sql, parameters)
            }
        } catch {
            throw EventStoreError.wrapping(error, what)
        }
    }

    /// The events a query selecting `columns` returns, decoded in place.
    static func events(_ connection: Connection, _ sql: String, _ parameters: [String?]) throws -> [RecordedEvent] {
        var events: [RecordedEvent] = []
        try connection.forEachRow(sql, parameters) { row in events.append(try decode(row)) }
        return events
    }

    /// Decodes a row selected with `columns`, in place: the JSON of `data` and `metadata` is parsed
    /// straight from libpq's buffer.
    package static func decode(_ row: RawRow) throws -> RecordedEvent {
        RecordedEvent(
            globalPosition: try row.int64(0), transactionId: try row.uint64(1), streamId: try row.string(2),
            streamVersion: try row.int64(3), id: try row.uuid(4), type: try row.string(5),
            data: try row.withBytes(6) { bytes throws(JSONError) in try JSONValue.parse(bytes) },
            metadata: try row.withBytes(7) { bytes throws(JSONError) in try JSONValue.parse(bytes) },
            recordedAtMicros: try row.int64(8), hash: try row.bytes(9))
    }
}

/// A live view of the global feed (see `EventStore.subscribe`).
///
/// Pull-based, so a slow consumer applies back-pressure instead of buffering without bound.
package struct FeedSubscription: AsyncSequence, Sendable {
    package typealias Element = RecordedEvent

    let store: EventStore
    let start: FeedPosition
    let batchSize: Int
    let pollInterval: Duration

    package func makeAsyncIterator() -> Iterator {
        Iterator(reader: FeedReader(store: store, after: start, batchSize: batchSize, pollInterval: pollInterval))
    }

    /// Hands out the reader's batches one event at a time.
    package struct Iterator: AsyncIteratorProtocol {
        var reader: FeedReader
        var buffer: [RecordedEvent] = []
        var index = 0

        package mutating func next() async throws -> RecordedEvent? {
            if index == buffer.count {
                guard let batch = try await reader.nextBatch() else { return nil }
                buffer = batch
                index = 0
            }
            defer { index += 1 }
            return buffer[index]
        }
    }
}

/// Reads the global feed batch by batch, waiting for new events between batches.
///
/// Transient database failures are retried with backoff; after a reconnect the reader catches up
/// from the last event it returned. Waits on the store's signal (local commits and NOTIFY from
/// other processes), with polling as the fallback.
package struct FeedReader: Sendable {
    let store: EventStore
    /// The position of the last event returned.
    package private(set) var position: FeedPosition
    let batchSize: Int
    let pollInterval: Duration
    /// When the store last signalled activity this reader has not seen yet.
    var lastSignal = ContinuousClock.now
    var quickDelay = Duration.milliseconds(2)

    package init(store: EventStore, after position: FeedPosition, batchSize: Int = 500, pollInterval: Duration = .milliseconds(500)) {
        self.store = store
        self.position = position
        self.batchSize = batchSize
        self.pollInterval = pollInterval
    }

    /// The next non-empty batch after `position`, waiting as long as it takes; nil once the task is cancelled.
    package mutating func nextBatch() async throws -> [RecordedEvent]? {
        var backoff = Duration.milliseconds(50)
        while true {
            if Task.isCancelled { return nil }
            let seen = store.signal.generation
            let result: Result<[RecordedEvent], EventStoreError>
            do {
                result = .success(try await store.readAll(after: position, limit: batchSize))
            } catch {
                result = .failure(error)
            }
            switch result {
            case .success(let events):
                backoff = .milliseconds(50)
                if let last = events.last {
                    position = last.feedPosition
                    quickDelay = .milliseconds(2)
                    return events
                }
            case .failure(let error):
                guard error.isRetriable else { throw error }
                try? await Task.sleep(for: backoff)
                backoff = Swift.min(backoff * 2, .seconds(2))
                continue
            }
            // Nothing visible. Right after a signal, the new events may sit above the horizon of
            // a transaction still running anywhere in the cluster: look again with a short,
            // growing delay for a few seconds, then fall back to the poll interval.
            if store.signal.generation != seen {
                lastSignal = .now
                quickDelay = .milliseconds(2)
                continue
            }
            let recentlySignalled = ContinuousClock.now - lastSignal < .seconds(5)
            await store.signal.wait(after: seen, timeout: recentlySignalled ? quickDelay : pollInterval)
            if store.signal.generation != seen {
                lastSignal = .now
                quickDelay = .milliseconds(2)
            } else if recentlySignalled {
                quickDelay = Swift.min(quickDelay * 2, .milliseconds(100))
            }
        }
    }
}
