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
        var text = text
        return text.withUTF8 { decodeHexBytea($0) }
    }

    /// `decodeHexBytea` over the bytes of the text form, read in place.
    package static func decodeHexBytea(_ utf8: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard utf8.count >= 2, utf8[0] == UInt8(ascii: "\\"), utf8[1] == UInt8(ascii: "x"), utf8.count % 2 == 0 else { return nil }
        return [UInt8](unsafeUninitializedCapacity: (utf8.count - 2) / 2) { out, initialized in
            var i = 2
            while i < utf8.count {
                guard let hi = nibble(utf8[i]), let lo = nibble(utf8[i + 1]) else { return }
                out[initialized] = hi << 4 | lo
                initialized += 1
                i += 2
            }
        }.nilUnlessCount((utf8.count - 2) / 2)
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
        return text.withUTF8 { parseUUID($0) }
    }

    /// `parseUUID` over the bytes of the text form, read in place.
    package static func parseUUID(_ utf8: UnsafeBufferPointer<UInt8>) -> UUID? {
        guard utf8.count == 36 else { return nil }
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let parsed = withUnsafeMutableBytes(of: &uuid) { bytes -> Bool in
            var out = 0
            var i = 0
            while i < 36 {
                if i == 8 || i == 13 || i == 18 || i == 23 {
                    guard utf8[i] == UInt8(ascii: "-") else { return false }
                    i += 1
                    continue
                }
                guard let hi = nibble(utf8[i]), let lo = nibble(utf8[i + 1]) else { return false }
                bytes[out] = hi << 4 | lo
                out += 1
                i += 2
            }
            return true
        }
        return parsed ? UUID(uuid: uuid) : nil
    }

    /// A decimal integer in PostgreSQL's text form (optional `-`, digits), read in place; nil on
    /// anything else or on overflow.
    package static func parseInt64(_ utf8: UnsafeBufferPointer<UInt8>) -> Int64? {
        var i = 0
        let negative = utf8.first == UInt8(ascii: "-")
        if negative { i = 1 }
        guard i < utf8.count else { return nil }
        var magnitude: UInt64 = 0
        while i < utf8.count {
            let digit = utf8[i] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(digit))
            guard !o1, !o2 else { return nil }
            magnitude = sum
            i += 1
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { return nil }
        return Int64(magnitude)
    }

    /// A non-negative decimal integer (an `xid8`), read in place; nil on anything else or on overflow.
    package static func parseUInt64(_ utf8: UnsafeBufferPointer<UInt8>) -> UInt64? {
        guard !utf8.isEmpty else { return nil }
        var value: UInt64 = 0
        for byte in utf8 {
            let digit = byte &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(digit))
            guard !o1, !o2 else { return nil }
            value = sum
        }
        return value
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
    package static func appendCopyField(_ value: [UInt8], into out: inout [UInt8]) {
        value.withUnsafeBufferPointer { appendCopyField(buffer: $0, into: &out) }
    }

    /// ``appendCopyField(_:into:)`` for a string's UTF-8.
    package static func appendCopyField(_ value: String, into out: inout [UInt8]) {
        var value = value
        value.withUTF8 { appendCopyField(buffer: $0, into: &out) }
    }

    /// The escaping of ``appendCopyField(_:into:)`` over raw bytes, copying runs without special
    /// bytes whole. Not generic, so callers in other modules get this loop compiled, not a generic
    /// one stepping through protocol witnesses byte by byte (that was 36% of a committer's time
    /// when groups were first written with COPY).
    package static func appendCopyField(buffer: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        var runStart = 0
        for index in 0..<buffer.count {
            let escaped: UInt8
            switch buffer[index] {
            case UInt8(ascii: "\\"): escaped = UInt8(ascii: "\\")
            case UInt8(ascii: "\t"): escaped = UInt8(ascii: "t")
            case UInt8(ascii: "\n"): escaped = UInt8(ascii: "n")
            case UInt8(ascii: "\r"): escaped = UInt8(ascii: "r")
            default: continue
            }
            if runStart < index { out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart..<index])) }
            out.append(UInt8(ascii: "\\"))
            out.append(escaped)
            runStart = index + 1
        }
        if runStart < buffer.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart...])) }
    }

    /// A `timestamptz` in microseconds since the Unix epoch, as PostgreSQL input text (UTC, ISO 8601).
    package static func timestamp(microseconds: Int64) -> String {
        let seconds = microseconds >= 0 ? microseconds / 1_000_000 : (microseconds - 999_999) / 1_000_000
        let micros = microseconds - seconds * 1_000_000
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        let year = Int(parts.tm_year) + 1900
        guard (0...9999).contains(year) else {
            return String(format: "%04d-%02d-%02d %02d:%02d:%02d.%06d+00", year, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
                          Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), Int(micros))
        }
        // Written digit by digit: `String(format:)` goes through Foundation's formatter, about 1%
        // of the server's CPU when every group commit and batch stamped its time with it.
        var text: [UInt8] = []
        text.reserveCapacity(29)
        func digits(_ value: Int, _ width: Int) {
            var value = value, divisor = 1
            for _ in 1..<width { divisor *= 10 }
            while divisor > 0 {
                text.append(UInt8(ascii: "0") + UInt8(value / divisor))
                value %= divisor
                divisor /= 10
            }
        }
        digits(year, 4)
        text.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mon) + 1, 2)
        text.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mday), 2)
        text.append(UInt8(ascii: " "))
        digits(Int(parts.tm_hour), 2)
        text.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_min), 2)
        text.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_sec), 2)
        text.append(UInt8(ascii: "."))
        digits(Int(micros), 6)
        text.append(contentsOf: "+00".utf8)
        return String(decoding: text, as: UTF8.self)
    }
}

private extension Array {
    /// The array when it has exactly `count` elements (a decoder filled it completely), else nil.
    func nilUnlessCount(_ count: Int) -> Self? { self.count == count ? self : nil }
}
