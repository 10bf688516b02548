import Foundation
import JSON
import Postgres

/// One committer thread's loop: takes groups from the queue and commits them.
///
/// `@unchecked Sendable`: the object is handed to its thread once; `connection` and `ensuredDays`
/// are touched only by `run()` on that thread.
final class CommitterWorker: @unchecked Sendable {
    private let settings: AppendCommitter.Settings
    private let queue: UnitQueue
    private let clock: MonotonicMicros
    private let heads: HeadCache
    private let statistics: AppendStatistics
    private let onCommit: @Sendable () -> Void
    private var connection: Connection?
    private var ensuredDays: Set<Int64> = []

    private static let maxAttempts = 5

    init(settings: AppendCommitter.Settings, queue: UnitQueue, clock: MonotonicMicros, heads: HeadCache, statistics: AppendStatistics, onCommit: @escaping @Sendable () -> Void) {
        self.settings = settings
        self.queue = queue
        self.clock = clock
        self.heads = heads
        self.statistics = statistics
        self.onCommit = onCommit
    }

    func run() {
        while let group = queue.takeGroup(maxEvents: settings.maxGroupEvents) {
            let started = MonotonicMicros.wallClock()
            var memo = MetadataMemo()
            let prepared = group.map { unit in unit.appends.map { PreparedAppend($0, memo: &memo) } }
            let results = commitIsolatingFailures(prepared)
            for (unit, unitResults) in zip(group, results) { unit.complete(unitResults) }
            statistics.finished(startedAtMicros: started, events: group.reduce(0) { $0 + $1.eventCount })
        }
        connection = nil
    }

    /// Commits the group; when the database rejects it for a reason that is not transient, commits
    /// each unit on its own so one poisonous append cannot fail its neighbours.
    private func commitIsolatingFailures(_ units: [[PreparedAppend]]) -> [[Result<AppendResult, EventStoreError>]] {
        let results = commitWithRetries(units)
        guard units.count > 1, case .failure(let error) = results.first?.first, error.code == .storage else { return results }
        return units.map { commitWithRetries([$0])[0] }
    }

    private func commitWithRetries(_ units: [[PreparedAppend]]) -> [[Result<AppendResult, EventStoreError>]] {
        var lastError: EventStoreError?
        for attempt in 1...Self.maxAttempts {
            do {
                // Only the first attempt may take the one-round-trip path; retries lock.
                if attempt == 1, let results = try commitFast(units) { return results }
                return try commitOnce(units)
            } catch let error as PostgresError {
                rollbackQuietly()
                heads.forget(units.joined().map(\.streamId))
                statistics.retried()
                if error.code == .connectionLost || error.code == .connectionFailed {
                    connection = nil
                    return fail(units, EventStoreError(.unavailable, "database unavailable during append; retrying with the same event ids is safe", underlying: error))
                }
                let state = error.sqlState ?? ""
                // A session that lost its prepared statements (`DISCARD ALL`) prepares them again on the retry.
                if state == "23505" || state == "40001" || state == "40P01" || state == "23514" || error.isLostPreparedStatement {
                    if state == "23514" { ensuredDays.removeAll() }  // a missing day partition: make it and retry
                    lastError = EventStoreError.wrapping(error, "append")
                    if attempt > 1 { Thread.sleep(forTimeInterval: Double(attempt) * 0.002) }
                    continue
                }
                return fail(units, EventStoreError.wrapping(error, "append"))
            } catch {
                rollbackQuietly()
                return fail(units, EventStoreError.wrapping(error, "append"))
            }
        }
        return fail(units, lastError ?? EventStoreError(.storage, "append failed after \(Self.maxAttempts) attempts"))
    }

    private func fail(_ units: [[PreparedAppend]], _ error: EventStoreError) -> [[Result<AppendResult, EventStoreError>]] {
        units.map { appends in appends.map { append in append.invalid.map { .failure($0) } ?? .failure(error) } }
    }

    private func rollbackQuietly() {
        guard let connection, connection.isHealthy else {
            connection = nil
            return
        }
        if connection.inTransaction { _ = try? connection.execute("ROLLBACK") }
    }

    private func requireConnection() throws -> Connection {
        if let connection, connection.isHealthy { return connection }
        connection = nil
        let fresh = try Connection(conninfo: settings.conninfo, setupStatements: settings.setupStatements)
        connection = fresh
        return fresh
    }

