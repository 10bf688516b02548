#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension JSONValue: Codable {
    /// Decodes any JSON-shaped value from any decoder.
    ///
    /// Numbers become `Int64` text when the decoder yields an exact `Int64` (else `UInt64`),
    /// otherwise the shortest round-trip text of the `Double`. Object member order is whatever
    /// the decoder reports in `allKeys`, which generic decoders do not promise to preserve.
    package init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: AnyCodingKey.self) {
            var object = JSONObject()
            for key in keyed.allKeys {
                object[key.stringValue] = try keyed.decode(JSONValue.self, forKey: key)
            }
            self = .object(object)
            return
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var elements: [JSONValue] = []
            if let count = unkeyed.count { elements.reserveCapacity(count) }
            while !unkeyed.isAtEnd {
                elements.append(try unkeyed.decode(JSONValue.self))
            }
            self = .array(elements)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let value = try? single.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? single.decode(Int64.self) {
            self = .number(JSONNumber(value))
        } else if let value = try? single.decode(UInt64.self) {
            self = .number(JSONNumber(value))
        } else if let value = try? single.decode(Double.self) {
            guard let number = JSONNumber(value) else {
                throw DecodingError.dataCorruptedError(
                    in: single, debugDescription: "\(value) is not representable in JSON")
            }
            self = .number(number)
        } else if let value = try? single.decode(String.self) {
            self = .string(value)
        } else {
            throw DecodingError.dataCorruptedError(
                in: single, debugDescription: "expected null, a Boolean, a number, a string, an array or an object")
        }
    }

    /// Encodes into any encoder, keeping object member order.
    ///
    /// Numbers are encoded as `Int64` or `UInt64` when exact integers in range, otherwise as the
    /// nearest `Double`, so decimals with more precision than `Double` lose digits here (but not in
    /// ``compactBytes()`` or ``canonicalBytes()``).
    package func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .bool(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .number(let number):
            var single = encoder.singleValueContainer()
            if let value = number.int64Value {
                try single.encode(value)
            } else if let value = UInt64(number.canonical) {
                try single.encode(value)
            } else {
                try single.encode(number.doubleValue)
            }
        case .string(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .array(let elements):
            var unkeyed = encoder.unkeyedContainer()
            for element in elements {
                try unkeyed.encode(element)
            }
        case .object(let object):
            var keyed = encoder.container(keyedBy: AnyCodingKey.self)
            for (key, value) in object {
                try keyed.encode(value, forKey: AnyCodingKey(stringValue: key))
            }
        }
    }
}

extension JSONValue {
    /// The JSON value of an `Encodable`, built directly with ``JSONValueEncoder``: no bytes, no
    /// Foundation; object members sorted by key as `JSONEncoder` with `.sortedKeys` sorts them.
    ///
    /// `Double`s keep their exact value (shortest round-trip text). Throws ``JSONError`` with
    /// code `encodingFailed`, the encoder's error in `underlying` (NaN and infinity land here).
    package init(encoding value: some Encodable) throws {
        do {
            self = try JSONValueEncoder().encode(value)
        } catch {
            throw JSONValue.encodingFailed(type(of: value), error)
        }
    }

    /// Decodes a `Decodable` from this value directly with ``JSONValueDecoder``: no bytes, no
    /// Foundation parse.
    ///
    /// Throws ``JSONError`` with code `decodingFailed`; the decoder's error is in `underlying`.
    package func decode<T: Decodable>(_ type: T.Type) throws -> T {
        do {
            return try JSONValueDecoder().decode(type, from: self)
        } catch {
            throw JSONValue.decodingFailed(type, error)
        }
    }

    /// The JSON value of an `Encodable` via Foundation's `encoder` and this module's parser.
    ///
    /// For encoder options that ``init(encoding:)`` does not have. Throws ``JSONError`` with code
    /// `encodingFailed` (the encoder's error in `underlying`) or a parse code if the encoder
    /// produced text this module rejects (such as U+0000 in a string).
    package init(encoding value: some Encodable, using encoder: JSONEncoder) throws {
        let data: Data
        do {
            data = try encoder.encode(value)
        } catch {
            throw JSONValue.encodingFailed(type(of: value), error)
        }
        self = try JSONValue.parse(data)
    }

    /// Decodes a `Decodable` via ``compactBytes()`` and Foundation's `decoder`.
    ///
    /// For decoder options that ``decode(_:)`` does not have. Throws ``JSONError`` with code
    /// `decodingFailed`; the decoder's error is in `underlying`.
    package func decode<T: Decodable>(_ type: T.Type, using decoder: JSONDecoder) throws -> T {
        do {
            return try decoder.decode(type, from: Data(compactBytes()))
        } catch {
            throw JSONValue.decodingFailed(type, error)
        }
    }

    private static func encodingFailed(_ type: Any.Type, _ error: any Error) -> JSONError {
        JSONError(code: .encodingFailed, message: "could not encode \(type) as JSON: \(summary(of: error))", offset: nil, underlying: error)
    }

    private static func decodingFailed(_ type: Any.Type, _ error: any Error) -> JSONError {
        JSONError(code: .decodingFailed, message: "could not decode \(type) from JSON: \(summary(of: error))", offset: nil, underlying: error)
    }

    /// A description of a coding error that names the rule and the coding path but no values,
    /// so messages cannot leak payload data (keep the full error as an underlying error).
    ///
    /// `missing key "tripId" at the top level`, `expected Double at stops.[1].lat`.
    package static func summary(of error: any Error) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.isEmpty ? "the top level" : codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case DecodingError.typeMismatch(let type, let context):
            return "expected \(type) at \(path(context.codingPath))"
        case DecodingError.valueNotFound(let type, let context):
            return "expected \(type) but found null at \(path(context.codingPath))"
        case DecodingError.keyNotFound(let key, let context):
            return "missing key \(JSONError.quote(key.stringValue)) at \(path(context.codingPath))"
        case DecodingError.dataCorrupted(let context):
            return "invalid data at \(path(context.codingPath))"
        case EncodingError.invalidValue(_, let context):
            return "invalid value at \(path(context.codingPath))"
        default:
            return "\(type(of: error))"
        }
    }
}
