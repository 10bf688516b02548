import EventStore
import Postgres

/// Waits until one projection has applied a feed position (read-your-writes after a command).
///
/// When this node's runner owns the projection it is asked directly (it wakes on each committed
/// batch); otherwise the stored checkpoint in `projection_checkpoints` is polled, since another
/// node is doing the work, and should this node's runner take the projection over meanwhile the
/// rest of the wait goes to it. Never longer than the timeout; a failed checkpoint read counts as
/// "not yet".
package struct ProjectionWaiter: Sendable {
    /// The projection's name (its row in `projection_checkpoints`).
    package let name: String
    package let pool: ConnectionPool
    /// This node's runner of the projection, if it runs one.
    package let runner: ProjectionRunner?
    /// How long the checkpoint poll sleeps between reads.
    package let pollInterval: Duration
    /// Whether the position must be written to the table, or (false) only folded into the owning
    /// runner's mirror (see `ProjectionRunner.waitUntilApplied(_:timeout:written:)`). On a node that
    /// does not own the projection, the table is all there is.
    package var written = true

    /// - Parameter pollInterval: 5 ms suits a command waiting for its own write; a waiter that may
    ///   be one of many at once and can wait longer (ingest pacing) polls less often.
    package init(name: String, pool: ConnectionPool, runner: ProjectionRunner?, pollInterval: Duration = .milliseconds(5)) {
        self.name = name
        self.pool = pool
        self.runner = runner
        self.pollInterval = pollInterval
    }

    /// Whether the projection has applied `position` within `timeout`.
    package func waitUntilApplied(_ position: FeedPosition, timeout: Duration) async -> Bool {
        if let runner, runner.status.isOwner {
            return await runner.waitUntilApplied(position, timeout: timeout, written: written)
        }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let stored = await storedCheckpoint(), stored >= position { return true }
            if let runner, runner.status.isOwner { return await runner.waitUntilApplied(position, timeout: deadline - ContinuousClock.now, written: written) }
            try? await Task.sleep(for: pollInterval)
        }
        return false
    }

    /// The checkpoint stored for the projection; nil when it cannot be read.
    private func storedCheckpoint() async -> FeedPosition? {
        guard let row = try? await pool.query(
            "SELECT transaction_id::text, global_position FROM projection_checkpoints WHERE name = $1", [name]).first,
            let txid = try? row.uint64(0), let stored = try? row.int64(1) else { return nil }
        return FeedPosition(transactionId: txid, globalPosition: stored)
    }
}
