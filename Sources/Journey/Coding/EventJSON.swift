import struct Foundation.Data
import class Foundation.JSONDecoder
import class Foundation.JSONEncoder

/// The one JSON configuration for stored event payloads.
///
/// Keys sorted and slashes unescaped, so the same event always encodes to the same bytes
/// (the hash chain and byte-identical rebuilds depend on it). Times are `Timestamp`s, which
/// encode themselves as RFC 3339 strings with six fractional digits; no `Date` appears in a payload.
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

    /// Decodes a payload.
    package static func decode<T: Decodable>(_: T.Type, from data: Data, type: String) throws(JourneyError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw JourneyError(code: .invalidArgument, message: "event payload does not match its type (type \(type), \(data.count) bytes)", underlying: error)
        }
    }

    /// The error for a type string this module does not know.
    static func unknownType(_ type: String, aggregate: String) -> JourneyError {
        .invalidArgument("event type is not a known \(aggregate) event (type \(type))")
    }
}
