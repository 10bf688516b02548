#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Encodes `Encodable` values straight into a ``JSONValue``, object members sorted by key.
///
/// The document has the shape and member order of Foundation's `JSONEncoder` with
/// `.sortedKeys` (members sorted by the UTF-8 bytes of their keys, which is what `JSONEncoder`
/// does on Linux; `encodeIfPresent(nil)` leaves the member out, `encodeNil` writes `null`; a
/// key encoded twice keeps the last value; a nested value that encodes nothing is `{}`).
/// Numbers are this module's lexemes: integers as their decimal text, a `Double` as
/// `JSONNumber(Double)` writes it (`Double.description`: `1.0`, `1e-05`, where
/// `JSONEncoder` writes `1`, `1e-05`), a `Float` as `Float.description`; so values are equal to
/// `JSONEncoder`'s, lexemes of integral doubles are not. NaN and infinities throw
/// `EncodingError.invalidValue`.
///
/// `Date` encodes through its own `Codable` (seconds since 2001, as `JSONEncoder`'s default
/// `.deferredToDate`); `Data` as a base64 string, `URL` as its absolute string and `Decimal` as
/// a number, as `JSONEncoder` does by default. A ``JSONValue`` inside a value is copied with its
/// objects' members sorted and its lexemes kept.
package struct JSONValueEncoder: Sendable {
    package init() {}

    /// The JSON value of `value`; throws `EncodingError` (or what `value`'s own encoding throws).
    package func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        let encoder = JSONValueEncoderImpl(path: .root)
        guard let encoded = try encoder.wrapIfEncoded(value, parent: .root, key: nil) else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values."))
        }
        return encoded
    }
}

/// The `Encoder` behind ``JSONValueEncoder``; also its own single-value container.
///
/// One instance serves a whole top-level encode: a nested value is encoded by swapping in a fresh
/// result and its path for the duration of its `encode(to:)`, and its result is finished into a
/// ``JSONValue`` right after. Containers write into builders (reference types) that they hold
/// themselves, so a container kept by an `encode(to:)` stays valid across nested encodes.
final class JSONValueEncoderImpl: Encoder, SingleValueEncodingContainer {
    /// What this level encoded so far; nil until something is.
    private(set) var encoded: EncodedJSON?
    private(set) var path: CodingPathNode

    init(path: CodingPathNode) {
        self.path = path
    }

    var codingPath: [any CodingKey] { path.codingPath }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The keyed container of this level; asking twice gives the same object.
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let builder: JSONObjectBuilder
        if case .object(let existing)? = encoded {
            builder = existing
        } else {
            builder = JSONObjectBuilder(encoder: self, path: path)
            encoded = .object(builder)
        }
        return KeyedEncodingContainer(JSONValueKeyedEncodingContainer<Key>(builder: builder))
    }

    /// The unkeyed container of this level; asking twice gives the same array.
    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let builder: JSONArrayBuilder
        if case .array(let existing)? = encoded {
            builder = existing
        } else {
            builder = JSONArrayBuilder(encoder: self, path: path)
            encoded = .array(builder)
        }
        return JSONValueUnkeyedEncodingContainer(builder: builder)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        self
    }

    /// What has been encoded at this level, finished; nil when nothing was.
    var result: JSONValue? { encoded?.finished() }

    // MARK: Encoding one value

    /// The JSON value of `value`, found at `parent` plus `key`; `{}` when it encodes nothing.
    func wrap<T: Encodable>(_ value: T, parent: CodingPathNode, key: (any CodingKey)?) throws -> JSONValue {
        try wrapIfEncoded(value, parent: parent, key: key) ?? .object(JSONObject())
    }

    /// The JSON value of `value`, found at `parent` plus `key`; nil when it encodes nothing.
    func wrapIfEncoded<T: Encodable>(_ value: T, parent: CodingPathNode, key: (any CodingKey)?) throws -> JSONValue? {
        // Values that need no `encode(to:)`; the casts are identities.
        if T.self == String.self { return .string(value as! String) }
        if T.self == Double.self { return try Self.number(value as! Double, parent, key) }
        if T.self == Int.self { return .number(JSONNumber(value as! Int)) }
        if T.self == Bool.self { return .bool(value as! Bool) }
        if T.self == JSONValue.self { return (value as! JSONValue).withSortedMembers }
        if T.self == Data.self { return .string((value as! Data).base64EncodedString()) }
        if T.self == URL.self { return .string((value as! URL).absoluteString) }
        if T.self == Decimal.self {
            let decimal = value as! Decimal
            guard let number = JSONNumber(lexeme: decimal.description) else {
                throw EncodingError.invalidValue(decimal, .init(
                    codingPath: parent.codingPath(appending: key), debugDescription: "Unable to encode Decimal \(decimal) directly in JSON."))
            }
            return .number(number)
        }
        let savedEncoded = encoded
        let savedPath = path
        encoded = nil
        path = parent.appending(key)
        defer {
            encoded = savedEncoded
            path = savedPath
        }
        try value.encode(to: self)
        return encoded?.finished()
    }

    static func number(_ value: Double, _ parent: CodingPathNode, _ key: (any CodingKey)?) throws -> JSONValue {
        guard let number = JSONNumber(value) else {
            throw EncodingError.invalidValue(value, .init(
                codingPath: parent.codingPath(appending: key), debugDescription: "Unable to encode Double.\(value) directly in JSON."))
        }
        return .number(number)
    }

    static func number(_ value: Float, _ parent: CodingPathNode, _ key: (any CodingKey)?) throws -> JSONValue {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(
                codingPath: parent.codingPath(appending: key), debugDescription: "Unable to encode Float.\(value) directly in JSON."))
        }
        // `Float.description` is a valid JSON number lexeme for finite values (`1.0`, `1e-07`).
        return .number(JSONNumber(unchecked: value.description))
    }

    // MARK: SingleValueEncodingContainer

    func encodeNil() { encoded = .value(.null) }
    func encode(_ value: Bool) { encoded = .value(.bool(value)) }
    func encode(_ value: String) { encoded = .value(.string(value)) }
    func encode(_ value: Double) throws { encoded = .value(try Self.number(value, path, nil)) }
    func encode(_ value: Float) throws { encoded = .value(try Self.number(value, path, nil)) }
    func encode(_ value: Int) { encoded = .value(.number(JSONNumber(value))) }
    func encode(_ value: Int8) { encoded = .value(.number(JSONNumber(Int64(value)))) }
    func encode(_ value: Int16) { encoded = .value(.number(JSONNumber(Int64(value)))) }
    func encode(_ value: Int32) { encoded = .value(.number(JSONNumber(Int64(value)))) }
    func encode(_ value: Int64) { encoded = .value(.number(JSONNumber(value))) }
    func encode(_ value: UInt) { encoded = .value(.number(JSONNumber(UInt64(value)))) }
    func encode(_ value: UInt8) { encoded = .value(.number(JSONNumber(Int64(value)))) }
    func encode(_ value: UInt16) { encoded = .value(.number(JSONNumber(Int64(value)))) }
    func encode(_ value: UInt32) { encoded = .value(.number(JSONNumber(Int64(value)))) }
    func encode(_ value: UInt64) { encoded = .value(.number(JSONNumber(value))) }
    func encode<T: Encodable>(_ value: T) throws { encoded = .value(try wrap(value, parent: path, key: nil)) }
}

