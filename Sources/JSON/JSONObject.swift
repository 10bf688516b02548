/// A JSON object: ordered members with unique keys.
///
/// Members keep the order in which they were written or inserted, so ``JSONValue/compactBytes()``
/// reproduces a document's order. Keys are unique by their UTF-8 bytes (not by Swift's
/// canonical-equivalence `String ==`), matching JSON and PostgreSQL `jsonb`.
///
/// Equality ignores member order: two objects are equal when they have the same keys with
/// equal values, which is the same notion of equality as ``JSONValue/canonicalBytes()``.
package struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// One member of an object.
    package typealias Element = (key: String, value: JSONValue)

    /// Objects with more members than this get a hash index for lookups.
    ///
    /// Below it a linear scan is cheaper than hashing the key: keys of other lengths are skipped
    /// at the cost of one comparison, and the parser need not hash the keys of every object.
    private static let indexThreshold = 16

    private var members: [Element]
    /// Key → position in `members`; only kept when `members.count > indexThreshold`.
    private var index: [UTF8Key: Int]?

    /// An empty object.
    package init() {
        members = []
        index = nil
    }

    /// An object with these members in this order.
    ///
    /// - Precondition: no key appears twice. A silent "last wins" would hide bugs.
    package init(_ pairs: [(String, JSONValue)]) {
        self.init()
        members.reserveCapacity(pairs.count)
        // Keys in strictly ascending byte order are unique without looking back; records and
        // documents built by hand list their members that way, and comparing each key with every
        // earlier one was a few percent of a projection runner's time.
        var ascending = true
        for (key, value) in pairs {
            if ascending, let last = members.last, !UTF8Key.precedes(last.key, key) { ascending = false }
            precondition(ascending || !containsKey(key), "duplicate key \(JSONError.quote(key)) in JSONObject")
            appendNew(key, value)
        }
    }

    /// An object with these members in this order, for callers that already made the keys unique
    /// (the encoder sorts and de-duplicates them), so no key is checked here.
    init(uniqueMembers: [Element]) {
        members = uniqueMembers
        index = nil
        rebuildIndex()
    }

    /// An object with these members in this order.
    ///
    /// - Precondition: no key appears twice.
    package init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }

    /// The number of members.
    package var count: Int { members.count }

    /// Whether the object has no members.
    package var isEmpty: Bool { members.isEmpty }

    /// The keys in member order.
    package var keys: [String] { members.map(\.key) }

    /// The values in member order.
    package var values: [JSONValue] { members.map(\.value) }

    /// The value for `key`; setting a new key appends it, setting an existing key replaces the
    /// value in place, setting `nil` removes the member.
    package subscript(key: String) -> JSONValue? {
        get {
            position(of: key).map { members[$0].value }
        }
        set {
            if let position = position(of: key) {
                if let newValue {
                    members[position].value = newValue
                } else {
                    members.remove(at: position)
                    rebuildIndex()
                }
            } else if let newValue {
                appendNew(key, newValue)
            }
        }
    }

    /// Removes the member for `key` and returns its value, if there was one.
    @discardableResult
    package mutating func removeValue(forKey key: String) -> JSONValue? {
        guard let position = position(of: key) else { return nil }
        let value = members.remove(at: position).value
        rebuildIndex()
        return value
    }

    /// Whether there is a member with this key (compared by UTF-8 bytes).
    package func containsKey(_ key: String) -> Bool {
        position(of: key) != nil
    }

    /// Iterates the members in order.
    package func makeIterator() -> IndexingIterator<[Element]> {
        members.makeIterator()
    }

    /// The positions of the members in the order of their keys' UTF-8 bytes, or nil when the
    /// members are in that order already (objects built in key order, as event payloads are).
    ///
    /// Sorts positions, not members: moving a member moves a key and a value, two reference
    /// counts each, and in `bench append` sorting the members that way was 13% of the committer's time.
    var positionsSortedByKeyBytes: [Int]? {
        var sorted = true
        for index in members.indices.dropFirst() where !UTF8Key.precedes(members[index - 1].key, members[index].key) {
            sorted = false
            break
        }
        guard !sorted else { return nil }
        var order = Array(members.indices)
        // Insertion sort: objects are small, and positions are cheap to move.
        for next in 1..<order.count {
            let moving = order[next]
            var slot = next
            while slot > 0, UTF8Key.precedes(members[moving].key, members[order[slot - 1]].key) {
                order[slot] = order[slot - 1]
                slot -= 1
            }
            order[slot] = moving
        }
        return order
    }

    /// The member at `position` (0-based, in the object's order).
    subscript(position position: Int) -> Element { members[position] }

    /// The members sorted by the UTF-8 bytes of their keys, for the canonical form; objects built
    /// in key order (event payloads are) need no sort and no copy.
    var membersSortedByKeyBytes: [Element] {
        positionsSortedByKeyBytes.map { order in order.map { members[$0] } } ?? members
    }

    /// Appends a member whose key the caller knows is not present yet.
    mutating func appendNew(_ key: String, _ value: JSONValue) {
        members.append((key, value))
        if index != nil {
            index![UTF8Key(key)] = members.count - 1
        } else if members.count > JSONObject.indexThreshold {
            rebuildIndex()
        }
    }

    private func position(of key: String) -> Int? {
        if let index {
            return index[UTF8Key(key)]
        }
        return members.firstIndex { UTF8Key.equal($0.key, key) }
    }

    private mutating func rebuildIndex() {
        guard members.count > JSONObject.indexThreshold else {
            index = nil
            return
        }
        var rebuilt = [UTF8Key: Int](minimumCapacity: members.count)
        for (position, member) in members.enumerated() {
            rebuilt[UTF8Key(member.key)] = position
        }
        index = rebuilt
    }

    /// Equal when both have the same keys with equal values, in any order.
    package static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for (key, value) in lhs.members {
            guard let other = rhs[key], other == value else { return false }
        }
        return true
    }

    /// Hashes the members independently of their order, consistent with `==`.
    package func hash(into hasher: inout Hasher) {
        var combined = 0
        for (key, value) in members {
            var memberHasher = Hasher()
            memberHasher.combine(UTF8Key(key))
            memberHasher.combine(value)
            combined = combined &+ memberHasher.finalize()
        }
        hasher.combine(members.count)
        hasher.combine(combined)
    }
}
