import Synchronization

/// The latest stretch of the global feed that a reader of this process has read, for the others.
///
/// Every projection runner, the arrival detector and the webhook dispatcher read the whole feed,
/// each from its own checkpoint, and when they keep up they read the same new events within
/// milliseconds of each other: each page once per reader, each row turned into text and decoded
/// again by each. Here the pages read are kept as one run of consecutive events, and a read that
/// starts inside the run is answered from it.
///
/// This keeps the feed's guarantee. A page read from the database is final: it holds every event
/// between the position it was read after and its last event, and no event can appear in that
/// range later (`EventStore.readAll`). The run only ever grows by a page read right after its end,
/// so it is such a range too, and an answer taken from it is the page the database would give. A
/// read that would get fewer events from the run than it asked for reads the rest from the
/// database, so a short page still means that the reader has caught up.
///
/// Readers that keep up all ask for the same new events at once, before any page of them is in
/// the run: in a sustained bench, only 223 of about 1,700 runner page reads were answered from it.
/// So a read from the database is also shared while it is in flight: a reader that needs the
/// events after the same position waits for that read's page (`lead`, `join`, `finish`).
final class FeedCache: Sendable {
    private struct Run {
        /// The position the run was read after (its events come after it).
        var start: FeedPosition
        var events: [RecordedEvent] = []
        /// The position of the last event (`start` when empty).
        var end: FeedPosition { events.last?.feedPosition ?? start }
    }

    private let run = Mutex<Run?>(nil)
    private let capacity: Int
    private let hits = Atomic<Int>(0)
    /// Database reads in flight, by the position each reads after, with the readers waiting for
    /// their page.
    private let reads = Mutex<[FeedPosition: [CheckedContinuation<[RecordedEvent]?, Never>]]>([:])
    private let joins = Atomic<Int>(0)

    /// Keeps at most `capacity` events (the oldest are dropped first).
    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Up to `limit` events after `position` from the run: empty when the run does not hold the
    /// events right after `position`.
    func events(after position: FeedPosition, limit: Int) -> [RecordedEvent] {
        guard limit > 0 else { return [] }
        let found = run.withLock { run -> [RecordedEvent] in
            guard let run, run.start <= position, position < run.end else { return [] }
            // The first event after `position` (positions ascend along the run).
            var low = 0, high = run.events.count
            while low < high {
                let middle = (low + high) / 2
                if run.events[middle].feedPosition <= position { low = middle + 1 } else { high = middle }
            }
            return Array(run.events[low..<Swift.min(run.events.count, low + limit)])
        }
        if !found.isEmpty { hits.add(1, ordering: .relaxed) }
        return found
    }

    /// Takes in `page`, the whole answer of the database to a read after `position`: it extends
    /// the run when it starts where the run ends, and starts a new run when it lies beyond it.
    /// A page from behind the run (a reader catching up) leaves the run alone.
    func add(_ page: [RecordedEvent], after position: FeedPosition) {
        guard !page.isEmpty else { return }
        run.withLock { run in
            if run != nil, run!.end == position {
                // In place: a copy of the run would copy every event it holds.
                run!.events.append(contentsOf: page)
                let excess = run!.events.count - capacity
                if excess > 0 {
                    run!.start = run!.events[excess - 1].feedPosition
                    run!.events.removeFirst(excess)
                }
            } else if run == nil || run!.end < position {
                var fresh = Run(start: position, events: Array(page.suffix(capacity)))
                if page.count > capacity { fresh.start = page[page.count - capacity - 1].feedPosition }
                run = fresh
            }
        }
    }

    /// Reads answered (in part) from the run.
    var hitCount: Int { hits.load(ordering: .relaxed) }

    /// Claims the database read after `position`: true when no other reader of this process is
    /// reading after it (the caller reads, then must call `finish`), false when one is (the
    /// caller may `join` that read).
    func lead(after position: FeedPosition) -> Bool {
        reads.withLock { reads in
            guard reads[position] == nil else { return false }
            reads[position] = []
            return true
        }
    }

    /// The page of the read in flight after `position`, once its reader has it; nil when that
    /// read failed or had already finished.
    func join(after position: FeedPosition) async -> [RecordedEvent]? {
        await withCheckedContinuation { (continuation: CheckedContinuation<[RecordedEvent]?, Never>) in
            let waiting = reads.withLock { reads -> Bool in
                guard reads[position] != nil else { return false }
                reads[position]!.append(continuation)
                return true
            }
            if waiting { joins.add(1, ordering: .relaxed) } else { continuation.resume(returning: nil) }
        }
    }

    /// Ends the read after `position`: its page (nil when it failed) goes to every reader that
    /// joined it.
    func finish(after position: FeedPosition, page: [RecordedEvent]?) {
        let waiting = reads.withLock { $0.removeValue(forKey: position) } ?? []
        for continuation in waiting { continuation.resume(returning: page) }
    }

    /// Reads that waited for another reader's database read instead of making their own.
    var joinCount: Int { joins.load(ordering: .relaxed) }
}
