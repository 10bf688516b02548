import struct Foundation.Data
import class Foundation.JSONEncoder
import JSON

/// The one JSON configuration for stored event payloads.
///
/// Written with Foundation's `JSONEncoder`, keys sorted and slashes unescaped, so the same event
/// always encodes to the same bytes (the hash chain and byte-identical rebuilds depend on it; the
/// `JSON` module's encoder writes integral doubles as `1.0` where `JSONEncoder` writes `1`, so it
/// must not take over here). Read with the `JSON` module: parsed strictly, decoded straight from
/// the ``JSONValue`` by `JSONValueDecoder`. Times are `Timestamp`s, which encode themselves as
/// RFC 3339 strings with six fractional digits; no `Date` appears in a payload.
package enum EventJSON {
    /// Encodes a payload.
    package static func encode<T: Encodable>(_ value: T, type: String) throws(JourneyError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(value)
        } catch {
            throw JourneyError(code: .invalidArgument, message: "event payload could not be encoded as JSON (type \(type))", underlying: error)
        }
    }

    /// Encodes a payload straight to the JSON value of the bytes `encode` writes, without the bytes.
    ///
    /// For writers that hand payloads on as ``JSONValue``s (the command layer appends them so):
    /// `JSONValueEncoder` gives the same document as `JSONEncoder` with sorted keys, except that it
    /// writes an integral `Double` as `1.0` where `JSONEncoder` writes `1`; those lexemes are
    /// rewritten, so the value is equal to `parse(encode(value))` lexeme for lexeme (the tests
    /// compare both for every event).
    package static func encodeValue<T: Encodable>(_ value: T, type: String) throws(JourneyError) -> JSONValue {
        let encoded: JSONValue
        do {
            encoded = try JSONValueEncoder().encode(value)
        } catch {
            throw JourneyError(code: .invalidArgument, message: "event payload could not be encoded as JSON (type \(type))", underlying: error)
        }
        return integralAsIntegers(encoded)
    }

    /// `value` with every number lexeme of the form `digits.0` (no exponent) written as `digits`.
    static func integralAsIntegers(_ value: JSONValue) -> JSONValue {
        switch value {
        case .number(let number):
            // Byte checks, not `hasSuffix`/`contains` (those go through Foundation's NSString here).
            let lexeme = number.lexeme.utf8
            guard lexeme.count > 2, lexeme.last == UInt8(ascii: "0"), lexeme.dropLast().last == UInt8(ascii: "."),
                  !lexeme.contains(UInt8(ascii: "e")), !lexeme.contains(UInt8(ascii: "E")),
                  let integral = JSONNumber(lexeme: String(Substring(lexeme.dropLast(2)))) else { return value }
            return .number(integral)
        case .array(let elements):
            return .array(elements.map(integralAsIntegers))
        case .object(let object):
            return .object(JSONObject(object.map { ($0.key, integralAsIntegers($0.value)) }))
        case .null, .bool, .string:
            return value
        }
    }

    /// Parses the bytes of a stored payload.
    package static func parse(_ data: Data, type: String) throws(JourneyError) -> JSONValue {
        do {
            return try JSONValue.parse(data)
        } catch {
            throw JourneyError(code: .invalidArgument, message: "event payload is not valid JSON (type \(type), \(data.count) bytes): \(error.message)", underlying: error)
        }
    }

    /// Decodes a payload from its parsed JSON.
    package static func decode<T: Decodable>(_: T.Type, from json: JSONValue, type: String) throws(JourneyError) -> T {
        do {
            return try JSONValueDecoder().decode(T.self, from: json)
        } catch {
            throw JourneyError(
                code: .invalidArgument, message: "event payload does not match its type (type \(type)): \(JSONValue.summary(of: error))", underlying: error)
        }
    }

    /// The error for a type string this module does not know.
    static func unknownType(_ type: String, aggregate: String) -> JourneyError {
        .invalidArgument("event type is not a known \(aggregate) event (type \(type))")
    }
}