    // MARK: - One attempt

    /// The one-round-trip path; nil when the group needs the locking path (see `AppendCommitter`).
    private func commitFast(_ units: [[PreparedAppend]]) throws -> [[Result<AppendResult, EventStoreError>]]? {
        let valid = units.joined().filter { $0.invalid == nil && !$0.events.isEmpty }
        guard !valid.isEmpty, let cached = heads.lookup(valid.map(\.streamId)) else { return nil }
        let connection = try requireConnection()
        let now = clock.now()
        if valid.contains(where: { $0.category == "vehicle" }) {
            try ensurePartitions(for: now, on: connection)
        }
        var plan = GroupPlan(heads: cached.mapValues { StreamHead(version: $0.version, hash: $0.hash, existed: true) },
                             known: [:], recordedAtMicros: now)
        var decisions: [[Decision]] = []
        for appends in units {
            var unitDecisions: [Decision] = []
            for append in appends {
                let decision = plan.decide(append)
                if case .failed(let error) = decision, append.invalid == nil, error.code == .wrongExpectedVersion {
                    return nil  // a conflict may be an idempotent retry: the locking path checks event ids first
                }
                unitDecisions.append(decision)
            }
            decisions.append(unitDecisions)
        }
        guard !plan.rows.isEmpty else { return nil }
        let changed = plan.changedHeads()
        let ids = changed.map(\.stream)
        let recordedAt = PostgresText.timestamp(microseconds: now)
        let guardedHeads = Self.headUpdate(ids.count, Self.guardHeads, [PostgresText.arrayLiteral(ids),
                      PostgresText.arrayLiteral(changed.map(\.head.startVersion)),
                      PostgresText.arrayLiteral(changed.map(\.head.version)),
                      PostgresText.arrayLiteral(changed.map { PostgresText.hexBytea($0.head.hash) }),
                      recordedAt, String(ids.count)])
        if plan.rows.count >= Self.copyRows {
            return try commitCopying(plan, decisions, changed: changed, guardedHeads: guardedHeads, recordedAt: recordedAt, on: connection)
        }
        let written = try connection.pipeline([Statement("BEGIN")] + guardedHeads + [plan.insertStatement(), Statement("COMMIT")],
                                              hints: notification)
        let (positions, transactionId) = try Self.positions(inserted: written[written.count - 2])
        return try committed(plan, decisions, changed: changed, positions: positions, transactionId: transactionId, fastPath: true)
    }

    /// The payload-less `NOTIFY` that wakes other nodes' feed readers, sent as a hint after the
    /// group's `COMMIT` in the same round trip (`Connection.pipeline(_:hints:)`), in a transaction of
    /// its own.
    ///
    /// PostgreSQL serializes the commits of notifying transactions on one global lock, held from
    /// just before the commit record until the transaction ends, so across the WAL flush: with the
    /// `NOTIFY` inside the append transaction, every notifying commit of the cluster (both
    /// committers', the projection runners', other nodes') flushed one after another. After the
    /// commit, the notification's own transaction writes no WAL and holds the lock only to queue
    /// the message. It is a hint (readers also poll), so its failure does not fail the appends,
    /// which are committed by then.
    private var notification: [Statement] {
        [Statement("SELECT pg_notify($1::text, '')", [settings.notifyChannel], preparedName: "waymark_append_notify")]
    }

    /// The statements updating `heads` stream heads with `sql`, an `UPDATE streams ... FROM
    /// unnest($1::text[], ...) AS u(stream_id, ...) WHERE streams.stream_id = u.stream_id ... {HEADS}`.
    ///
    /// The heads must be found through the primary key, one probe each. For a few heads,
    /// `{HEADS}` becomes `AND streams.stream_id = ANY($1)`, which the planner answers with an index
    /// scan. For many it would scan the whole table instead and hash it (seen at 500 heads over
    /// 21,000 streams: 3.8 ms against 2.1 ms, and the scan grows with every stream ever written), so
    /// the update then runs with hash and merge joins off in its transaction, a nested loop of
    /// probes, and without the filter: with hash joins off the planner would scan the heads by it
    /// and compare every pair (13.8 ms for 500). The two `set_config` statements cost more than they
    /// save for a few heads (single-event appends were ~10% slower with them).
    ///
    /// Each form is prepared as `name` with a suffix; the nested-loop form is always planned and run
    /// with those joins off, so the plan its session caches is one made under the same settings.
    static func headUpdate(_ heads: Int, _ sql: HeadUpdateSQL, _ parameters: [String?]) -> [Statement] {
        guard heads >= manyHeads else {
            return [Statement(sql.few, parameters, preparedName: sql.name + "_few")]
        }
        return [Statement("SELECT set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true)",
                          preparedName: "waymark_append_joins_off"),
                Statement(sql.many, parameters, preparedName: sql.name + "_many"),
                Statement("SELECT set_config('enable_hashjoin', 'on', true), set_config('enable_mergejoin', 'on', true)",
                          preparedName: "waymark_append_joins_on")]
    }

