import EventStore
import Projections
import Synchronization

/// Keeps batch ingest within reach of the projections riders and fleets read.
///
/// `reportLocations` answers once its batch is durable, without waiting for the read models, so a
/// gateway sending faster than the journey and fleet projections can apply would leave them
/// further behind the longer it goes on: riders' maps ever staler, and nothing telling the sender.
/// The pacer bounds that backlog. Before a batch is decided, it waits until both projections have
/// applied everything this node appended more than `maximumBacklog` events ago; then the batch goes
/// on as usual. A short burst never waits (the backlog it leaves stays under the bound); sustained
/// overload is slowed to the projections' pace, each request answered later instead of refused.
///
/// The wait is bounded by `timeout` (the consistency timeout): a projection that does not move at
/// all (stopped, or held back by a long transaction) slows ingest to one batch per connection per
/// timeout, but never refuses reports, which are the one thing that cannot be sent again later.
///
/// The backlog is counted per node, from the appends this node made: with several nodes ingesting,
/// each keeps its own share under the bound.
package final class IngestPacer: Sendable {
    /// Events a projection may be behind this node's batch ingest by default: about half a minute
    /// of the journey and fleet projections' pace under full load on the two-core machine of
    /// BENCHMARKS.md, so bursts of tens of seconds pass untouched and only sustained overload waits.
    /// (At 200,000, the 10 s batch case of `bench ingest` already waited, after its warm-up.)
    package static let defaultMaximumBacklog = 500_000

    /// A batch's end: events this node had appended through it, and its feed position.
    private struct Mark {
        var appendedThrough: Int64
        var position: FeedPosition
    }

    private struct State {
        /// Events this node appended by batch ingest since it started.
        var appended: Int64 = 0
        /// Recent batch ends, oldest first: those still needed to find a wait's position.
        var marks: [Mark] = []
        /// Per projection, the furthest position known applied (saves asking again).
        var applied: [String: FeedPosition] = [:]
        var waits: UInt64 = 0
        var timeouts: UInt64 = 0
        var waitedMicros: Int64 = 0
    }

    /// 0: no pacing.
    package let maximumBacklog: Int
    let timeout: Duration
    /// Fewer events than this between two marks: the later batch moves the last mark instead of adding one.
    private let granularity: Int64
    private let waiters: [ProjectionWaiter]
    private let state = Mutex(State())
    /// Set while nothing is meant to apply the feed on purpose (`bench ingest` with its runners stopped).
    private let suspended = Atomic(false)

    package init(maximumBacklog: Int, timeout: Duration, waiters: [ProjectionWaiter]) {
        self.maximumBacklog = maximumBacklog
        self.timeout = timeout
        self.waiters = waiters
        granularity = Int64(max(1, maximumBacklog / 256))
    }

    /// Notes a committed batch of `events` new events ending at `position`.
    func appended(_ events: Int, through position: FeedPosition) {
        guard maximumBacklog > 0, events > 0 else { return }
        state.withLock { state in
            state.appended += Int64(events)
            let count = state.marks.count
            if let last = state.marks.last, last.position >= position {
                // Committed after a batch that ends later in the feed: counted with that one.
                state.marks[count - 1].appendedThrough = state.appended
            } else if count >= 2, state.marks[count - 1].appendedThrough - state.marks[count - 2].appendedThrough < granularity {
                // Small batches share a mark (waits then ask for a slightly later position), so
                // the list stays at a few hundred marks whatever the batch size.
                state.marks[count - 1] = Mark(appendedThrough: state.appended, position: position)
            } else {
                state.marks.append(Mark(appendedThrough: state.appended, position: position))
            }
        }
    }

    /// The position every projection must have applied before the next batch: the end of the
    /// oldest batch after which at most `maximumBacklog` events were appended. Marks older than it
    /// are no longer needed and go.
    func target() -> FeedPosition? {
        state.withLock { state in
            let bound = state.appended - Int64(maximumBacklog)
            guard bound > 0, let index = state.marks.firstIndex(where: { $0.appendedThrough >= bound }) else { return nil }
            state.marks.removeFirst(index)
            return state.marks.first?.position
        }
    }

    /// Waits, at most `timeout`, until the projections are within the bound of this node's ingest.
    func pace() async {
        guard maximumBacklog > 0, !suspended.load(ordering: .relaxed), let position = target() else { return }
        let pending = waiters.filter { waiter in state.withLock { ($0.applied[waiter.name] ?? .start) < position } }
        guard !pending.isEmpty else { return }
        let started = ContinuousClock.now
        var reached = true
        for waiter in pending {
            let remaining = timeout - (ContinuousClock.now - started)
            if remaining > .zero, await waiter.waitUntilApplied(position, timeout: remaining) {
                state.withLock { $0.applied[waiter.name] = max($0.applied[waiter.name] ?? .start, position) }
            } else {
                reached = false
                break
            }
        }
        let waited = ContinuousClock.now - started
        state.withLock { state in
            if waited > .milliseconds(1) || !reached { state.waits += 1 }
            if !reached { state.timeouts += 1 }
            state.waitedMicros += waited.components.seconds * 1_000_000 + waited.components.attoseconds / 1_000_000_000_000
        }
    }

    /// Batch ends kept (for tests: small batches share marks).
    var markCount: Int { state.withLock { $0.marks.count } }

    /// Stops (or resumes) waiting, for a benchmark that stops the projections on purpose.
    package func suspend(_ on: Bool) {
        suspended.store(on, ordering: .relaxed)
    }

    /// How often requests waited, how many of those waits ran out, and the seconds spent waiting.
    package struct Counts: Sendable {
        package var waits: UInt64
        package var timeouts: UInt64
        package var waitedSeconds: Double
    }

    package var counts: Counts {
        state.withLock { Counts(waits: $0.waits, timeouts: $0.timeouts, waitedSeconds: Double($0.waitedMicros) / 1e6) }
    }

    /// `/metrics` lines.
    package func metricLines() -> [String] {
        guard maximumBacklog > 0 else { return [] }
        let status = counts
        return ["# HELP waymark_ingest_paced_requests_total reportLocations requests that waited for the journey and fleet projections (WAYMARK_INGEST_MAX_BACKLOG).",
                "# TYPE waymark_ingest_paced_requests_total counter", "waymark_ingest_paced_requests_total \(status.waits)",
                "# HELP waymark_ingest_pace_timeouts_total Paced reportLocations requests that went on after the consistency timeout, the projections still behind.",
                "# TYPE waymark_ingest_pace_timeouts_total counter", "waymark_ingest_pace_timeouts_total \(status.timeouts)",
                "# HELP waymark_ingest_paced_seconds_total Seconds reportLocations requests spent waiting for the projections.",
                "# TYPE waymark_ingest_paced_seconds_total counter", "waymark_ingest_paced_seconds_total \(Metrics.format(status.waitedSeconds))"]
    }
}
