/// A JSON value that keeps object member order as written.
///
/// Numbers keep their lexeme (see ``JSONNumber``), objects keep member order (see
/// ``JSONObject``), strings are Swift strings. Equality is by JSON value, the same notion the
/// canonical form uses: object member order does not matter, numbers compare by exact decimal
/// value (`1.50 == 1.5`), strings compare by their UTF-8 bytes (not by Swift's canonical
/// equivalence). So `a == b` exactly when `a.canonicalBytes() == b.canonicalBytes()`.
package enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, kept as its lexeme.
    case number(JSONNumber)
    /// A string.
    case string(String)
    /// An array, in order.
    case array([JSONValue])
    /// An object, in member order.
    case object(JSONObject)

    /// Equal when the JSON values are equal (see the type's documentation).
    package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.number(a), .number(b)): a == b
        case let (.string(a), .string(b)): UTF8Key.equal(a, b)
        case let (.array(a), .array(b)): a == b
        case let (.object(a), .object(b)): a == b
        default: false
        }
    }

    /// Hashes the JSON value, consistent with `==`.
    package func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0 as UInt8)
        case .bool(let value):
            hasher.combine(1 as UInt8)
            hasher.combine(value)
        case .number(let value):
            hasher.combine(2 as UInt8)
            hasher.combine(value)
        case .string(let value):
            hasher.combine(3 as UInt8)
            hasher.combine(UTF8Key(value))
        case .array(let value):
            hasher.combine(4 as UInt8)
            hasher.combine(value)
        case .object(let value):
            hasher.combine(5 as UInt8)
            hasher.combine(value)
        }
    }
}