    /// A head update of `headUpdate` in both forms, its `{HEADS}` replaced once (not per group).
    struct HeadUpdateSQL: Sendable {
        let name: String
        let few: String
        let many: String

        init(name: String, _ sql: String) {
            self.name = name
            few = sql.replacingOccurrences(of: "{HEADS}", with: "AND streams.stream_id = ANY($1::text[])")
            many = sql.replacingOccurrences(of: "{HEADS}", with: "")
        }
    }

    /// The fast path's heads, each guarded by the version it was decided on.
    static let guardHeads = HeadUpdateSQL(name: "waymark_append_guard_heads", """
        WITH updated AS (
            UPDATE streams SET version = u.version, last_hash = u.last_hash, updated_at = $5::timestamptz
            FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bytea[]) AS u(stream_id, old_version, version, last_hash)
            WHERE streams.stream_id = u.stream_id AND streams.version = u.old_version {HEADS}
            RETURNING 1
        )
        SELECT waymark_expect_count((SELECT count(*) FROM updated), $6::bigint)
        """)

    /// The locking path's heads (locked with `FOR UPDATE` before).
    static let lockedHeads = HeadUpdateSQL(name: "waymark_append_locked_heads", """
        UPDATE streams SET version = u.version, last_hash = u.last_hash, updated_at = $4::timestamptz
        FROM unnest($1::text[], $2::bigint[], $3::bytea[]) AS u(stream_id, version, last_hash)
        WHERE streams.stream_id = u.stream_id {HEADS}
        """)

    /// From this many heads on, `headUpdate` joins them by nested loop.
    static let manyHeads = 128

    /// Groups of at least this many events are written with `COPY` (see `commitCopying`).
    static let copyRows = 128

    /// The fast path for large groups: heads guarded and positions drawn in one round trip, the rows
    /// of `events` and `event_ids` sent with `COPY`, then `COMMIT` and `NOTIFY` (four round trips in
    /// all, against one for the single insert statement).
    ///
    /// PostgreSQL parses COPY rows far more cheaply than it splits a JSON array into rows, joins them
    /// with their columns and inserts the ids from the insert's `RETURNING` (the statement of
    /// `GroupPlan.insertStatement`); with hundreds of events a group the extra round trips cost less
    /// than that work. Positions come from the column's own sequence, drawn inside the transaction,
    /// exactly as the column default would: unique, ascending in the group's order, and ordered in
    /// the feed by the writing transaction as every other insert.
    private func commitCopying(_ plan: GroupPlan, _ decisions: [[Decision]], changed: [(stream: String, head: StreamHead)],
                               guardedHeads: [Statement], recordedAt: String, on connection: Connection) throws -> [[Result<AppendResult, EventStoreError>]] {
        let read = try connection.pipeline([Statement("BEGIN")] + guardedHeads + [
            Statement("SELECT pg_current_xact_id()::text, nextval('events_global_position_seq') FROM generate_series(1, $1::int)",
                      [String(plan.rows.count)], preparedName: "waymark_append_draw_positions"),
        ])
        let drawn = read[read.count - 1].rows
        guard drawn.count == plan.rows.count else {
            throw EventStoreError(.storage, "drew \(drawn.count) positions for \(plan.rows.count) events")
        }
        let transactionId = try drawn.first.map { row throws(PostgresError) in try row.uint64(0) }
        var positions: [UUID: Int64] = [:]
        positions.reserveCapacity(plan.rows.count)
        var ordered: [Int64] = []
        ordered.reserveCapacity(plan.rows.count)
        for (row, event) in zip(drawn, plan.rows) {
            let position = try row.int64(1)
            positions[event.event.id] = position
            ordered.append(position)
        }
        let (events, ids) = plan.copyRows(positions: ordered, recordedAt: recordedAt)
        try connection.copyIn("COPY events (global_position, category, stream_id, stream_version, event_id, event_type, data, metadata, recorded_at, hash) FROM STDIN",
                              data: events)
        try connection.copyIn("COPY event_ids (event_id, stream_id, stream_version, global_position, payload_hash, recorded_at) FROM STDIN", data: ids)
        _ = try connection.pipeline([Statement("COMMIT")], hints: notification)
        return try committed(plan, decisions, changed: changed, positions: positions, transactionId: transactionId, fastPath: true)
    }

