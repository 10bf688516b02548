import Foundation
import Postgres
import Synchronization

/// Appends signed roots in the background of `waymark serve`: a root every `every` events of
/// the gap-safe feed, or every `interval` when fewer arrived. Any number of nodes may run one;
/// the primary key on the root number lets exactly one write each root.
package final class AuditRootWriter: Sendable {
    private let pool: ConnectionPool
    private let key: [UInt8]
    private let every: Int
    private let interval: Duration
    private let onError: @Sendable (String) -> Void
    private let task = Mutex<Task<Void, Never>?>(nil)

    package init(pool: ConnectionPool, key: [UInt8], every: Int, interval: Duration, onError: @escaping @Sendable (String) -> Void) {
        self.pool = pool
        self.key = key
        self.every = max(1, every)
        self.interval = interval
        self.onError = onError
    }

    package func start() {
        let (pool, key, every, interval, onError) = (self.pool, self.key, self.every, self.interval, self.onError)
        let poll = min(interval, .seconds(1))
        task.withLock {
            $0 = Task {
                let clock = ContinuousClock()
                var lastRoot = clock.now
                while !Task.isCancelled {
                    let force = clock.now - lastRoot >= interval
                    do {
                        let written = try await pool.withConnection { connection in
                            try AuditRoots.appendNext(on: connection, key: key, every: every, force: force)
                        }
                        if let written {
                            lastRoot = clock.now
                            if written.eventCount == Int64(every) { continue }  // more may be waiting
                        }
                    } catch {
                        onError("audit roots: \(error)")
                    }
                    try? await Task.sleep(for: poll)
                }
            }
        }
    }

    /// Stops the loop and waits for it.
    package func stop() async {
        let running = task.withLock { current -> Task<Void, Never>? in
            defer { current = nil }
            return current
        }
        running?.cancel()
        await running?.value
    }
}
