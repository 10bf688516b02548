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
    ///
    /// Reads both strings in place (no copy, no retain), which matters: every member lookup of
    /// an object compares keys this way.
    static func equal(_ lhs: String, _ rhs: String) -> Bool {
        let a = lhs.utf8
        let b = rhs.utf8
        guard a.count == b.count else { return false }
        let result = a.withContiguousStorageIfAvailable { x in
            b.withContiguousStorageIfAvailable { y in bytesEqual(x, y) }
        }
        if let result, let result { return result }
        return a.elementsEqual(b)
    }

    /// Whether two buffers of the same length hold the same bytes, compared 8 bytes at a time.
    @inline(__always)
    private static func bytesEqual(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = x.count
        guard count > 0, let p = x.baseAddress, let q = y.baseAddress else { return true }
        let left = UnsafeRawPointer(p)
        let right = UnsafeRawPointer(q)
        var i = 0
        while i + 8 <= count {
            if left.loadUnaligned(fromByteOffset: i, as: UInt64.self) != right.loadUnaligned(fromByteOffset: i, as: UInt64.self) { return false }
            i += 8
        }
        while i < count {
            if p[i] != q[i] { return false }
            i += 1
        }
        return true
    }

    /// Compares two strings by their UTF-8 bytes: negative when `lhs` sorts first, 0 when equal.
    static func compare(_ lhs: String, _ rhs: String) -> Int {
        let result = lhs.utf8.withContiguousStorageIfAvailable { x in
            rhs.utf8.withContiguousStorageIfAvailable { y in compare(x, y) }
        }
        if let result, let result { return result }
        return compare(Array(lhs.utf8), Array(rhs.utf8))
    }

    private static func compare(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Int {
        let common = min(x.count, y.count)
        var i = 0
        while i < common {
            if x[i] != y[i] { return Int(x[i]) - Int(y[i]) }
            i += 1
        }
        return x.count - y.count
    }

    private static func compare(_ x: [UInt8], _ y: [UInt8]) -> Int {
        x.withUnsafeBufferPointer { a in y.withUnsafeBufferPointer { b in compare(a, b) } }
    }

    /// Whether `lhs` sorts before `rhs` by UTF-8 bytes (bytewise, ascending).
    static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        compare(lhs, rhs) < 0
    }
}