    /// The (event id → position) map and the transaction id from the insert statement's rows.
    private static func positions(inserted: QueryResult) throws -> (positions: [UUID: Int64], transactionId: UInt64?) {
        var positions: [UUID: Int64] = [:]
        positions.reserveCapacity(inserted.rows.count)
        var transactionId: UInt64?
        for row in inserted.rows {
            positions[try row.uuid(0)] = try row.int64(1)
            if transactionId == nil { transactionId = try row.uint64(2) }
        }
        return (positions, transactionId)
    }

    /// After a commit: takes the events' positions, remembers the new stream heads (`changed`, the
    /// group's `changedHeads()`), counts the group, wakes local feed readers, and resolves every
    /// append's result.
    private func committed(_ plan: GroupPlan, _ decisions: [[Decision]], changed: [(stream: String, head: StreamHead)],
                           positions: [UUID: Int64], transactionId: UInt64?, fastPath: Bool) throws -> [[Result<AppendResult, EventStoreError>]] {
        guard positions.count == plan.rows.count else {
            throw EventStoreError(.storage, "insert returned \(positions.count) positions for \(plan.rows.count) events")
        }
        heads.store(changed.lazy.map { ($0.stream, HeadCache.Head(version: $0.head.version, hash: $0.head.hash)) })
        statistics.committed(fastPath: fastPath, events: plan.rows.count)
        onCommit()
        return decisions.map { $0.map { $0.resolve(positions: positions, transactionId: transactionId) } }
    }

