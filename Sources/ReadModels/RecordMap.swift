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
struct RecordMap<Record: Sendable>: Sendable {
    /// One immutable record on the heap.
    final class Box: Sendable {
        let record: Record

        init(_ record: Record) {
            self.record = record
        }
    }

    private var boxes: [String: Box] = [:]

    init() {}

    /// The record stored under `key`; assigning nil removes it.
    subscript(key: String) -> Record? {
        get { boxes[key]?.record }
        set { boxes[key] = newValue.map(Box.init) }
    }

    /// Removes and returns the record under `key`.
    @discardableResult
    mutating func removeValue(forKey key: String) -> Record? {
        boxes.removeValue(forKey: key)?.record
    }

    /// The keys, in the dictionary's (unspecified) order.
    var keys: Dictionary<String, Box>.Keys { boxes.keys }

    /// How many records there are.
    var count: Int { boxes.count }

    /// Whether there are none.
    var isEmpty: Bool { boxes.isEmpty }
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
