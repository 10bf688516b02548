import Postgres
import Synchronization

/// What every background worker that tails the global feed shares: ownership, supervision, reading
/// and the status they give.
///
/// Of several `waymark serve` nodes, one follows a given name: it holds a session-level advisory
/// lock on a connection of its own, and the others stand by until that session ends. The worker
/// supplies only what is its own, where its checkpoint lives and what a batch does, and commits a
/// batch's effects with its checkpoint on the session that holds the lock (`Owner.withSession`), so
/// a worker whose session was lost cannot write over the next owner's progress. A failure is
/// recorded in `status`; after `Options.retryDelay` the worker takes ownership again and resumes
/// from what is stored. `stop()` ends the loop before it closes the connection, which releases
/// the lock.
package final class FeedFollower: Sendable {
    /// The lock, and the pacing of the loop `start` runs (a worker that supervises itself and only
    /// claims the lock leaves the defaults).
    package struct Options: Sendable {
        /// The lock is `pg_try_advisory_lock(lockNamespace, hashtext(name))`.
        package var name: String
        package var lockNamespace: Int32
        /// Names the connection's thread (debuggers, `top -H`).
        package var connectionName: String
        /// How long a follower that does not own waits before it tries again.
        package var standbyInterval: Duration
        /// How long a follower waits after a failure before it takes ownership again.
        package var retryDelay: Duration

        package init(name: String, lockNamespace: Int32, connectionName: String, standbyInterval: Duration = .seconds(1),
                     retryDelay: Duration = .milliseconds(500)) {
            self.name = name
            self.lockNamespace = lockNamespace
            self.connectionName = connectionName
            self.standbyInterval = standbyInterval
            self.retryDelay = retryDelay
        }
    }

    /// Where the follower stands, for metrics and readiness.
    package struct Status: Sendable, Hashable {
        package var isOwner = false
        /// The PostgreSQL backend of the session that holds the lock.
        package var backendPID: Int32?
        package var checkpoint = FeedPosition.start
        /// As the worker measures it (`committed(_:lagSeconds:)`).
        package var lagSeconds: Double = 0
        package var lastError: String?
    }

    /// The follower's ownership while it lasts: the session that holds the lock.
    package struct Owner: Sendable {
        /// The backend of the session that took the lock; a batch commits only on it.
        package let backendPID: Int32
        let pool: ConnectionPool
        let store: EventStore

        /// Runs `body` on the follower's connection: reads, and cleaning up after a failed write.
        package func withConnection<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
            try await pool.withConnection(body)
        }

        /// Runs `body` on the session that holds the lock; throws `lost()` instead when the connection
        /// is another session by now (it was re-established, and the lock may be another node's).
        package func withSession<T: Sendable>(orThrow lost: @escaping @Sendable () -> any Error,
                                              _ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
            let pid = backendPID
            return try await pool.withConnection { connection in
                guard connection.backendPID == pid else { throw lost() }
                return try body(connection)
            }
        }

        /// A reader of the feed after `position`, for a worker that reads pages ahead of itself.
        package func reader(after position: FeedPosition, batchSize: Int) -> FeedReader {
            FeedReader(store: store, after: position, batchSize: batchSize)
        }

        /// Hands each batch of the feed after `position` to `handle`, until the task is cancelled or
        /// `handle` returns false; a failed read or batch ends it by throwing.
        package func follow(after position: FeedPosition, batchSize: Int, _ handle: ([RecordedEvent]) async throws -> Bool) async throws {
            var reader = reader(after: position, batchSize: batchSize)
            while !Task.isCancelled {
                guard let batch = try await reader.nextBatch(), try await handle(batch) else { return }
            }
        }
    }

    /// The lock and the loop's pacing, as given.
    package let options: Options
    private let store: EventStore
    private let pool: ConnectionPool
    private let state = Mutex(Status())
    private let loop = BackgroundTask()

    /// A follower of `store`'s feed that holds its lock on a connection of its own (`conninfo`, with
    /// `setupStatements` run on connecting); nothing runs until `start` or `claim`.
    package init(store: EventStore, conninfo: String, setupStatements: [String], options: Options) {
        self.store = store
        self.options = options
        pool = ConnectionPool(.init(conninfo: conninfo, size: 1, setupStatements: setupStatements, name: options.connectionName))
    }

    /// Where the follower stands now.
    package var status: Status { state.withLock { $0 } }

    /// Follows in the background: `follow` runs while this follower owns, until it returns (the task
    /// was cancelled) or throws (recorded; ownership is taken again after `Options.retryDelay`).
    /// `stopped` runs each time `follow` ends, before the wait.
    package func start(stopped: (@Sendable () -> Void)? = nil, _ follow: @escaping @Sendable (Owner) async throws -> Void) {
        loop.start {
            while !Task.isCancelled {
                do {
                    guard let owner = try await self.claim() else {
                        try? await Task.sleep(for: self.options.standbyInterval)
                        continue
                    }
                    try await follow(owner)
                } catch {
                    stopped?()
                    self.lost(error)
                    try? await Task.sleep(for: self.options.retryDelay)
                }
            }
            stopped?()
            self.state.withLock { $0.isOwner = false }
        }
    }

    /// Stops the loop (a batch in flight finishes or fails), then closes the connection, which
    /// releases the lock.
    package func stop() async {
        await loop.stop()
        await pool.shutdown()
    }

    /// Takes the lock if it is free, or confirms that this follower's session still holds it; nil
    /// when another node holds it.
    ///
    /// A session that took the lock keeps it until it ends, so on the same session nothing is asked
    /// again; on a new one (the connection was re-established) the lock is taken anew or not at all.
    package func claim() async throws -> Owner? {
        let held = state.withLock { $0.backendPID }
        let (namespace, name) = (String(options.lockNamespace), options.name)
        let (pid, owned) = try await pool.withConnection { connection -> (Int32, Bool) in
            let pid = connection.backendPID
            if held == pid { return (pid, true) }
            let owned = try connection.query("SELECT pg_try_advisory_lock($1, hashtext($2))", [namespace, name]).first?.bool(0) ?? false
            return (pid, owned)
        }
        state.withLock {
            $0.isOwner = owned
            $0.backendPID = owned ? pid : nil
        }
        return owned ? Owner(backendPID: pid, pool: pool, store: store) : nil
    }

    /// Records that following failed: the follower no longer counts as the owner, and takes the lock
    /// again (on whatever session it then has) before it follows on.
    package func lost(_ error: any Error) {
        state.withLock {
            $0.lastError = "\(error)"
            $0.isOwner = false
            $0.backendPID = nil
        }
    }

    /// Records an error without giving up ownership (a write that failed, before the worker reloads).
    package func failed(_ error: any Error) {
        state.withLock { $0.lastError = "\(error)" }
    }

    /// Records where the worker loaded its checkpoint.
    package func loaded(_ checkpoint: FeedPosition) {
        state.withLock { $0.checkpoint = checkpoint }
    }

    /// Records a committed batch: its checkpoint and, if the worker measures it, the lag; clears the last error.
    package func committed(_ checkpoint: FeedPosition, lagSeconds: Double? = nil) {
        state.withLock {
            $0.checkpoint = checkpoint
            if let lagSeconds { $0.lagSeconds = lagSeconds }
            $0.lastError = nil
        }
    }
}