    private func commitOnce(_ units: [[PreparedAppend]]) throws -> [[Result<AppendResult, EventStoreError>]] {
        let connection = try requireConnection()
        let now = clock.now()
        let valid = units.joined().filter { $0.invalid == nil }
        if valid.contains(where: { $0.category == "vehicle" && !$0.events.isEmpty }) {
            try ensurePartitions(for: now, on: connection)
        }

        // Round trip 1: lock stream heads and look up event ids.
        let streamIds = Array(Set(valid.map(\.streamId))).sorted()
        let eventIds = valid.flatMap { $0.events.map(\.id) }
        var round1 = [
            Statement("BEGIN"),
            Statement("SELECT stream_id, version, last_hash FROM streams WHERE stream_id = ANY($1::text[]) ORDER BY stream_id FOR UPDATE",
                      [PostgresText.arrayLiteral(streamIds)], preparedName: "waymark_append_lock_heads"),
        ]
        if !eventIds.isEmpty {
            round1.append(Statement(
                "SELECT i.event_id, i.stream_id, i.stream_version, i.global_position, i.payload_hash FROM " + EventStore.eventIdProbeSQL,
                [PostgresText.arrayLiteral(eventIds.map(\.lowercasedText))], preparedName: "waymark_append_probe_ids"))
        }
        let read = try connection.pipeline(round1)
        var heads: [String: StreamHead] = [:]
        for row in read[1].rows {
            heads[try row.string(0)] = StreamHead(version: try row.int64(1), hash: try row.bytes(2), existed: true)
        }
        var known: [UUID: KnownEvent] = [:]
        if read.count > 2 {
            for row in read[2].rows {
                known[try row.uuid(0)] = KnownEvent(streamId: try row.string(1), version: try row.int64(2),
                                                     position: .stored(try row.int64(3)), payloadHash: try row.bytes(4))
            }
        }

        // Decide, append by append, in arrival order.
        var plan = GroupPlan(heads: heads, known: known, recordedAtMicros: now)
        let decisions = units.map { appends in appends.map { plan.decide($0) } }

        // Round trip 2: write and commit (or just commit when nothing is new).
        guard !plan.rows.isEmpty else {
            try connection.execute("COMMIT")
            return decisions.map { $0.map { $0.resolve(positions: [:], transactionId: nil) } }
        }
        let recordedAt = PostgresText.timestamp(microseconds: now)
        var round2: [Statement] = []
        let changed = plan.changedHeads()
        // Heads the group made (every one of them moved) and heads it moved that were there before.
        let created = changed.filter { !$0.head.existed }
        if !created.isEmpty {
            let ids = created.map(\.stream)
            round2.append(Statement("""
                INSERT INTO streams (stream_id, category, version, last_hash, created_at, updated_at)
                SELECT u.stream_id, u.category, u.version, u.last_hash, $5::timestamptz, $5::timestamptz
                FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bytea[]) AS u(stream_id, category, version, last_hash)
                """, [PostgresText.arrayLiteral(ids),
                      PostgresText.arrayLiteral(ids.map { PreparedAppend.category(of: $0) }),
                      PostgresText.arrayLiteral(created.map(\.head.version)),
                      PostgresText.arrayLiteral(created.map { PostgresText.hexBytea($0.head.hash) }),
                      recordedAt], preparedName: "waymark_append_create_heads"))
        }
        let updated = changed.filter(\.head.existed)
        if !updated.isEmpty {
            let ids = updated.map(\.stream)
            round2 += Self.headUpdate(ids.count, Self.lockedHeads, [PostgresText.arrayLiteral(ids),
                      PostgresText.arrayLiteral(updated.map(\.head.version)),
                      PostgresText.arrayLiteral(updated.map { PostgresText.hexBytea($0.head.hash) }),
                      recordedAt])
        }
        round2.append(plan.insertStatement())
        round2.append(Statement("COMMIT"))
        let written = try connection.pipeline(round2, hints: notification)
        let (positions, transactionId) = try Self.positions(inserted: written[round2.count - 2])
        return try committed(plan, decisions, changed: changed, positions: positions, transactionId: transactionId, fastPath: false)
    }

    private func ensurePartitions(for micros: Int64, on connection: Connection) throws {
        let day = micros / 86_400_000_000
        for candidate in [day, day + 1] where !ensuredDays.contains(candidate) {
            try connection.query("SELECT waymark_ensure_vehicle_partition($1::date)", [Self.isoDate(day: candidate)])
            ensuredDays.insert(candidate)
        }
    }

    static func isoDate(day: Int64) -> String {
        var time = time_t(day * 86_400)
        var parts = tm()
        gmtime_r(&time, &parts)
        return String(format: "%04d-%02d-%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday))
    }
}

// MARK: - Planning

/// An append with everything computed that does not need the database.
struct PreparedAppend: Sendable {
    let streamId: String
    let category: String
    let expected: ExpectedVersion
    let events: [PreparedEvent]
    /// Set when the append is malformed; it then fails without touching the database.
    let invalid: EventStoreError?

    init(_ append: StreamAppend, memo: inout MetadataMemo) {
        streamId = append.streamId
        category = Self.category(of: append.streamId)
        expected = append.expectedVersion
        events = append.events.map { PreparedEvent($0, streamId: append.streamId, memo: &memo) }
        invalid = Self.validate(append)
    }

    /// The part of a stream id before its first `:` (`trip`, `vehicle`, ...), or the whole id.
    static func category(of streamId: String) -> String {
        guard let colon = streamId.firstIndex(of: ":") else { return streamId }
        return String(streamId[..<colon])
    }

