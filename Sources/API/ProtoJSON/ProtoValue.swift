import Foundation
import JSON
import Journey

/// Proto3 JSON scalar readers: each names the field path in its error.
enum ProtoValue {
    /// A word for the JSON kind of `value`, for error messages.
    static func kind(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    static func string(_ value: JSONValue, at path: @autoclosure () -> String) throws(APIError) -> String {
        guard case .string(let text) = value else {
            throw .invalidArgument("\(path()) must be a string (got \(kind(value)))")
        }
        return text
    }

    static func bool(_ value: JSONValue, at path: @autoclosure () -> String) throws(APIError) -> Bool {
        guard case .bool(let flag) = value else {
            throw .invalidArgument("\(path()) must be true or false (got \(kind(value)))")
        }
        return flag
    }

    /// An int32 (or a wrapper `Int32Value`): a JSON integer, or a string holding one.
    static func int32(_ value: JSONValue, at path: @autoclosure () -> String) throws(APIError) -> Int {
        let number: Int64?
        switch value {
        case .number(let n): number = n.int64Value
        case .string(let text): number = Int64(text)
        default:
            throw .invalidArgument("\(path()) must be an integer (got \(kind(value)))")
        }
        guard let number, number >= Int64(Int32.min), number <= Int64(Int32.max) else {
            throw .invalidArgument("\(path()) must be a 32-bit integer (got \(value.compactString))")
        }
        return Int(number)
    }

    /// A finite double. Proto3 JSON allows "NaN" and "Infinity"; no field here accepts them.
    static func double(_ value: JSONValue, at path: @autoclosure () -> String) throws(APIError) -> Double {
        let number: Double?
        switch value {
        case .number(let n): number = n.doubleValue
        case .string(let text):
            if ["NaN", "Infinity", "-Infinity"].contains(text) {
                throw .invalidArgument("\(path()) must be a finite number (got \(text))")
            }
            guard let parsed = Double(text) else {
                throw .invalidArgument("\(path()) must be a number (got \(text.debugDescription))")
            }
            number = parsed
        default:
            throw .invalidArgument("\(path()) must be a number (got \(kind(value)))")
        }
        guard let number, number.isFinite else {
            throw .invalidArgument("\(path()) must be a finite number (got \(value.compactString))")
        }
        return number
    }

    /// A `google.protobuf.Timestamp`: RFC 3339 (`Z` or an offset, 0–9 fractional digits).
    static func timestamp(_ value: JSONValue, at path: @autoclosure () -> String) throws(APIError) -> Timestamp {
        let text = try string(value, at: path())
        guard let time = Timestamp(rfc3339: text) else {
            throw .invalidArgument("\(path()) must be an RFC 3339 timestamp such as 2024-05-01T12:00:00.500Z (got \(text.debugDescription))")
        }
        return time
    }

    /// A `google.protobuf.Duration` such as `"12.5s"`, in microseconds (finer digits are dropped).
    static func duration(_ value: JSONValue, at path: @autoclosure () -> String) throws(APIError) -> Int64 {
        let text = try string(value, at: path())
        guard let micros = parseDuration(text) else {
            throw .invalidArgument("\(path()) must be a duration in seconds such as \"12.5s\" (got \(text.debugDescription))")
        }
        return micros
    }

    static func parseDuration(_ text: String) -> Int64? {
        guard text.hasSuffix("s") else { return nil }
        var body = Substring(text.dropLast())
        var negative = false
        if body.hasPrefix("-") {
            negative = true
            body = body.dropFirst()
        }
        let parts = body.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = parts.first, !whole.isEmpty, whole.count <= 12,
              whole.allSatisfy({ $0.isASCII && $0.isNumber }), let seconds = Int64(whole) else { return nil }
        var micros = seconds * 1_000_000
        if parts.count == 2 {
            let fraction = parts[1]
            guard !fraction.isEmpty, fraction.count <= 9, fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            let digits = String(fraction.prefix(6)).padding(toLength: 6, withPad: "0", startingAt: 0)
            micros += Int64(digits) ?? 0
        }
        return negative ? -micros : micros
    }

    /// An enum given by name or, as proto3 JSON allows, by number.
    static func enumeration<E: RawRepresentable>(_ value: JSONValue, _ table: ProtoEnum, at path: @autoclosure () -> String, as: E.Type) throws(APIError) -> E where E.RawValue == String {
        let name: String
        switch value {
        case .string(let text):
            name = text
        case .number(let number):
            guard let n = number.int64Value, let found = table.name(of: Int(n)) else {
                throw .invalidArgument("\(path()) must be one of \(table.listing) (got \(number.lexeme))")
            }
            name = found
        default:
            throw .invalidArgument("\(path()) must be an enum name or number (got \(kind(value)))")
        }
        guard table.number(of: name) != nil, let result = E(rawValue: name) else {
            throw .invalidArgument("\(path()) must be one of \(table.listing) (got \(name.debugDescription))")
        }
        return result
    }

    /// An enum given by name or number, as its name (for enums with no domain type).
    static func enumName(_ value: JSONValue, _ table: ProtoEnum, at path: @autoclosure () -> String) throws(APIError) -> String {
        switch value {
        case .string(let text):
            guard table.number(of: text) != nil else {
                throw .invalidArgument("\(path()) must be one of \(table.listing) (got \(text.debugDescription))")
            }
            return text
        case .number(let number):
            guard let n = number.int64Value, let name = table.name(of: Int(n)) else {
                throw .invalidArgument("\(path()) must be one of \(table.listing) (got \(number.lexeme))")
            }
            return name
        default:
            throw .invalidArgument("\(path()) must be an enum name or number (got \(kind(value)))")
        }
    }

    static func array(_ value: JSONValue, at path: @autoclosure () -> String) throws(APIError) -> [JSONValue] {
        guard case .array(let elements) = value else {
            throw .invalidArgument("\(path()) must be a JSON array (got \(kind(value)))")
        }
        return elements
    }
}
