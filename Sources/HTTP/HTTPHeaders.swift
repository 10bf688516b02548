/// Ordered HTTP header fields with case-insensitive lookup.
///
/// Every field is kept in the order it was received, repeated names included (HTTP allows several
/// `Accept` or `Cookie` lines). Lookups compare names ASCII case-insensitively, as HTTP requires;
/// values are returned exactly as received.
package struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    /// One header line.
    package typealias Field = (name: String, value: String)

    /// The fields in order.
    package private(set) var fields: [Field]

    /// Headers with these fields, in this order.
    package init(_ fields: [Field] = []) {
        self.fields = fields
    }

    /// Builds headers from a literal; repeated names are allowed and kept.
    package init(dictionaryLiteral elements: (String, String)...) {
        self.fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// How many fields there are (repeated names count once per line).
    package var count: Int { fields.count }

    /// The first value of the named header, or nil.
    package subscript(_ name: String) -> String? {
        fields.first { Self.namesMatch($0.name, name) }?.value
    }

    /// Every value of the named header, in order.
    package func values(_ name: String) -> [String] {
        fields.filter { Self.namesMatch($0.name, name) }.map(\.value)
    }

    /// True when at least one field has this name.
    package func contains(_ name: String) -> Bool {
        fields.contains { Self.namesMatch($0.name, name) }
    }

    /// Appends a field (an existing field of the same name is kept).
    package mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Removes every field with this name.
    package mutating func remove(_ name: String) {
        fields.removeAll { Self.namesMatch($0.name, name) }
    }

    /// Iterates the fields in order.
    package func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }

    /// ASCII case-insensitive comparison of two header names, without allocating.
    static func namesMatch(_ a: String, _ b: String) -> Bool {
        var left = a.utf8.makeIterator()
        var right = b.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil):
                return true
            case let (x?, y?):
                if x == y { continue }
                if lowercase(x) != lowercase(y) { return false }
            default:
                return false
            }
        }
    }

    private static func lowercase(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
