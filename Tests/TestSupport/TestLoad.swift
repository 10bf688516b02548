import Foundation
import Synchronization

/// Caps how many tests that touch PostgreSQL run at once.
///
/// Swift Testing starts every test of a run at the same time. A storage test creates a database,
/// migrates it, opens pools and often spawns `waymark serve` (about ten connections each), so an
/// unbounded run exceeded the test cluster's `max_connections` and starved the projections into
/// 503s, by chance of scheduling. Every entry point that creates storage (`withTestDatabase`,
/// `PrivateCluster`, `ReplicatedCluster`) holds one slot for the test's whole body; a nested entry
/// point in the same task tree reuses its test's slot, so a test with two databases or two servers
/// never waits on itself. `make test` also sets Swift Testing's parallelization width to the same
/// `WAYMARK_TEST_SLOTS` (default 8), so there a test never waits here and its time limit counts only
/// its own run; a plain `swift test` stays bounded too, with queued tests' time limits running.
package enum TestLoad {
    /// How many storage tests may run at once.
    package static let slots: Int = {
        if let text = ProcessInfo.processInfo.environment["WAYMARK_TEST_SLOTS"], let value = Int(text), value > 0 { return value }
        return 8
    }()

    @TaskLocal static var holdsSlot = false

    private static let semaphore = TestSemaphore(permits: slots)

    /// Runs `body` holding one slot, or in the slot the calling task already holds.
    package static func withSlot<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        if holdsSlot { return try await body() }
        await semaphore.acquire()
        defer { semaphore.release() }
        return try await $holdsSlot.withValue(true) { try await body() }
    }
}

/// A counting semaphore for async code that hands permits out first come, first served.
final class TestSemaphore: Sendable {
    private struct State {
        var available: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    init(permits: Int) { state = Mutex(State(available: permits)) }

    func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state -> Bool in
                if state.available > 0 {
                    state.available -= 1
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if granted { continuation.resume() }
        }
    }

    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.available += 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
