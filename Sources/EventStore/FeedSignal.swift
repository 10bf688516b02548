import Synchronization

/// Wakes feed readers when new events may be visible.
///
/// A monotonically increasing generation: `notify()` bumps it and resumes every waiter;
/// `wait(after:timeout:)` returns once the generation passed the one the caller saw, the timeout
/// elapsed, or the task was cancelled. Readers take the generation *before* reading, so a
/// notification that arrives between their read and their wait is never lost.
package final class FeedSignal: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var woken: Set<Int> = []
    }

    private let state = Mutex(State())

    package init() {}

    package var generation: UInt64 { state.withLock { $0.generation } }

    package func notify() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.generation &+= 1
            let all = Array(state.waiters.values)
            state.waiters.removeAll()
            return all
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Waits until the generation exceeds `seen`, or `timeout` passes.
    package func wait(after seen: UInt64, timeout: Duration) async {
        let id = state.withLock { state -> Int in
            state.nextWaiter &+= 1
            return state.nextWaiter
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.park(id, after: seen) }
            group.addTask {
                try? await Task.sleep(for: timeout)
                self.wake(id)
            }
            await group.next()
            group.cancelAll()
            self.wake(id)
        }
        state.withLock { _ = $0.woken.remove(id) }
    }

    private func park(_ id: Int, after seen: UInt64) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if state.generation != seen || state.woken.contains(id) { return true }
                state.waiters[id] = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    private func wake(_ id: Int) {
        let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let waiting = state.waiters.removeValue(forKey: id) { return waiting }
            state.woken.insert(id)
            return nil
        }
        continuation?.resume()
    }
}