    static func validate(_ append: StreamAppend) -> EventStoreError? {
        let id = append.streamId
        if id.isEmpty || id.utf8.count > 512 {
            return EventStoreError(.invalidEvent, "stream id must be 1 to 512 bytes, got \(id.utf8.count)")
        }
        if id.utf8.contains(0) { return EventStoreError(.invalidEvent, "stream id must not contain NUL (stream \(id.debugDescription))") }
        if case .exact(let version) = append.expectedVersion, version < 0 {
            return EventStoreError(.invalidEvent, "expected version must not be negative, got \(version) (stream \(id))")
        }
        var seen = Set<UUID>()
        for event in append.events {
            if event.type.isEmpty || event.type.utf8.count > 128 || event.type.utf8.contains(0) {
                return EventStoreError(.invalidEvent, "event type must be 1 to 128 bytes without NUL, got \(event.type.debugDescription) (stream \(id))")
            }
            if !seen.insert(event.id).inserted {
                return EventStoreError(.invalidEvent, "event id \(event.id.lowercasedText) appears twice in one append (stream \(id))")
            }
        }
        return nil
    }
}

/// An event with its encoding and hashes precomputed.
///
/// `data` and `metadata` are sent to PostgreSQL in their canonical form, the bytes the hash chain
/// covers (as `import` stores them): JSON is written once per event, not once for the hash and
/// again for the row. `jsonb` keeps no member order and no whitespace anyway; what changes is only
/// the spelling of numbers (`1.50` is stored as `1.5`, `1e2` as `100`), the same values.
struct PreparedEvent: Sendable {
    let id: UUID
    let type: String
    let canonicalData: [UInt8]
    let canonicalMetadata: [UInt8]
    let payloadHash: [UInt8]

    init(_ event: EventData, streamId: String, memo: inout MetadataMemo) {
        id = event.id
        type = event.type
        canonicalData = event.canonicalData
        canonicalMetadata = memo.canonical(of: event.metadata)
        payloadHash = HashChain.payloadHash(streamId: streamId, type: event.type, canonicalData: canonicalData)
    }
}

/// The encodings of the metadata seen last, reused while the next events carry the same metadata
/// (the events of one request, or of one batch, all do).
struct MetadataMemo {
    private var value: JSONValue?
    private var canonical: [UInt8] = []

    mutating func canonical(of metadata: JSONValue) -> [UInt8] {
        if metadata != value {
            value = metadata
            canonical = metadata.canonicalBytes()
        }
        return canonical
    }
}

/// A stream's head as the group sees it.
struct StreamHead {
    var version: Int64
    var hash: [UInt8]
    /// Whether the row existed in `streams` when the group started.
    let existed: Bool
    /// The version when the group started (what the head update expects to find).
    let startVersion: Int64
    var changed = false

    init(version: Int64, hash: [UInt8], existed: Bool) {
        self.version = version
        self.hash = hash
        self.existed = existed
        startVersion = version
    }
}

/// Where an already-known event id lives.
struct KnownEvent {
    enum Position { case stored(Int64), pending(UUID) }
    let streamId: String
    let version: Int64
    let position: Position
    let payloadHash: [UInt8]
}

/// One row to insert into `events`.
struct EventRow {
    let category: String
    let streamId: String
    let version: Int64
    let event: PreparedEvent
    let hash: [UInt8]
}

/// The decision for one append, before positions are known.
enum Decision {
    case failed(EventStoreError)
    case appended(streamId: String, first: Int64, last: Int64, ids: [UUID])
    case duplicate(streamId: String, first: Int64, last: Int64, positions: [KnownEvent.Position])
    case empty(streamId: String, version: Int64)

    /// The append's result once the group's positions (and its transaction id, when it wrote) are known.
    func resolve(positions: [UUID: Int64], transactionId: UInt64?) -> Result<AppendResult, EventStoreError> {
        switch self {
        case .failed(let error):
            return .failure(error)
        case .appended(let streamId, let first, let last, let ids):
            return .success(AppendResult(streamId: streamId, firstVersion: first, lastVersion: last,
                                         positions: ids.map { positions[$0] ?? -1 }, deduplicated: false, transactionId: transactionId))
        case .duplicate(let streamId, let first, let last, let known):
            var allPending = true
            let resolved = known.map { position -> Int64 in
                switch position {
                case .stored(let value):
                    allPending = false
                    return value
                case .pending(let id): return positions[id] ?? -1
                }
            }
            return .success(AppendResult(streamId: streamId, firstVersion: first, lastVersion: last, positions: resolved,
                                         deduplicated: true, transactionId: allPending ? transactionId : nil))
        case .empty(let streamId, let version):
            return .success(AppendResult(streamId: streamId, firstVersion: version, lastVersion: version, positions: [], deduplicated: false, transactionId: nil))
        }
    }
}

/// The in-memory state of one group while its appends are decided.
struct GroupPlan {
    var heads: [String: StreamHead]
    var known: [UUID: KnownEvent]
    let recordedAtMicros: Int64
    var rows: [EventRow] = []

