/// A string compared and hashed by its UTF-8 bytes, as JSON and PostgreSQL `jsonb` compare keys.
///
/// Swift's `String ==` uses canonical equivalence, so `"é"` (U+00E9) equals `"e\u{301}"`;
/// JSON keys are distinct byte sequences, and the canonical form sorts them bytewise.
struct UTF8Key: Hashable {
    let string: String

    init(_ string: String) {
        self.string = string
    }

    static func == (lhs: UTF8Key, rhs: UTF8Key) -> Bool {
        UTF8Key.equal(lhs.string, rhs.string)
    }

    func hash(into hasher: inout Hasher) {
        var text = string
        hasher.combine(text.utf8.count)
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Whether two strings have the same UTF-8 bytes.
    static func equal(_ lhs: String, _ rhs: String) -> Bool {
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        var a = lhs
        var b = rhs
        return a.withUTF8 { x in b.withUTF8 { y in x.elementsEqual(y) } }
    }

    /// Compares two strings by their UTF-8 bytes: negative when `lhs` sorts first, 0 when equal.
    static func compare(_ lhs: String, _ rhs: String) -> Int {
        var a = lhs
        var b = rhs
        return a.withUTF8 { x in
            b.withUTF8 { y in
                let common = min(x.count, y.count)
                var i = 0
                while i < common {
                    if x[i] != y[i] { return Int(x[i]) - Int(y[i]) }
                    i += 1
                }
                return x.count - y.count
            }
        }
    }

    /// Whether `lhs` sorts before `rhs` by UTF-8 bytes (bytewise, ascending).
    static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        var a = lhs
        var b = rhs
        return a.withUTF8 { x in b.withUTF8 { y in x.lexicographicallyPrecedes(y) } }
    }
}
