import Synchronization

/// A projection's in-memory records by document key, each record boxed on the heap.
///
/// A Swift `Dictionary` stores its values inline in a table whose capacity is a power of two and
/// which is kept at most three quarters full. With 50,000 vehicle records of several hundred bytes
/// each (`Vehicle.State` and what a projection adds to it) the table has 131,072 slots and more
/// than half of its bytes are empty slots. Here a slot holds a pointer, and each record takes
/// exactly its own size once.
///
/// Value semantics are kept: a box is never mutated; writing a record stores a new box, so copies
/// of the map (a projector copied before a batch, a model compared with another) never see each
/// other's writes.
///
/// **Letting records go.** A projection whose every record is also stored (its `*_states`
/// documents, written in the batch that changed it) may drop records from memory with `letGo`
/// and read them back before a batch that needs them (`needsRestoring`, `restore`). The map is
/// then *partial*: a key it does not hold may still be stored. Reading such a key that was
/// neither restored nor written in the current batch is noted (`takeUnrestoredReads`), so the
/// runner can refuse to write a batch folded with a record missing.
struct RecordMap<Record: Sendable>: Sendable {
    /// One immutable record on the heap, stamped with the batch that wrote it.
    final class Box: Sendable {
        let record: Record
        let stamp: UInt32

        init(_ record: Record, stamp: UInt32) {
            self.record = record
            self.stamp = stamp
        }
    }

    /// Keys read while let go and not restored; shared by copies (only a partial map notes any).
    final class Misses: Sendable {
        let keys = Mutex<[String]>([])
    }

    private var boxes: [String: Box] = [:]
    /// Counts the batches (`letGo` calls); each box carries the count of the batch that wrote it.
    private var clock: UInt32 = 0
    /// Whether records were let go: a key not held may then be stored.
    private(set) var isPartial = false
    /// Keys whose absence is known for the current batch: restored as absent, or removed.
    private var knownAbsent: Set<String> = []
    private let misses = Misses()
    /// Below this size `letGo` does not look for records to let go (what stayed the last time).
    private var reviewAt = 0

    init() {}

    /// The record stored under `key`; assigning nil removes it.
    subscript(key: String) -> Record? {
        get {
            if let box = boxes[key] { return box.record }
            if isPartial, !knownAbsent.contains(key) { misses.keys.withLock { $0.append(key) } }
            return nil
        }
        set {
            if let newValue {
                boxes[key] = Box(newValue, stamp: clock)
            } else {
                boxes[key] = nil
                if isPartial { knownAbsent.insert(key) }
            }
        }
    }

    /// Removes and returns the record under `key`.
    @discardableResult
    mutating func removeValue(forKey key: String) -> Record? {
        let record = self[key]
        self[key] = nil
        return record
    }

    /// The keys held, in the dictionary's (unspecified) order.
    var keys: Dictionary<String, Box>.Keys { boxes.keys }

    /// How many records are held.
    var count: Int { boxes.count }

    /// Whether none are held.
    var isEmpty: Bool { boxes.isEmpty }

    // MARK: Letting go and restoring

    /// Whether `key` may be stored without being held: it must be restored before it is read.
    func needsRestoring(_ key: String) -> Bool {
        isPartial && boxes[key] == nil && !knownAbsent.contains(key)
    }

    /// Puts back a record read from its stored document; nil: none is stored.
    mutating func restore(_ key: String, _ record: Record?) {
        if let record {
            boxes[key] = Box(record, stamp: clock)
        } else {
            knownAbsent.insert(key)
        }
    }

    /// Ends a batch: when more than `limit` records are held (and a slack of an eighth more), lets
    /// go of the least recently written ones that `releasable` allows until `limit` remain.
    /// Returns how many were let go. Call it only after the batch's changes are drained: a record
    /// let go must be the one stored.
    mutating func letGo(keeping limit: Int, releasable: (String, Record) -> Bool) -> Int {
        clock &+= 1
        knownAbsent.removeAll()
        if boxes.count <= limit { reviewAt = 0 }
        guard boxes.count > Swift.max(limit, reviewAt) + limit / 8 else { return 0 }
        var candidates: [(key: String, stamp: UInt64)] = []
        for (key, box) in boxes where releasable(key, box.record) {
            candidates.append((key, UInt64(box.stamp)))
        }
        let released = LeastRecent.oldest(boxes.count - limit, of: candidates)
        for key in released {
            boxes[key] = nil
        }
        if !released.isEmpty { isPartial = true }
        reviewAt = boxes.count
        return released.count
    }

    /// Keys read since the last call that were neither held, restored nor known absent, sorted, each once.
    func takeUnrestoredReads() -> [String] {
        misses.keys.withLock { keys in
            defer { keys = [] }
            return Set(keys).sorted()
        }
    }
}

extension RecordMap: Sequence {
    struct Iterator: IteratorProtocol {
        var base: Dictionary<String, Box>.Iterator

        mutating func next() -> (key: String, value: Record)? {
            base.next().map { ($0.key, $0.value.record) }
        }
    }

    func makeIterator() -> Iterator { Iterator(base: boxes.makeIterator()) }

    var underestimatedCount: Int { boxes.count }
}

extension RecordMap: Equatable where Record: Equatable {
    static func == (lhs: RecordMap, rhs: RecordMap) -> Bool {
        guard lhs.boxes.count == rhs.boxes.count else { return false }
        for (key, box) in lhs.boxes {
            guard let other = rhs.boxes[key] else { return false }
            if box !== other, box.record != other.record { return false }
        }
        return true
    }
}
