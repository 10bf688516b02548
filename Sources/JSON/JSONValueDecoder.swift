#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decodes `Decodable` values straight from a ``JSONValue``: no bytes, no Foundation parse.
///
/// It decodes like Foundation's `JSONDecoder` with default strategies decodes the value's text,
/// and throws the same kind of `DecodingError` with the same coding path:
/// - a missing member is `keyNotFound`, `null` for a non-optional value is `valueNotFound`, a
///   value of the wrong JSON type is `typeMismatch`; `decodeIfPresent` gives `nil` for a missing
///   member and for `null`;
/// - an integer type accepts a number whose exact value is an integer in its range (`3`, `3.0`,
///   `3e0`); a fraction or a value out of range is `dataCorrupted` ("does not fit");
/// - `Double` and `Float` accept any number within their range (`1e400` is `dataCorrupted`);
/// - `Date` decodes through its own `Codable` (seconds since 2001 as a number, as
///   `JSONDecoder`'s default `.deferredToDate`); `Data` from a base64 string, `URL` from a
///   string and `Decimal` from a number, as `JSONDecoder` does by default;
/// - ``JSONValue`` itself decodes as the value unchanged (lexemes and member order kept).
///
/// Array elements appear in coding paths as `Index N` keys with integer value `N`.
package struct JSONValueDecoder: Sendable {
    package init() {}

    /// Decodes a `T` from `value`; throws `DecodingError` (or what `T`'s own decoding throws).
    package func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try JSONValueDecoderImpl(value: value, path: .root).unwrap(value, as: T.self, parent: .root, key: nil)
    }
}

/// The `Decoder` behind ``JSONValueDecoder``; also its own single-value container.
///
/// One instance serves a whole top-level decode: a nested value is decoded by swapping in its
/// value and path for the duration of its `init(from:)`, so no decoder is allocated per value.
/// Containers hold what they read (their object or array and their path) themselves, so a
/// container kept by an `init(from:)` stays valid across nested decodes.
final class JSONValueDecoderImpl: Decoder, SingleValueDecodingContainer {
    private(set) var value: JSONValue
    private(set) var path: CodingPathNode

    init(value: JSONValue, path: CodingPathNode) {
        self.value = value
        self.path = path
    }

