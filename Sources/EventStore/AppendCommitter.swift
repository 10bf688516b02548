import Foundation
import JSON
import Postgres
import Synchronization

/// Group commit: appends that arrive together share one transaction.
///
/// Callers queue units (one `append` or one `appendBatch`); a committer thread takes every unit
/// waiting, up to `maxGroupEvents`, and commits them in one transaction of two round trips:
///
/// 1. `BEGIN`; lock the heads of the touched streams (`FOR UPDATE`, in stream-id order so two
///    committers never deadlock); look up the event ids already stored.
/// 2. Insert events and their ids in one statement, insert/update stream heads, `pg_notify`, `COMMIT`.
///
/// Between the two, the expected-version checks and idempotency decisions are made in Swift, append
/// by append, so a failed check fails only its own append and never the rest of its group. Hashes,
/// canonical JSON and SQL text are prepared before the transaction starts, keeping lock hold short.
/// A unique violation (another node created the same stream or stored the same event id in the
/// meantime), a serialization failure or a deadlock retries the whole group; a lost connection
/// fails it as `unavailable`, and a retry with the same event ids is idempotent.
final class AppendCommitter: Sendable {
    struct Settings: Sendable {
        var conninfo: String
        var setupStatements: [String]
        var committers: Int
        var maxGroupEvents: Int
        var notifyChannel: String
        var clock: @Sendable () -> Int64
    }

    private let queue: UnitQueue
    private let settings: Settings
    private let clock: MonotonicMicros
    private let exited: DispatchSemaphore

    init(settings: Settings, onCommit: @escaping @Sendable () -> Void) {
        self.settings = settings
        self.queue = UnitQueue()
        self.clock = MonotonicMicros(settings.clock)
        self.exited = DispatchSemaphore(value: 0)
        for index in 0..<max(1, settings.committers) {
            let worker = CommitterWorker(settings: settings, queue: queue, clock: clock, onCommit: onCommit)
            let exited = self.exited
            let thread = Thread {
                worker.run()
                exited.signal()
            }
            thread.name = "append-committer-\(index)"
            thread.start()
        }
    }

    /// Queues `appends` as one unit and waits for their results (in order).
    func submit(_ appends: [StreamAppend]) async -> [Result<AppendResult, EventStoreError>] {
        await withCheckedContinuation { continuation in
            let unit = PendingUnit(appends: appends) { continuation.resume(returning: $0) }
            if !queue.enqueue(unit) {
                let error = EventStoreError(.unavailable, "the event store is shutting down")
                continuation.resume(returning: appends.map { _ in .failure(error) })
            }
        }
    }

    /// Commits what is queued, then stops the committer threads.
    func shutdown() async {
        queue.close()
        let exited = self.exited
        let count = max(1, settings.committers)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread {
                for _ in 0..<count { exited.wait() }
                continuation.resume()
            }.start()
        }
    }
}

/// One queued `append` or `appendBatch` call.
struct PendingUnit: Sendable {
    let appends: [StreamAppend]
    let complete: @Sendable ([Result<AppendResult, EventStoreError>]) -> Void

    var eventCount: Int { appends.reduce(0) { $0 + $1.events.count } }
}

/// Wall-clock microseconds that never go backwards within the process (shared by all committers).
final class MonotonicMicros: Sendable {
    private let last = Mutex<Int64>(0)
    private let source: @Sendable () -> Int64

    init(_ source: @escaping @Sendable () -> Int64) { self.source = source }

    func now() -> Int64 {
        let reading = source()
        return last.withLock { last in
            last = max(last, reading)
            return last
        }
    }

    static func wallClock() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1_000_000 + Int64(spec.tv_nsec) / 1000
    }
}

/// The queue of units waiting for a committer.
///
/// `@unchecked Sendable`: every stored property is accessed only while `condition` is locked.
final class UnitQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var units: [PendingUnit] = []
    private var closed = false

    func enqueue(_ unit: PendingUnit) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return false }
        units.append(unit)
        condition.signal()
        return true
    }

    /// Waits for work and takes every waiting unit up to `maxEvents` events (at least one unit);
    /// nil once closed and drained.
    func takeGroup(maxEvents: Int) -> [PendingUnit]? {
        condition.lock()
        defer { condition.unlock() }
        while units.isEmpty && !closed { condition.wait() }
        guard !units.isEmpty else { return nil }
        var taken = 0
        var events = 0
        while taken < units.count {
            let count = units[taken].eventCount
            if taken > 0 && events + count > maxEvents { break }
            events += count
            taken += 1
        }
        let group = Array(units.prefix(taken))
        units.removeFirst(taken)
        return group
    }

    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
