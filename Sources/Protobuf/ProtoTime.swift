/// `google.protobuf.Timestamp` and `Duration` in their proto3 JSON text forms.
///
/// Timestamps are RFC 3339 in UTC with `Z` and 0, 3, 6 or 9 fraction digits on output; offsets
/// are accepted on input. Durations are decimal seconds with an `s` suffix (`"12.500s"`).
package enum ProtoTime {
    /// `seconds`/`nanos` since the Unix epoch as RFC 3339 (`2024-05-01T12:00:00.500Z`).
    package static func formatTimestamp(seconds: Int64, nanos: Int32) -> String {
        let days = floorDivide(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        var text = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
        text += pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
        text += fraction(nanos)
        return text + "Z"
    }

    /// The seconds and nanos of an RFC 3339 timestamp, or nil when it is not one.
    package static func parseTimestamp(_ text: String) -> (seconds: Int64, nanos: Int32)? {
        let b = Array(text.utf8)
        func digits(_ start: Int, _ count: Int) -> Int64? {
            guard start + count <= b.count else { return nil }
            var value: Int64 = 0
            for i in start..<(start + count) {
                guard b[i] >= 48, b[i] <= 57 else { return nil }
                value = value * 10 + Int64(b[i] - 48)
            }
            return value
        }
        guard b.count >= 20, let year = digits(0, 4), b[4] == 45, let month = digits(5, 2), b[7] == 45, let day = digits(8, 2),
              b[10] == 84 || b[10] == 116, let hour = digits(11, 2), b[13] == 58, let minute = digits(14, 2), b[16] == 58,
              let second = digits(17, 2), (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var index = 19
        var nanos: Int64 = 0
        if index < b.count, b[index] == 46 {
            index += 1
            var count = 0
            while index < b.count, b[index] >= 48, b[index] <= 57 {
                if count < 9 { nanos = nanos * 10 + Int64(b[index] - 48) }
                count += 1
                index += 1
            }
            guard count >= 1, count <= 9 else { return nil }
            for _ in count..<9 { nanos *= 10 }
        }
        guard index < b.count else { return nil }
        var offset: Int64 = 0
        if b[index] == 90 || b[index] == 122 {
            index += 1
        } else if b[index] == 43 || b[index] == 45, let h = digits(index + 1, 2), index + 3 < b.count, b[index + 3] == 58, let m = digits(index + 4, 2) {
            offset = (h * 60 + m) * 60 * (b[index] == 45 ? -1 : 1)
            index += 6
        } else {
            return nil
        }
        guard index == b.count else { return nil }
        let days = days(fromCivil: year, month, day)
        return (days * 86_400 + hour * 3600 + minute * 60 + second - offset, Int32(nanos))
    }

    /// A duration as proto3 JSON text (`"30.500s"`, `"-1.000000001s"`).
    package static func formatDuration(seconds: Int64, nanos: Int32) -> String {
        let negative = seconds < 0 || nanos < 0
        let whole = seconds.magnitude
        let fractionText = fraction(Int32(nanos.magnitude))
        return (negative ? "-" : "") + String(whole) + fractionText + "s"
    }

    /// The seconds and nanos of a proto3 JSON duration, or nil when it is not one.
    package static func parseDuration(_ text: String) -> (seconds: Int64, nanos: Int32)? {
        guard text.hasSuffix("s") else { return nil }
        var body = Substring(text.dropLast())
        let negative = body.hasPrefix("-")
        if negative { body = body.dropFirst() }
        let parts = body.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = parts.first, !whole.isEmpty, whole.count <= 12,
              whole.allSatisfy({ $0.isASCII && $0.isNumber }), let seconds = Int64(whole) else { return nil }
        var nanos: Int64 = 0
        if parts.count == 2 {
            let digits = parts[1]
            guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            nanos = (Int64(digits) ?? 0) * Self.powerOfTen(9 - digits.count)
        }
        return negative ? (-seconds, Int32(-nanos)) : (seconds, Int32(nanos))
    }

    private static func powerOfTen(_ exponent: Int) -> Int64 {
        var value: Int64 = 1
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    private static func fraction(_ nanos: Int32) -> String {
        if nanos == 0 { return "" }
        if nanos % 1_000_000 == 0 { return "." + pad(Int64(nanos / 1_000_000), 3) }
        if nanos % 1000 == 0 { return "." + pad(Int64(nanos / 1000), 6) }
        return "." + pad(Int64(nanos), 9)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
