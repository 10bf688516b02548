import Postgres
import Synchronization

/// Where a read-model query may go, for the task that runs it (see `ReadRouter.preference`).
package enum ReadPreference: Sendable, Equatable {
    /// The primary: writes, and the reads of the request that wrote (a command's answer).
    case primary
    /// The replica once it has replayed `after` (a client's consistency token); nil: as it is now.
    case replica(after: WALPosition?)
    /// The replica once it has replayed everything the primary had written when the read began.
    case replicaCaughtUp
}

/// Sends read-model queries to a streaming replica when one is configured, and keeps each
/// client's writes visible to its own reads.
///
/// Writes, the event store, projections, advisory locks and LISTEN never come here: they use the
/// primary's pools directly. Only the fleet and journey readers ask the router, and it picks a
/// database per query from the task's `preference`:
/// - no replica, or `.primary`: the primary;
/// - `.replica(after: token)`: the replica once `pg_last_wal_replay_lsn()` has reached the token
///   (polled for up to `replayWait`), else the primary; no token: the replica as it is;
/// - `.replicaCaughtUp`: the token is the primary's WAL insert position right now, so the read
///   sees everything committed before it began (the journey hub's background reads).
/// A replica query that fails is answered by the primary instead.
package final class ReadRouter: Sendable {
    /// The replica's pool and how long a read waits for it to catch up before going to the primary.
    package struct Replica: Sendable {
        package var pool: ConnectionPool
        /// False when the server is not in recovery (not a physical standby): replay cannot be
        /// checked, so reads that need a position go to the primary.
        package var isStandby: Bool
        package var replayWait: Duration

        package init(pool: ConnectionPool, isStandby: Bool, replayWait: Duration) {
            self.pool = pool
            self.isStandby = isStandby
            self.replayWait = replayWait
        }
    }

    /// What the router did, for `/metrics`.
    package struct Counts: Sendable, Equatable {
        /// Queries the replica answered.
        package var replicaReads = 0
        /// Queries sent to the primary because the replica had not replayed far enough in time.
        package var lagFallbacks = 0
        /// Queries sent to the primary because the replica failed.
        package var errorFallbacks = 0
    }

    /// The current task's preference; nil: the read model's own default.
    @TaskLocal package static var preference: ReadPreference?

    /// Whether the current task reads after a client's consistency token (and must not answer from memory).
    package static var readsAfterToken: Bool {
        if case .replica(after: .some) = preference { return true }
        return false
    }

    let primary: ConnectionPool
    package let replica: Replica?
    private let replayed = Mutex<UInt64>(0)
    private let counts = Mutex(Counts())

    package init(primary: ConnectionPool, replica: Replica?) {
        self.primary = primary
        self.replica = replica
    }

    package var statistics: Counts { counts.withLock { $0 } }

    /// Runs `sql` where the task's preference (or `unset`) allows.
    func query(_ sql: String, _ parameters: [String?] = [], unset: ReadPreference = .primary) async throws -> QueryResult {
        guard let replica else { return try await primary.query(sql, parameters) }
        switch Self.preference ?? unset {
        case .primary:
            return try await primary.query(sql, parameters)
        case .replica(let after):
            if let after, !(await waitForReplay(after, replica)) { return try await lagFallback(sql, parameters) }
        case .replicaCaughtUp:
            let target = try await primaryPosition()
            if !(await waitForReplay(target, replica)) { return try await lagFallback(sql, parameters) }
        }
        do {
            let result = try await replica.pool.query(sql, parameters)
            counts.withLock { $0.replicaReads += 1 }
            return result
        } catch {
            counts.withLock { $0.errorFallbacks += 1 }
            return try await primary.query(sql, parameters)
        }
    }

    /// The primary's WAL insert position now. Taken after a write was answered (its events and
    /// the projection's commit are in the WAL before it), it is that write's consistency token.
    package func primaryPosition() async throws -> WALPosition {
        let text = try await primary.query("SELECT pg_current_wal_insert_lsn()::text").first?.values.first ?? nil
        guard let text, let position = WALPosition(text) else {
            throw PostgresError(.protocolViolation, "pg_current_wal_insert_lsn() answered \(String(describing: text)), not a WAL position")
        }
        return position
    }

    private func lagFallback(_ sql: String, _ parameters: [String?]) async throws -> QueryResult {
        counts.withLock { $0.lagFallbacks += 1 }
        return try await primary.query(sql, parameters)
    }

    /// Whether the replica has replayed `target`, polling it for up to `replayWait`.
    private func waitForReplay(_ target: WALPosition, _ replica: Replica) async -> Bool {
        if replayed.withLock({ $0 }) >= target.value { return true }
        guard replica.isStandby else { return false }
        let deadline = ContinuousClock.now + replica.replayWait
        while true {
            guard let text = (try? await replica.pool.query("SELECT pg_last_wal_replay_lsn()::text"))?.first?.values.first ?? nil,
                  let position = WALPosition(text) else { return false }
            // Replay only moves forward, so what was seen once needs no second look.
            let seen = replayed.withLock { value in
                value = max(value, position.value)
                return value
            }
            if seen >= target.value { return true }
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(3))
        }
    }
}
