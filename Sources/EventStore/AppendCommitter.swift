import Foundation
import JSON
import Postgres
import Synchronization

/// Group commit: appends that arrive together share one transaction.
///
/// Callers queue units (one `append` or one `appendBatch`); a committer thread takes every unit
/// waiting, up to `maxGroupEvents`, and commits them in one transaction.
///
/// Fast path, one round trip: when every touched stream's head (version, last hash) is in the
/// shared `HeadCache` and every append passes its version check against it, the group is written
/// as one pipeline: guarded head updates (`version = cached version`, asserted to all match),
/// events and event ids in one statement, `COMMIT`, then `pg_notify` (see
/// `CommitterWorker.notification`). The cache is only ever behind the database (it is updated
/// after commit), so a stale entry makes the assertion abort the transaction, and the group is
/// retried on the locking path.
///
/// Locking path, two round trips, for new or uncached streams, version conflicts, stale cache
/// entries and duplicate event ids:
/// 1. `BEGIN`; lock the heads of the touched streams (`FOR UPDATE`, in stream-id order so two
///    committers never deadlock); look up the event ids already stored.
/// 2. Insert events and their ids in one statement, insert/update stream heads, `COMMIT`, `pg_notify`.
///
/// Either way the expected-version checks and idempotency decisions are made in Swift, append by
/// append, so a failed check fails only its own append and never the rest of its group. Hashes,
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
    private let heads: HeadCache
    private let exited: DispatchSemaphore
    let statistics = AppendStatistics()

    init(settings: Settings, onCommit: @escaping @Sendable () -> Void) {
        self.settings = settings
        self.queue = UnitQueue()
        self.clock = MonotonicMicros(settings.clock)
        self.heads = HeadCache()
        self.exited = DispatchSemaphore(value: 0)
        for index in 0..<max(1, settings.committers) {
            let worker = CommitterWorker(settings: settings, queue: queue, clock: clock, heads: heads, statistics: statistics, onCommit: onCommit)
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
package final class MonotonicMicros: Sendable {
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

    package static func wallClock() -> Int64 {
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

/// The last known head (version, hash) of recently written streams, shared by the committers.
///
/// Entries are written only after a commit, so they can be behind the database (another node
/// appended) but never ahead of it; the fast path's guarded update detects the first case.
final class HeadCache: Sendable {
    struct Head: Sendable {
        let version: Int64
        let hash: [UInt8]
    }

    private let heads = Mutex<[String: Head]>([:])
    private let capacity: Int

    init(capacity: Int = 200_000) { self.capacity = capacity }

    /// Heads for all of `streams`, or nil when any is missing.
    func lookup(_ streams: some Sequence<String>) -> [String: Head]? {
        heads.withLock { cache in
            var found: [String: Head] = [:]
            found.reserveCapacity(streams.underestimatedCount)
            for stream in streams {
                guard let head = cache[stream] else { return nil }
                found[stream] = head
            }
            return found
        }
    }

    func store(_ updates: some Sequence<(String, Head)>) {
        heads.withLock { cache in
            for (stream, head) in updates {
                if cache.count >= capacity { cache.removeAll(keepingCapacity: true) }
                cache[stream] = head
            }
        }
    }

    func forget(_ streams: some Sequence<String>) {
        heads.withLock { cache in for stream in streams { cache.removeValue(forKey: stream) } }
    }
}

/// Counters of the committers' work, for metrics and tests.
package final class AppendStatistics: Sendable {
    private let fast = Atomic<Int>(0)
    private let locking = Atomic<Int>(0)
    private let retries = Atomic<Int>(0)
    private let events = Atomic<Int>(0)
    private let slow = Mutex<[SlowGroup]>([])

    /// A group whose commit took at least `slowGroupMicros`, for finding stalls (bench logs, metrics).
    package struct SlowGroup: Sendable, Hashable {
        /// Wall-clock microseconds when the group was taken from the queue and when it was answered.
        package let startedAtMicros: Int64
        package let endedAtMicros: Int64
        package let events: Int
    }

    /// Groups slower than this are kept in `slowGroups`.
    package static let slowGroupMicros: Int64 = 100_000
    /// The most recent slow groups kept.
    static let slowGroupsKept = 32

    /// The most recent groups that took `slowGroupMicros` or more, oldest first.
    package var slowGroups: [SlowGroup] { slow.withLock { $0 } }

    /// A snapshot of the counters.
    package struct Snapshot: Sendable, Hashable {
        /// Groups committed in one round trip with cached stream heads.
        package let fastPathGroups: Int
        /// Groups committed on the locking path (two round trips).
        package let lockingGroups: Int
        /// Attempts that were rolled back and retried (stale cache, concurrent writers).
        package let retries: Int
        /// Events written.
        package let events: Int
    }

    package var snapshot: Snapshot {
        Snapshot(fastPathGroups: fast.load(ordering: .relaxed), lockingGroups: locking.load(ordering: .relaxed),
                 retries: retries.load(ordering: .relaxed), events: events.load(ordering: .relaxed))
    }

    func committed(fastPath: Bool, events count: Int) {
        if fastPath { fast.add(1, ordering: .relaxed) } else { locking.add(1, ordering: .relaxed) }
        events.add(count, ordering: .relaxed)
    }

    func retried() { retries.add(1, ordering: .relaxed) }

    /// Keeps the group that began at `startedAtMicros` if it was slow; `count` is asked only then.
    func finished(startedAtMicros: Int64, events count: @autoclosure () -> Int) {
        let ended = MonotonicMicros.wallClock()
        guard ended - startedAtMicros >= Self.slowGroupMicros else { return }
        slow.withLock { groups in
            groups.append(SlowGroup(startedAtMicros: startedAtMicros, endedAtMicros: ended, events: count()))
            if groups.count > Self.slowGroupsKept { groups.removeFirst(groups.count - Self.slowGroupsKept) }
        }
    }
}