    /// The heads this group moved, in stream-id order (the order their rows are locked in).
    func changedHeads() -> [(stream: String, head: StreamHead)] {
        heads.compactMap { $0.value.changed ? (stream: $0.key, head: $0.value) : nil }.sorted { $0.stream < $1.stream }
    }

    mutating func decide(_ append: PreparedAppend) -> Decision {
        if let invalid = append.invalid { return .failed(invalid) }
        let stream = append.streamId

        // Idempotency first: a retry of a stored append succeeds whatever the stream's version is now.
        let matches = append.events.map { known[$0.id] }
        let matched = matches.compactMap { $0 }
        if !matched.isEmpty {
            for (event, match) in zip(append.events, matches) {
                guard let match else { continue }
                if match.streamId != stream || match.payloadHash != event.payloadHash {
                    return .failed(EventStoreError(.duplicateEventId,
                        "event id \(event.id.lowercasedText) is already stored with another payload (stream \(match.streamId), version \(match.version))"))
                }
            }
            guard matched.count == append.events.count else {
                return .failed(EventStoreError(.duplicateEventId,
                    "\(matched.count) of the \(append.events.count) event ids of this append are already stored; retry the original append unchanged (stream \(stream))"))
            }
            return .duplicate(streamId: stream, first: matched.first!.version, last: matched.last!.version, positions: matched.map(\.position))
        }

        let existing = heads[stream]
        let current = existing?.version ?? 0
        guard append.expected.accepts(current: current) else {
            return .failed(.wrongExpectedVersion(expected: append.expected, actual: current, stream: stream))
        }
        guard !append.events.isEmpty else { return .empty(streamId: stream, version: current) }

        var head = existing ?? StreamHead(version: 0, hash: HashChain.genesis, existed: false)
        let first = head.version + 1
        for event in append.events {
            head.version += 1
            head.hash = HashChain.hash(previous: head.hash, streamId: stream, version: head.version, eventId: event.id,
                                       type: event.type, canonicalData: event.canonicalData,
                                       canonicalMetadata: event.canonicalMetadata, recordedAtMicros: recordedAtMicros)
            rows.append(EventRow(category: append.category, streamId: stream, version: head.version, event: event, hash: head.hash))
            known[event.id] = KnownEvent(streamId: stream, version: head.version, position: .pending(event.id), payloadHash: event.payloadHash)
        }
        head.changed = true
        heads[stream] = head
        return .appended(streamId: stream, first: first, last: head.version, ids: append.events.map(\.id))
    }

    /// The rows in COPY text format for `events` (global_position, category, stream_id,
    /// stream_version, event_id, event_type, data, metadata, recorded_at, hash) and for `event_ids`
    /// (event_id, stream_id, stream_version, global_position, payload_hash, recorded_at);
    /// `positions` holds each row's position, in order.
    func copyRows(positions: [Int64], recordedAt: String) -> (events: [UInt8], ids: [UInt8]) {
        var events: [UInt8] = [], ids: [UInt8] = []
        events.reserveCapacity(rows.reduce(0) { $0 + $1.event.canonicalData.count + $1.event.canonicalMetadata.count + 260 })
        ids.reserveCapacity(rows.count * 200)
        let tab = UInt8(ascii: "\t"), newline = UInt8(ascii: "\n")
        var recorded: [UInt8] = []
        PostgresText.appendCopyField(recordedAt, into: &recorded)
        func bytea(_ bytes: [UInt8], into out: inout [UInt8]) {
            PostgresText.appendCopyField(PostgresText.hexBytea(bytes), into: &out)
        }
        for (row, position) in zip(rows, positions) {
            let position = String(position).utf8, version = String(row.version).utf8, id = row.event.id.lowercasedText.utf8
            events.append(contentsOf: position); events.append(tab)
            PostgresText.appendCopyField(row.category, into: &events); events.append(tab)
            PostgresText.appendCopyField(row.streamId, into: &events); events.append(tab)
            events.append(contentsOf: version); events.append(tab)
            events.append(contentsOf: id); events.append(tab)
            PostgresText.appendCopyField(row.event.type, into: &events); events.append(tab)
            PostgresText.appendCopyField(row.event.canonicalData, into: &events); events.append(tab)
            PostgresText.appendCopyField(row.event.canonicalMetadata, into: &events); events.append(tab)
            events.append(contentsOf: recorded); events.append(tab)
            bytea(row.hash, into: &events); events.append(newline)

            ids.append(contentsOf: id); ids.append(tab)
            PostgresText.appendCopyField(row.streamId, into: &ids); ids.append(tab)
            ids.append(contentsOf: version); ids.append(tab)
            ids.append(contentsOf: position); ids.append(tab)
            bytea(row.event.payloadHash, into: &ids); ids.append(tab)
            ids.append(contentsOf: recorded); ids.append(newline)
        }
        return (events, ids)
    }

