import struct Foundation.Date

/// A point in time with microsecond precision, as stored in events.
///
/// Events are written as JSON and replayed forever, so their times must round-trip exactly:
/// `Date` is a `Double` and loses digits through text. A `Timestamp` is an integer count of
/// microseconds since 1970-01-01T00:00:00Z (PostgreSQL's `timestamptz` precision) and encodes
/// as an RFC 3339 string in UTC with exactly six fractional digits,
/// e.g. `"2026-03-01T08:00:00.000000Z"`. Decoding accepts 0–9 fractional digits (extra digits
/// are truncated) and a `Z` or `±hh:mm` offset, so Fleet Engine's own timestamps parse too.
package struct Timestamp: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// Microseconds since the Unix epoch.
    package var microsecondsSinceEpoch: Int64

    /// Creates a timestamp from microseconds since the Unix epoch.
    package init(microsecondsSinceEpoch: Int64) {
        self.microsecondsSinceEpoch = microsecondsSinceEpoch
    }

    /// Creates a timestamp from whole seconds since the Unix epoch.
    package init(secondsSinceEpoch: Int64) {
        self.microsecondsSinceEpoch = secondsSinceEpoch * 1_000_000
    }

    /// Creates a timestamp from a `Date`, rounded down to the microsecond.
    package init(_ date: Date) {
        self.microsecondsSinceEpoch = Int64((date.timeIntervalSince1970 * 1_000_000).rounded(.down))
    }

    /// The same instant as a `Date`.
    package var date: Date { Date(timeIntervalSince1970: Double(microsecondsSinceEpoch) / 1_000_000) }

    /// This instant moved by a number of seconds (negative moves back).
    package func adding(seconds: Double) -> Timestamp {
        Timestamp(microsecondsSinceEpoch: microsecondsSinceEpoch + Int64((seconds * 1_000_000).rounded()))
    }

    /// This instant moved by a number of microseconds.
    package func adding(microseconds: Int64) -> Timestamp {
        Timestamp(microsecondsSinceEpoch: microsecondsSinceEpoch + microseconds)
    }

    /// Seconds from `other` to `self` (positive when `self` is later).
    package func seconds(since other: Timestamp) -> Double {
        Double(microsecondsSinceEpoch - other.microsecondsSinceEpoch) / 1_000_000
    }

    package static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.microsecondsSinceEpoch < rhs.microsecondsSinceEpoch
    }

    /// RFC 3339 in UTC with six fractional digits.
    package var rfc3339: String {
        let fields = civilFields
        guard Timestamp.hasFourDigitYear(fields) else { return Timestamp.wideRFC3339(fields) }
        return String(unsafeUninitializedCapacity: 27) { buffer in
            Timestamp.write(fields, into: buffer)
            return 27
        }
    }

    /// Appends the bytes of ``rfc3339`` to `bytes` (for payloads written without a `String` per
    /// timestamp).
    package func appendRFC3339(to bytes: inout [UInt8]) {
        let fields = civilFields
        guard Timestamp.hasFourDigitYear(fields) else { return bytes.append(contentsOf: Timestamp.wideRFC3339(fields).utf8) }
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: 27))
        bytes.withUnsafeMutableBufferPointer { all in
            Timestamp.write(fields, into: UnsafeMutableBufferPointer(rebasing: all[start..<start + 27]))
        }
    }

    private typealias CivilFields = (year: Int64, month: Int64, day: Int64, secondOfDay: Int64, fraction: Int64)

    /// Year, month, day, second of the day and microseconds.
    private var civilFields: CivilFields {
        let micros = microsecondsSinceEpoch
        var seconds = micros / 1_000_000
        var fraction = micros % 1_000_000
        if fraction < 0 { fraction += 1_000_000; seconds -= 1 }
        var days = seconds / 86_400
        var secondOfDay = seconds % 86_400
        if secondOfDay < 0 { secondOfDay += 86_400; days -= 1 }
        let (year, month, day) = Timestamp.civil(fromDays: days)
        return (year, month, day, secondOfDay, fraction)
    }

    private static func hasFourDigitYear(_ fields: CivilFields) -> Bool { (0...9999).contains(fields.year) }

    /// ``rfc3339`` for a year outside 0...9999 (never a recorded time; kept total).
    private static func wideRFC3339(_ fields: CivilFields) -> String {
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(fields.year, 4))-\(pad(fields.month, 2))-\(pad(fields.day, 2))T\(pad(fields.secondOfDay / 3600, 2)):"
            + "\(pad(fields.secondOfDay / 60 % 60, 2)):\(pad(fields.secondOfDay % 60, 2)).\(pad(fields.fraction, 6))Z"
    }

    /// Writes the 27 bytes of a four-digit-year timestamp digit by digit: this runs for every
    /// event a location report makes.
    private static func write(_ fields: CivilFields, into buffer: UnsafeMutableBufferPointer<UInt8>) {
        func put(_ value: Int64, _ width: Int, at end: Int) {
            var rest = value
            for index in stride(from: end - 1, through: end - width, by: -1) {
                buffer[index] = UInt8(truncatingIfNeeded: 48 + rest % 10)
                rest /= 10
            }
        }
        put(fields.year, 4, at: 4)
        buffer[4] = UInt8(ascii: "-")
        put(fields.month, 2, at: 7)
        buffer[7] = UInt8(ascii: "-")
        put(fields.day, 2, at: 10)
        buffer[10] = UInt8(ascii: "T")
        put(fields.secondOfDay / 3600, 2, at: 13)
        buffer[13] = UInt8(ascii: ":")
        put(fields.secondOfDay / 60 % 60, 2, at: 16)
        buffer[16] = UInt8(ascii: ":")
        put(fields.secondOfDay % 60, 2, at: 19)
        buffer[19] = UInt8(ascii: ".")
        put(fields.fraction, 6, at: 26)
        buffer[26] = UInt8(ascii: "Z")
    }

    package var description: String { rfc3339 }

    /// Parses RFC 3339 (`YYYY-MM-DDTHH:MM:SS[.f{1,9}](Z|±HH:MM)`); nil when malformed.
    package init?(rfc3339 text: String) {
        let b = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int64? {
            guard range.upperBound <= b.count else { return nil }
            var value: Int64 = 0
            for i in range {
                guard b[i] >= 48, b[i] <= 57 else { return nil }
                value = value * 10 + Int64(b[i] - 48)
            }
            return value
        }
        guard b.count >= 20, b[4] == 45, b[7] == 45, b[10] == 84 || b[10] == 116, b[13] == 58, b[16] == 58,
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var micros: Int64 = 0
        if b[index] == 46 {
            index += 1
            var digits = 0
            while index < b.count, b[index] >= 48, b[index] <= 57 {
                if digits < 6 { micros = micros * 10 + Int64(b[index] - 48) }
                digits += 1
                index += 1
            }
            guard digits >= 1, digits <= 9 else { return nil }
            for _ in min(digits, 6)..<6 { micros *= 10 }
        }
        guard index < b.count else { return nil }
        var offsetSeconds: Int64 = 0
        if b[index] == 90 || b[index] == 122 {
            index += 1
        } else if b[index] == 43 || b[index] == 45 {
            guard index + 6 == b.count, b[index + 3] == 58,
                  let oh = number(index + 1..<index + 3), let om = number(index + 4..<index + 6), oh < 24, om < 60
            else { return nil }
            offsetSeconds = (oh * 3600 + om * 60) * (b[index] == 43 ? 1 : -1)
            index += 6
        } else {
            return nil
        }
        guard index == b.count else { return nil }
        let days = Timestamp.days(fromCivil: year, month, day)
        let total = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        self.microsecondsSinceEpoch = total * 1_000_000 + micros
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let parsed = Timestamp(rfc3339: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an RFC 3339 timestamp: \(text)")
        }
        self = parsed
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rfc3339)
    }

    // Howard Hinnant's days-from-civil / civil-from-days (proleptic Gregorian calendar).
    private static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (month <= 2 ? yoe + era * 400 + 1 : yoe + era * 400, month, day)
    }
}
