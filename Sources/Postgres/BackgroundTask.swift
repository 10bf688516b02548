import Synchronization

/// The one background task of a component that owns a connection pool (a feed follower, the
/// retention sweep, the webhook dispatcher's supervisor): started once, and stopped by cancelling it
/// and waiting for it to end, before the component closes its pool.
package final class BackgroundTask: Sendable {
    private let task = Mutex<Task<Void, Never>?>(nil)

    package init() {}

    /// Runs `body` in the background.
    package func start(_ body: @escaping @Sendable () async -> Void) {
        let running = Task { await body() }
        task.withLock { $0 = running }
    }

    /// Cancels the task and waits for it to end (nothing when it never started).
    package func stop() async {
        let running = task.withLock { $0 }
        running?.cancel()
        await running?.value
    }
}
