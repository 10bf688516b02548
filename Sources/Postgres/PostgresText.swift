import Foundation

/// Text encodings PostgreSQL expects for parameters and COPY, written once here.
///
/// Every value still travels as a bound parameter or COPY datum: these helpers only produce the
/// text form of arrays, `bytea` and timestamps, never SQL.
package enum PostgresText {
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// `bytea` in hex input format: `\x` followed by two lowercase hex digits per byte.
    package static func hexBytea(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity(2 + bytes.count * 2)
        out.append(UInt8(ascii: "\\"))
        out.append(UInt8(ascii: "x"))
        for byte in bytes {
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes `\x...` hex `bytea` output; nil when the text is not in that format.
    package static func decodeHexBytea(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8[0] == UInt8(ascii: "\\"), utf8[1] == UInt8(ascii: "x"), utf8.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity((utf8.count - 2) / 2)
        var i = 2
        while i < utf8.count {
            guard let hi = nibble(utf8[i]), let lo = nibble(utf8[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// Parses the 8-4-4-4-12 hex form of a UUID without going through `sscanf` (it is on the
    /// append path once per event); nil for anything else.
    package static func parseUUID(_ text: String) -> UUID? {
        var text = text
        return text.withUTF8 { utf8 -> UUID? in
            guard utf8.count == 36 else { return nil }
            var bytes = [UInt8](repeating: 0, count: 16)
            var out = 0
            var i = 0
            while i < 36 {
                if i == 8 || i == 13 || i == 18 || i == 23 {
                    guard utf8[i] == UInt8(ascii: "-") else { return nil }
                    i += 1
                    continue
                }
                guard let hi = nibble(utf8[i]), let lo = nibble(utf8[i + 1]) else { return nil }
                bytes[out] = hi << 4 | lo
                out += 1
                i += 2
            }
            return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                               bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        }
    }

    /// An array literal (`{"a","b",NULL}`) for a `text[]`-like parameter; every element is quoted and
    /// `"` and `\` are escaped, so any string (JSON included) survives.
    package static func arrayLiteral(_ elements: [String?]) -> String {
        var out = [UInt8]()
        out.reserveCapacity(elements.reduce(2) { $0 + ($1?.utf8.count ?? 4) + 3 })
        appendArrayLiteral(elements, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends an array literal of `elements` to `out` (see `arrayLiteral`).
    package static func appendArrayLiteral(_ elements: [String?], into out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        for (index, element) in elements.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            guard let element else {
                out.append(contentsOf: "NULL".utf8)
                continue
            }
            out.append(UInt8(ascii: "\""))
            for byte in element.utf8 {
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { out.append(UInt8(ascii: "\\")) }
                out.append(byte)
            }
            out.append(UInt8(ascii: "\""))
        }
        out.append(UInt8(ascii: "}"))
    }

    /// An array literal of integers (`{1,2,3}`).
    package static func arrayLiteral(_ elements: [Int64]) -> String {
        "{" + elements.map(String.init).joined(separator: ",") + "}"
    }

    /// Appends one COPY text-format field, escaping backslash, tab, newline and carriage return.
    package static func appendCopyField(_ value: some Sequence<UInt8>, into out: inout [UInt8]) {
        for byte in value {
            switch byte {
            case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "\\"))
            case UInt8(ascii: "\t"): out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "t"))
            case UInt8(ascii: "\n"): out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "n"))
            case UInt8(ascii: "\r"): out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "r"))
            default: out.append(byte)
            }
        }
    }

    /// A `timestamptz` in microseconds since the Unix epoch, as PostgreSQL input text (UTC, ISO 8601).
    package static func timestamp(microseconds: Int64) -> String {
        let seconds = microseconds >= 0 ? microseconds / 1_000_000 : (microseconds - 999_999) / 1_000_000
        let micros = microseconds - seconds * 1_000_000
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        let date = String(format: "%04d-%02d-%02d %02d:%02d:%02d.%06d+00",
                          Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
                          Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), Int(micros))
        return date
    }
}
