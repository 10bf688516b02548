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