/// What one level of ``JSONValueEncoder`` produced: a finished value, or a container or super
/// encoder that may still be written to until the level's `encode(to:)` returns.
enum EncodedJSON {
    case value(JSONValue)
    case object(JSONObjectBuilder)
    case array(JSONArrayBuilder)
    /// A `superEncoder()`'s result: `{}` if nothing was encoded into it.
    case deferred(JSONValueEncoderImpl)

    /// The finished value, members sorted.
    func finished() -> JSONValue {
        switch self {
        case .value(let value): value
        case .object(let builder): .object(builder.finished())
        case .array(let builder): .array(builder.elements.map { $0.finished() })
        case .deferred(let encoder): encoder.result ?? .object(JSONObject())
        }
    }
}

/// The members a keyed container has written, in the order written, with what the container
/// needs to write more (so a container is a single reference, cheap to copy).
final class JSONObjectBuilder {
    var members: [(key: String, value: EncodedJSON)] = []
    /// The encoder for nested values; it holds this builder, hence `unowned`.
    unowned let encoder: JSONValueEncoderImpl
    let path: CodingPathNode

    init(encoder: JSONValueEncoderImpl, path: CodingPathNode) {
        self.encoder = encoder
        self.path = path
    }

    /// The object with members sorted by the UTF-8 bytes of their keys; of a key written more
    /// than once, the last value.
    func finished() -> JSONObject {
        let count = members.count
        if count < 2 {
            return JSONObject(uniqueMembers: members.map { (key: $0.key, value: $0.value.finished()) })
        }
        // Positions sorted by key, equal keys in writing order. Objects are small and mostly
        // written in declaration order, so an insertion sort does few comparisons.
        var order = Array(0..<count)
        members.withUnsafeBufferPointer { written in
            if count <= 24 {
                for i in 1..<count {
                    let position = order[i]
                    var j = i
                    while j > 0, UTF8Key.compare(written[order[j - 1]].key, written[position].key) > 0 {
                        order[j] = order[j - 1]
                        j -= 1
                    }
                    order[j] = position
                }
            } else {
                order.sort { a, b in
                    let c = UTF8Key.compare(written[a].key, written[b].key)
                    return c != 0 ? c < 0 : a < b
                }
            }
        }
        var sorted: [JSONObject.Element] = []
        sorted.reserveCapacity(count)
        for (n, i) in order.enumerated() {
            // Of equal keys (adjacent now, in writing order), only the last is kept.
            if n + 1 < count, UTF8Key.equal(members[i].key, members[order[n + 1]].key) { continue }
            sorted.append((key: members[i].key, value: members[i].value.finished()))
        }
        return JSONObject(uniqueMembers: sorted)
    }
}

/// The elements an unkeyed container has written, with what the container needs to write more.
final class JSONArrayBuilder {
    var elements: [EncodedJSON] = []
    /// The encoder for nested values; it holds this builder, hence `unowned`.
    unowned let encoder: JSONValueEncoderImpl
    let path: CodingPathNode

    init(encoder: JSONValueEncoderImpl, path: CodingPathNode) {
        self.encoder = encoder
        self.path = path
    }
}

extension JSONValue {
    /// This value with the members of every object sorted by the UTF-8 bytes of their keys.
    var withSortedMembers: JSONValue {
        switch self {
        case .null, .bool, .number, .string:
            self
        case .array(let elements):
            .array(elements.map(\.withSortedMembers))
        case .object(let object):
            .object(JSONObject(uniqueMembers: object.membersSortedByKeyBytes.map { (key: $0.key, value: $0.value.withSortedMembers) }))
        }
    }
}
