/// Writes the canonical bytes of a JSON value (see ``JSONValue/canonicalBytes()``) directly, for
/// payloads so hot that building a ``JSONValue`` first costs more than the rest of their path.
///
/// The caller gives every object's members in ascending byte order of their keys, as the
/// canonical form sorts them; the writer does not sort. Numbers and strings are written as
/// ``JSONValue/canonicalBytes()`` writes them, so a value written here and the same value built
/// as a ``JSONValue`` give identical bytes (the tests of each caller compare the two).
package struct CanonicalJSONWriter {
    /// The bytes written so far.
    package private(set) var bytes: [UInt8] = []
    /// Whether the next member or element is the first of its object or array.
    private var first = true

    package init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    package mutating func beginObject() { open(UInt8(ascii: "{")) }

    package mutating func endObject() { close(UInt8(ascii: "}")) }

    package mutating func beginArray() { open(UInt8(ascii: "[")) }

    package mutating func endArray() { close(UInt8(ascii: "]")) }

    /// The key of the next member; its value follows with one of the value methods.
    ///
    /// Keys are the literal member names of the records and payloads written here, so their bytes
    /// are copied as they are when nothing in them needs escaping (always, for names like these).
    package mutating func key(_ key: StaticString) {
        separate()
        key.withUTF8Buffer { name in
            if name.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
                bytes.append(UInt8(ascii: "\""))
                bytes.append(contentsOf: name)
                bytes.append(UInt8(ascii: "\""))
            } else {
                JSONWriter.writeString(String(decoding: name, as: UTF8.self), to: &bytes)
            }
        }
        bytes.append(UInt8(ascii: ":"))
        first = true  // the value that follows needs no separator
    }

    package mutating func string(_ value: String) {
        scalar { JSONWriter.writeString(value, to: &$0) }
    }

    /// A string whose bytes `write` appends, and which needs no escaping (ASCII without `"`,
    /// `\\` or control characters, such as a timestamp's text).
    package mutating func plainString(_ write: (inout [UInt8]) -> Void) {
        scalar { bytes in
            bytes.append(UInt8(ascii: "\""))
            write(&bytes)
            bytes.append(UInt8(ascii: "\""))
        }
    }

    /// A finite `Double` as its exact canonical decimal; `null` for NaN and ±infinity, as
    /// `JSONNumber(value)` would fail for them.
    package mutating func number(_ value: Double) {
        scalar { JSONWriter.write(JSONNumber(value).map(JSONValue.number) ?? .null, canonical: true, to: &$0) }
    }

    package mutating func integer(_ value: Int) {
        scalar { JSONNumber(value).appendCanonical(to: &$0) }
    }

    /// `units / 10^fractionDigits` as its exact canonical decimal (`523252000` with 7 digits is
    /// `52.3252`): digits only, no exponent, no trailing zeros in the fraction, no fraction when
    /// it is zero. For coordinates kept as integer units, written without a lexeme `String`.
    package mutating func decimal(units: Int64, fractionDigits: Int) {
        precondition((0...18).contains(fractionDigits), "at most 18 fraction digits")
        scalar { out in
            var divisor: UInt64 = 1
            for _ in 0..<fractionDigits { divisor *= 10 }
            let magnitude = units.magnitude
            if units < 0 { out.append(UInt8(ascii: "-")) }
            Self.appendDigits(magnitude / divisor, minimumCount: 1, to: &out)
            var fraction = magnitude % divisor
            guard fraction != 0 else { return }
            var digits = fractionDigits
            while fraction % 10 == 0 {
                fraction /= 10
                digits -= 1
            }
            out.append(UInt8(ascii: "."))
            Self.appendDigits(fraction, minimumCount: digits, to: &out)
        }
    }

    /// The decimal digits of `value`, with leading zeros up to `minimumCount` digits.
    private static func appendDigits(_ value: UInt64, minimumCount: Int, to out: inout [UInt8]) {
        // Lowest digit first, then reversed in place.
        let start = out.count
        var rest = value
        repeat {
            out.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        while out.count - start < minimumCount { out.append(UInt8(ascii: "0")) }
        out[start...].reverse()
    }

    package mutating func bool(_ value: Bool) {
        scalar { JSONWriter.write(.bool(value), canonical: true, to: &$0) }
    }

    /// A value that was already built, written canonically in place.
    package mutating func value(_ value: JSONValue) {
        scalar { JSONWriter.write(value, canonical: true, to: &$0) }
    }

    /// An object or array begins: separated from what came before, and its first member or
    /// element needs no separator.
    private mutating func open(_ bracket: UInt8) {
        separate()
        bytes.append(bracket)
        first = true
    }

    private mutating func close(_ bracket: UInt8) {
        bytes.append(bracket)
        first = false
    }

    /// A value without members: separated from what came before, then written by `write`.
    private mutating func scalar(_ write: (inout [UInt8]) -> Void) {
        separate()
        write(&bytes)
        first = false
    }

    private mutating func separate() {
        if !first { bytes.append(UInt8(ascii: ",")) }
    }
}