    var codingPath: [any CodingKey] { path.codingPath }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else {
            throw Self.containerError([String: Any].self, "keyed decoding container", value, path.codingPath)
        }
        return KeyedDecodingContainer(JSONValueKeyedDecodingContainer<Key>(decoder: self, object: object, path: path))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw Self.containerError([Any].self, "unkeyed decoding container", value, path.codingPath)
        }
        return JSONValueUnkeyedDecodingContainer(decoder: self, elements: elements, path: path)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        self
    }

    // MARK: Decoding one value

    /// Decodes `T` from `value`, found at `parent` plus `key`.
    func unwrap<T: Decodable>(_ value: JSONValue, as type: T.Type, parent: CodingPathNode, key: (any CodingKey)?) throws -> T {
        // Values that need no `init(from:)`; the casts are identities.
        if T.self == String.self { return try unwrapString(value, parent, key) as! T }
        if T.self == Double.self { return try unwrapDouble(value, parent, key) as! T }
        if T.self == Int.self { return try unwrapInteger(value, Int.self, parent, key) as! T }
        if T.self == Bool.self { return try unwrapBool(value, parent, key) as! T }
        if T.self == JSONValue.self { return value as! T }
        if T.self == Data.self || T.self == URL.self || T.self == Decimal.self {
            return try unwrapFoundationValue(value, as: T.self, parent: parent, key: key)
        }
        let savedValue = self.value
        let savedPath = self.path
        self.value = value
        self.path = parent.appending(key)
        defer {
            self.value = savedValue
            self.path = savedPath
        }
        return try T(from: self)
    }

    /// `Data`, `URL` and `Decimal` as `JSONDecoder` decodes them by default.
    private func unwrapFoundationValue<T>(_ value: JSONValue, as type: T.Type, parent: CodingPathNode, key: (any CodingKey)?) throws -> T {
        if T.self == Decimal.self {
            guard case .number(let number) = value else { throw Self.mismatch(Decimal.self, value, parent.codingPath(appending: key)) }
            guard let decimal = Decimal(string: number.lexeme) else {
                throw Self.corrupted(parent.codingPath(appending: key), "number \(number.lexeme) does not fit in Decimal")
            }
            return decimal as! T
        }
        let text = try unwrapString(value, parent, key)
        if T.self == Data.self {
            guard let data = Data(base64Encoded: text) else {
                throw Self.corrupted(parent.codingPath(appending: key), "Encountered Data is not valid Base64.")
            }
            return data as! T
        }
        guard let url = URL(string: text) else {
            throw Self.corrupted(parent.codingPath(appending: key), "Invalid URL string.")
        }
        return url as! T
    }

    func unwrapBool(_ value: JSONValue, _ parent: CodingPathNode, _ key: (any CodingKey)?) throws -> Bool {
        guard case .bool(let bool) = value else { throw Self.mismatch(Bool.self, value, parent.codingPath(appending: key)) }
        return bool
    }

    func unwrapString(_ value: JSONValue, _ parent: CodingPathNode, _ key: (any CodingKey)?) throws -> String {
        guard case .string(let string) = value else { throw Self.mismatch(String.self, value, parent.codingPath(appending: key)) }
        return string
    }

    func unwrapDouble(_ value: JSONValue, _ parent: CodingPathNode, _ key: (any CodingKey)?) throws -> Double {
        guard case .number(let number) = value else { throw Self.mismatch(Double.self, value, parent.codingPath(appending: key)) }
        guard let double = number.finiteDouble else {
            throw Self.corrupted(parent.codingPath(appending: key), "number \(number.lexeme) does not fit in Double")
        }
        return double
    }

    func unwrapFloat(_ value: JSONValue, _ parent: CodingPathNode, _ key: (any CodingKey)?) throws -> Float {
        guard case .number(let number) = value else { throw Self.mismatch(Float.self, value, parent.codingPath(appending: key)) }
        guard let float = Float(number.lexeme), float.isFinite else {
            throw Self.corrupted(parent.codingPath(appending: key), "number \(number.lexeme) does not fit in Float")
        }
        return float
    }

    /// An integer from a number whose exact value is an integer in `T`'s range.
    func unwrapInteger<T: FixedWidthInteger>(_ value: JSONValue, _ type: T.Type, _ parent: CodingPathNode, _ key: (any CodingKey)?) throws -> T {
        guard case .number(let number) = value else { throw Self.mismatch(T.self, value, parent.codingPath(appending: key)) }
        if let integer = number.exactInteger(T.self) { return integer }
        throw Self.corrupted(parent.codingPath(appending: key), "number \(number.lexeme) does not fit in \(T.self)")
    }

    // MARK: SingleValueDecodingContainer

    func decodeNil() -> Bool { value.isNull }
    func decode(_ type: Bool.Type) throws -> Bool { try unwrapBool(value, path, nil) }
    func decode(_ type: String.Type) throws -> String { try unwrapString(value, path, nil) }
    func decode(_ type: Double.Type) throws -> Double { try unwrapDouble(value, path, nil) }
    func decode(_ type: Float.Type) throws -> Float { try unwrapFloat(value, path, nil) }
    func decode(_ type: Int.Type) throws -> Int { try unwrapInteger(value, Int.self, path, nil) }
    func decode(_ type: Int8.Type) throws -> Int8 { try unwrapInteger(value, Int8.self, path, nil) }
    func decode(_ type: Int16.Type) throws -> Int16 { try unwrapInteger(value, Int16.self, path, nil) }
    func decode(_ type: Int32.Type) throws -> Int32 { try unwrapInteger(value, Int32.self, path, nil) }
    func decode(_ type: Int64.Type) throws -> Int64 { try unwrapInteger(value, Int64.self, path, nil) }
    func decode(_ type: UInt.Type) throws -> UInt { try unwrapInteger(value, UInt.self, path, nil) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try unwrapInteger(value, UInt8.self, path, nil) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try unwrapInteger(value, UInt16.self, path, nil) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try unwrapInteger(value, UInt32.self, path, nil) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try unwrapInteger(value, UInt64.self, path, nil) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try unwrap(value, as: T.self, parent: path, key: nil) }

    // MARK: Errors

    /// `valueNotFound` for `null`, else `typeMismatch`, as `JSONDecoder` reports them.
    static func mismatch(_ type: Any.Type, _ value: JSONValue, _ codingPath: [any CodingKey]) -> DecodingError {
        if value.isNull {
            return .valueNotFound(type, .init(codingPath: codingPath, debugDescription: "Cannot get value of type \(type) -- found null value instead"))
        }
        return .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "Expected to decode \(type) but found \(value.kindDescription) instead."))
    }

    /// The error for asking a value that is not an object (an array) for a keyed (unkeyed) container.
    static func containerError(_ type: Any.Type, _ container: String, _ value: JSONValue, _ codingPath: [any CodingKey]) -> DecodingError {
        if value.isNull {
            return .valueNotFound(type, .init(codingPath: codingPath, debugDescription: "Cannot get \(container) -- found null value instead"))
        }
        return .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "Expected to decode \(type) but found \(value.kindDescription) instead."))
    }

    static func corrupted(_ codingPath: [any CodingKey], _ description: String) -> DecodingError {
        .dataCorrupted(.init(codingPath: codingPath, debugDescription: description))
    }
}

extension JSONValue {
    /// What kind of JSON value this is, for error messages: `a string`, `an object` ...
    var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a Boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
