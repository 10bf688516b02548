import EventStore
import Foundation
import JSON
import Postgres
import ReadModels
import Synchronization

/// Keeps one projection's read model up to date from the live feed.
///
/// Each batch of events is folded into the in-memory projector, and the changed documents are
/// written together with the checkpoint in one transaction, guarded by the checkpoint that was
/// read (fencing): if another runner or a rebuild moved it, the batch is abandoned and the runner
/// reloads. So every event affects the read model exactly once across crashes and restarts.
///
/// Of several runners (several `waymark serve` nodes), one owns the projection through a
/// session-level advisory lock; the others stand by and take over when the owner's session ends.
/// The owner announces each batch's changed documents on `waymark_<name>` (`ProjectionNotification`),
/// so the others can push them to their own clients without waiting for a poll.
package final class ProjectionRunner: Sendable {
    /// Tuning and test hooks.
    package struct Options: Sendable {
        package var batchSize: Int
        package var standbyInterval: Duration
        /// Runs after a batch is written and before it commits (tests simulate crashes here).
        package var beforeCommit: (@Sendable (Connection) throws -> Void)?
        /// Kept equal to the stored documents while this runner owns the projection.
        package var mirror: DocumentMirror?
        /// Changes to these collections are announced with a `ProjectionNotification` in each batch's
        /// transaction (other nodes push them to their clients); empty: nothing is sent.
        package var notifyCollections: Set<String>

        package init(batchSize: Int = 1000, standbyInterval: Duration = .seconds(1), beforeCommit: (@Sendable (Connection) throws -> Void)? = nil,
                     mirror: DocumentMirror? = nil, notifyCollections: Set<String> = []) {
            self.batchSize = batchSize
            self.standbyInterval = standbyInterval
            self.beforeCommit = beforeCommit
            self.mirror = mirror
            self.notifyCollections = notifyCollections
        }
    }

    /// What the runner is doing, for metrics and readiness.
    package struct Status: Sendable, Hashable {
        package var isOwner = false
        package var checkpoint = FeedPosition.start
        package var eventsApplied: Int64 = 0
        /// Seconds from the last applied event's recording to its batch's commit.
        package var lagSeconds: Double = 0
        package var batchesAbandoned = 0
        /// Events the projector could not apply since this runner loaded it (undecodable payloads).
        package var skippedEvents = 0
        package var lastError: String?
    }

    package let name: String
    private let store: EventStore
    private let pool: ConnectionPool
    private let options: Options
    private let makeProjector: @Sendable () -> any Projector
    private let state = Mutex(Status())
    /// Notified after every committed batch (read-your-writes waiters park on it).
    private let progress = FeedSignal()
    private let task = Mutex<Task<Void, Never>?>(nil)

    package init(store: EventStore, conninfo: String, setupStatements: [String] = [], options: Options = Options(),
                 projector: @escaping @Sendable () -> any Projector) {
        self.store = store
        self.options = options
        self.makeProjector = projector
        self.name = projector().name
        self.pool = ConnectionPool(.init(conninfo: conninfo, size: 1, setupStatements: setupStatements, name: "projector-\(name)"))
    }

    package var status: Status { state.withLock { $0 } }

    /// Starts the loop in the background.
    package func start() {
        let loop = Task { await self.run() }
        task.withLock { $0 = loop }
    }

    /// Stops the loop (a batch in flight finishes or rolls back) and closes the connection,
    /// which releases the ownership lock.
    package func stop() async {
        let running = task.withLock { $0 }
        running?.cancel()
        await running?.value
        await pool.shutdown()
    }

    private func run() async {
        let readModels: ReadModelStore
        do { readModels = try ReadModelStore(name: name) } catch {
            state.withLock { $0.lastError = "\(error)" }
            return
        }
        while !Task.isCancelled {
            do {
                guard try await acquireOwnership() else {
                    try? await Task.sleep(for: options.standbyInterval)
                    continue
                }
                try await follow(readModels)
            } catch {
                options.mirror?.invalidate()
                state.withLock {
                    $0.lastError = "\(error)"
                    $0.isOwner = false
                }
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        options.mirror?.invalidate()
        state.withLock { $0.isOwner = false }
    }

    /// Takes the projection's advisory lock on this runner's session, if free.
    private func acquireOwnership() async throws -> Bool {
        let name = self.name
        let owned = try await pool.withConnection { connection in
            try connection.query("SELECT pg_try_advisory_lock($1, hashtext($2))", [String(Self.lockNamespace), name]).first?.bool(0) ?? false
        }
        state.withLock { $0.isOwner = owned }
        return owned
    }

    static let lockNamespace: Int32 = 0x574D  // "WM"

    /// Loads the model and follows the feed until fenced, disconnected or cancelled.
    private func follow(_ readModels: ReadModelStore) async throws {
        let (lockPID, loaded) = try await pool.withConnection { connection in
            (connection.backendPID, try readModels.load(connection))
        }
        var (checkpoint, documents) = loaded
        var projector = makeProjector()
        projector.load(documents)
        options.mirror?.reset(documents)
        documents = []
        state.withLock {
            $0.checkpoint = checkpoint.position
            $0.eventsApplied = checkpoint.eventsApplied
        }
        var reader = FeedReader(store: store, after: checkpoint.position, batchSize: options.batchSize)
        while !Task.isCancelled {
            guard let batch = try await reader.nextBatch() else { return }
            for event in batch { projector.apply(event) }
            let changes = projector.drainChanges()
            let target = batch.last!.feedPosition
            // The notification is sent at commit, with the documents: a listener that re-reads on it sees this batch.
            let notification = ProjectionNotification.payload(changes, collections: options.notifyCollections)
                .map { [ProjectionNotification.statement(projection: name, payload: $0)] } ?? []
            let statements = readModels.batchStatements(changes, from: checkpoint, to: target, events: batch.count) + notification
            let beforeCommit = options.beforeCommit
            let outcome: Result<Void, any Error> = await {
                do {
                    try await pool.withConnection { connection in
                        // The session that holds the lock must be the one that writes.
                        guard connection.backendPID == lockPID else {
                            throw ProjectionError(.fenced, "the projector's session changed; ownership must be taken again")
                        }
                        // A read model is derived data: its commit need not wait for the WAL flush. A
                        // crash can lose only the latest batches, documents and checkpoint together,
                        // and they are applied again from the (durable) log.
                        let begin = [Statement("BEGIN"), Statement("SET LOCAL synchronous_commit = off")]
                        if let beforeCommit {
                            _ = try connection.pipeline(begin + statements)
                            try beforeCommit(connection)
                            try connection.execute("COMMIT")
                        } else {
                            _ = try connection.pipeline(begin + statements + [Statement("COMMIT")])
                        }
                    }
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }()
            if case .failure(let error) = outcome {
                options.mirror?.invalidate()
                _ = try? await pool.withConnection { connection in
                    if connection.isHealthy && connection.inTransaction { try connection.execute("ROLLBACK") }
                }
                state.withLock {
                    $0.batchesAbandoned += 1
                    $0.lastError = "\(error)"
                }
                throw error  // reload from what is stored
            }
            options.mirror?.apply(changes)
            checkpoint = ReadModelStore.Checkpoint(position: target, eventsApplied: checkpoint.eventsApplied + Int64(batch.count),
                                                   generation: checkpoint.generation)
            let lag = Double(MonotonicMicros.wallClock() - batch.last!.recordedAtMicros) / 1_000_000
            state.withLock {
                $0.checkpoint = target
                $0.eventsApplied = checkpoint.eventsApplied
                $0.lagSeconds = max(0, lag)
                $0.skippedEvents = projector.skippedEvents
                $0.lastError = nil
            }
            progress.notify()
        }
    }

    /// Waits until the runner has applied everything up to `position` (read-your-writes), or `timeout` passes.
    ///
    /// Wakes on each committed batch rather than polling, so the wait ends as soon as the batch
    /// holding `position` commits. Only meaningful while this runner owns the projection.
    package func waitUntilApplied(_ position: FeedPosition, timeout: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            let seen = progress.generation
            if state.withLock({ $0.checkpoint >= position }) { return true }
            let now = ContinuousClock.now
            guard now < deadline else { return false }
            await progress.wait(after: seen, timeout: min(deadline - now, .milliseconds(250)))
        }
    }
}
