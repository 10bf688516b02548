/// A JSON number, kept as its validated lexeme so no digit is ever lost.
///
/// The lexeme is stored exactly as parsed (`1.50`, `1e2`) or as produced by an initializer
/// (`Int64` decimal text, `Double.description`). It always satisfies the RFC 8259 number
/// grammar and the module's range rule: the normalized decimal exponent is within ±1000.
///
/// Equality and hashing are by numeric value, through ``canonical``: `1.50 == 1.5`,
/// `1e2 == 100`, `-0 == 0`.
package struct JSONNumber: Sendable, Hashable, CustomStringConvertible, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral
{
    /// The number's text, a valid JSON number lexeme.
    package let lexeme: String

    /// Wraps a lexeme that the caller has already validated.
    init(unchecked lexeme: String) {
        self.lexeme = lexeme
    }

    /// Validates `lexeme` as one complete JSON number, throwing the reason it is not one.
    ///
    /// Offsets in the error are byte offsets into `lexeme`.
    package init(validating lexeme: String) throws(JSONError) {
        var text = lexeme
        let result: Result<Void, JSONError> = text.withUTF8 { bytes in
            Result { () throws(JSONError) in
                guard let first = bytes.first else {
                    throw .at(0, .unexpectedEnd, "expected a number")
                }
                guard first == UInt8(ascii: "-") || DecimalLexeme.isDigit(first) else {
                    throw .at(0, .invalidNumber, "expected '-' or a digit at the start of a number")
                }
                let end = try DecimalLexeme.scan(bytes, from: 0)
                if end != bytes.count {
                    throw .at(end, .invalidNumber, "unexpected character after number")
                }
            }
        }
        try result.get()
        self.lexeme = lexeme
    }

    /// Validates `lexeme` as one complete JSON number; `nil` when it is not one or is out of range.
    package init?(lexeme: String) {
        do {
            try self.init(validating: lexeme)
        } catch {
            return nil
        }
    }

    /// The exact decimal text of an integer.
    package init(_ value: Int64) {
        self.lexeme = String(value)
    }

    /// The exact decimal text of an integer.
    package init(_ value: Int) {
        self.lexeme = String(value)
    }

    /// The exact decimal text of an unsigned integer.
    package init(_ value: UInt64) {
        self.lexeme = String(value)
    }

    /// The shortest text that reads back as the same `Double`; `nil` for NaN and ±infinity.
    ///
    /// Uses `Double.description`, which may use exponent notation (`1e-05`, `1e+16`); that is
    /// a valid JSON lexeme. `-0.0` keeps its sign in the lexeme but is canonically `0`.
    /// Note that `JSONNumber(1.5)` with a literal argument is literal coercion (the non-failable
    /// ``init(floatLiteral:)``); this initializer is chosen for `Double` values.
    package init?(_ value: Double) {
        guard value.isFinite else { return nil }
        self.lexeme = value.description
    }

    /// An integer literal, as its exact decimal text.
    package init(integerLiteral value: Int64) {
        self.init(value)
    }

    /// A float literal, as the shortest text that reads back as the same `Double`.
    ///
    /// Literals are always finite, so this never fails.
    package init(floatLiteral value: Double) {
        guard let number = JSONNumber(value) else {
            preconditionFailure("JSON cannot represent \(value)")
        }
        self = number
    }

    /// The nearest `Double`; ±infinity or ±0 when the magnitude is beyond `Double`'s range.
    package var doubleValue: Double {
        // The lexeme is valid, and Swift's parser is correctly rounded and accepts JSON syntax.
        Double(lexeme) ?? .nan
    }

    /// The value as a `Double` the way `JSONValueDecoder` reads one: nil when it is beyond
    /// `Double`'s range (`1e400`).
    package var finiteDouble: Double? {
        guard let double = Double(lexeme), double.isFinite else { return nil }
        return double
    }

    /// The value as a `T` the way `JSONValueDecoder` reads one: when its exact value is an
    /// integer in `T`'s range (`3`, and also `3.0`, `3e0`, `-0`), else nil.
    func exactInteger<T: FixedWidthInteger>(_: T.Type) -> T? {
        // The canonical text of an integral value is a plain integer.
        T(lexeme) ?? T(canonical)
    }

    /// ``exactInteger(_:)`` as an `Int`.
    package var exactInt: Int? { exactInteger(Int.self) }

    /// The value as `Int64` when it is an integer (after normalization) within range, else `nil`.
    ///
    /// `1e2` and `100.0` give 100; `1.5` and `9223372036854775808` give `nil`.
    package var int64Value: Int64? {
        var text = lexeme
        let plain = text.withUTF8 { DecimalLexeme.isPlainInteger($0) }
        return Int64(plain ? lexeme : canonical)
    }

    /// The exact value as canonical decimal text.
    ///
    /// Optional `-`, the integer part without leading zeros (`0` when it is zero), then `.` and
    /// the fraction digits with trailing zeros removed only when the fraction is non-zero; never
    /// an exponent; negative zero is `0`. `1e2` → `100`, `1.50` → `1.5`, `1.5e-3` → `0.0015`.
    /// Computed with digit arithmetic, never through `Double`.
    package var canonical: String {
        var out: [UInt8] = []
        appendCanonical(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the bytes of ``canonical`` to `out`.
    func appendCanonical(to out: inout [UInt8]) {
        var text = lexeme
        text.withUTF8 { DecimalLexeme.appendCanonical(of: $0, to: &out) }
    }

    /// The lexeme.
    package var description: String { lexeme }

    /// Equal when the numeric values are equal, whatever the lexemes look like.
    package static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        lhs.lexeme == rhs.lexeme || lhs.canonical == rhs.canonical
    }

    /// Hashes the numeric value, consistent with `==`.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(canonical)
    }
}
