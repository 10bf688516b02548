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

    package mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        first = true
    }

    package mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        first = false
    }

    package mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        first = true
    }

    package mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        first = false
    }

    /// The key of the next member; its value follows with one of the value methods.
    package mutating func key(_ key: String) {
        separate()
        JSONWriter.writeString(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        first = true  // the value that follows needs no separator
    }

    package mutating func string(_ value: String) {
        separate()
        JSONWriter.writeString(value, to: &bytes)
        first = false
    }

    /// A string whose bytes `write` appends, and which needs no escaping (ASCII without `"`,
    /// `\\` or control characters, such as a timestamp's text).
    package mutating func plainString(_ write: (inout [UInt8]) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        write(&bytes)
        bytes.append(UInt8(ascii: "\""))
        first = false
    }

    /// A finite `Double` as its exact canonical decimal; `null` for NaN and ±infinity, as
    /// `JSONNumber(value)` would fail for them.
    package mutating func number(_ value: Double) {
        separate()
        if let number = JSONNumber(value) {
            number.appendCanonical(to: &bytes)
        } else {
            bytes.append(contentsOf: [UInt8(ascii: "n"), UInt8(ascii: "u"), UInt8(ascii: "l"), UInt8(ascii: "l")])
        }
        first = false
    }

    package mutating func integer(_ value: Int) {
        separate()
        JSONNumber(value).appendCanonical(to: &bytes)
        first = false
    }

    package mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: value ? "true".utf8 : "false".utf8)
        first = false
    }

    /// A value that was already built, written canonically in place.
    package mutating func value(_ value: JSONValue) {
        separate()
        JSONWriter.write(value, canonical: true, to: &bytes)
        first = false
    }

    private mutating func separate() {
        if !first { bytes.append(UInt8(ascii: ",")) }
    }
}