    /// One statement inserting every row into `events` and `event_ids`, returning (event_id, global_position).
    ///
    /// `data` and `metadata` travel as one JSON array each, split by `jsonb_array_elements`: one
    /// jsonb parse per batch, instead of a `jsonb[]` literal whose every quote must be escaped and
    /// unescaped again.
    func insertStatement() -> Statement {
        var categories: [String?] = [], streams: [String?] = [], versions: [Int64] = [], ids: [String?] = []
        var types: [String?] = [], hashes: [String?] = [], payloadHashes: [String?] = []
        var data: [UInt8] = [UInt8(ascii: "[")], metadata: [UInt8] = [UInt8(ascii: "[")]
        data.reserveCapacity(rows.reduce(2) { $0 + $1.event.canonicalData.count + 1 })
        metadata.reserveCapacity(rows.reduce(2) { $0 + $1.event.canonicalMetadata.count + 1 })
        for (index, row) in rows.enumerated() {
            categories.append(row.category)
            streams.append(row.streamId)
            versions.append(row.version)
            ids.append(row.event.id.lowercasedText)
            types.append(row.event.type)
            hashes.append(PostgresText.hexBytea(row.hash))
            payloadHashes.append(PostgresText.hexBytea(row.event.payloadHash))
            if index > 0 {
                data.append(UInt8(ascii: ","))
                metadata.append(UInt8(ascii: ","))
            }
            data.append(contentsOf: row.event.canonicalData)
            metadata.append(contentsOf: row.event.canonicalMetadata)
        }
        data.append(UInt8(ascii: "]"))
        metadata.append(UInt8(ascii: "]"))
        return Statement("""
            WITH input AS (
                SELECT u.*, d.value AS data, m.value AS metadata
                FROM unnest($1::text[], $2::text[], $3::bigint[], $4::uuid[], $5::text[], $8::bytea[], $9::bytea[])
                    WITH ORDINALITY AS u(category, stream_id, stream_version, event_id, event_type, hash, payload_hash, ord)
                JOIN jsonb_array_elements($6::jsonb) WITH ORDINALITY AS d(value, ord) ON d.ord = u.ord
                JOIN jsonb_array_elements($7::jsonb) WITH ORDINALITY AS m(value, ord) ON m.ord = u.ord
            ), inserted AS (
                INSERT INTO events (category, stream_id, stream_version, event_id, event_type, data, metadata, recorded_at, hash)
                SELECT category, stream_id, stream_version, event_id, event_type, data, metadata, $10::timestamptz, hash
                FROM input ORDER BY ord
                RETURNING event_id, global_position, stream_id, stream_version
            )
            INSERT INTO event_ids (event_id, stream_id, stream_version, global_position, payload_hash, recorded_at)
            SELECT inserted.event_id, inserted.stream_id, inserted.stream_version, inserted.global_position, input.payload_hash, $10::timestamptz
            FROM inserted JOIN input ON input.event_id = inserted.event_id
            RETURNING event_id, global_position, pg_current_xact_id()::text
            """, [PostgresText.arrayLiteral(categories), PostgresText.arrayLiteral(streams), PostgresText.arrayLiteral(versions),
                  PostgresText.arrayLiteral(ids), PostgresText.arrayLiteral(types), String(decoding: data, as: UTF8.self),
                  String(decoding: metadata, as: UTF8.self), PostgresText.arrayLiteral(hashes), PostgresText.arrayLiteral(payloadHashes),
                  PostgresText.timestamp(microseconds: recordedAtMicros)], preparedName: "waymark_append_insert")
    }
}
