/// What a container of ``JSONValueDecoder`` reads: its object or array, its path, the decoder.
///
/// A container keeps just a reference to this: the standard library's type-erasing box copies
/// the container for every call, and one reference is cheaper to copy than three.
final class JSONValueDecodingScope<Content> {
    let decoder: JSONValueDecoderImpl
    let content: Content
    let path: CodingPathNode

    init(decoder: JSONValueDecoderImpl, content: Content, path: CodingPathNode) {
        self.decoder = decoder
        self.content = content
        self.path = path
    }
}

/// The keyed container of ``JSONValueDecoder``: the members of one object.
struct JSONValueKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    private let scope: JSONValueDecodingScope<JSONObject>

    init(decoder: JSONValueDecoderImpl, object: JSONObject, path: CodingPathNode) {
        scope = JSONValueDecodingScope(decoder: decoder, content: object, path: path)
    }

    private var decoder: JSONValueDecoderImpl { scope.decoder }
    private var object: JSONObject { scope.content }
    private var path: CodingPathNode { scope.path }

    var codingPath: [any CodingKey] { path.codingPath }

    /// The keys of the members that `Key` can name, in member order.
    var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool {
        object.containsKey(key.stringValue)
    }

    /// The member for `key`, or `keyNotFound`.
    @inline(__always)
    private func member(_ key: Key) throws -> JSONValue {
        guard let value = object[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(
                codingPath: path.codingPath, debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        return value
    }

    /// The member for `key` unless it is missing or `null`.
    @inline(__always)
    private func presentMember(_ key: Key) -> JSONValue? {
        guard let value = object[key.stringValue], !value.isNull else { return nil }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        try member(key).isNull
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder.unwrapBool(try member(key), path, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder.unwrapString(try member(key), path, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder.unwrapDouble(try member(key), path, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoder.unwrapFloat(try member(key), path, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder.unwrapInteger(try member(key), Int.self, path, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decoder.unwrapInteger(try member(key), Int8.self, path, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decoder.unwrapInteger(try member(key), Int16.self, path, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decoder.unwrapInteger(try member(key), Int32.self, path, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decoder.unwrapInteger(try member(key), Int64.self, path, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decoder.unwrapInteger(try member(key), UInt.self, path, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decoder.unwrapInteger(try member(key), UInt8.self, path, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decoder.unwrapInteger(try member(key), UInt16.self, path, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoder.unwrapInteger(try member(key), UInt32.self, path, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoder.unwrapInteger(try member(key), UInt64.self, path, key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.unwrap(try member(key), as: T.self, parent: path, key: key)
    }

    // One lookup each, where the protocol's defaults would look the key up three times.
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try presentMember(key).map { try decoder.unwrapBool($0, path, key) }
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try presentMember(key).map { try decoder.unwrapString($0, path, key) }
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try presentMember(key).map { try decoder.unwrapDouble($0, path, key) }
    }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try presentMember(key).map { try decoder.unwrapFloat($0, path, key) }
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try presentMember(key).map { try decoder.unwrapInteger($0, Int.self, path, key) }
    }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
        try presentMember(key).map { try decoder.unwrapInteger($0, Int8.self, path, key) }
    }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        try presentMember(key).map { try decoder.unwrapInteger($0, Int16.self, path, key) }
    }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        try presentMember(key).map { try decoder.unwrapInteger($0, Int32.self, path, key) }
    }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try presentMember(key).map { try decoder.unwrapInteger($0, Int64.self, path, key) }
    }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        try presentMember(key).map { try decoder.unwrapInteger($0, UInt.self, path, key) }
    }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        try presentMember(key).map { try decoder.unwrapInteger($0, UInt8.self, path, key) }
    }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        try presentMember(key).map { try decoder.unwrapInteger($0, UInt16.self, path, key) }
    }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        try presentMember(key).map { try decoder.unwrapInteger($0, UInt32.self, path, key) }
    }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        try presentMember(key).map { try decoder.unwrapInteger($0, UInt64.self, path, key) }
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try presentMember(key).map { try decoder.unwrap($0, as: T.self, parent: path, key: key) }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let value = try member(key)
        guard case .object(let nested) = value else {
            throw JSONValueDecoderImpl.containerError([String: Any].self, "keyed decoding container", value, path.codingPath(appending: key))
        }
        return KeyedDecodingContainer(JSONValueKeyedDecodingContainer<NestedKey>(decoder: decoder, object: nested, path: path.appending(key)))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let value = try member(key)
        guard case .array(let elements) = value else {
            throw JSONValueDecoderImpl.containerError([Any].self, "unkeyed decoding container", value, path.codingPath(appending: key))
        }
        return JSONValueUnkeyedDecodingContainer(decoder: decoder, elements: elements, path: path.appending(key))
    }

    /// A decoder for the member `super`; `null` when there is none, as with `JSONDecoder`.
    func superDecoder() throws -> any Decoder {
        let key = AnyCodingKey(stringValue: "super")
        return JSONValueDecoderImpl(value: object["super"] ?? .null, path: path.appending(key))
    }

    /// A decoder for the member `key`; `null` when there is none, as with `JSONDecoder`.
    func superDecoder(forKey key: Key) throws -> any Decoder {
        JSONValueDecoderImpl(value: object[key.stringValue] ?? .null, path: path.appending(key))
    }
}

/// The unkeyed container of ``JSONValueDecoder``: the elements of one array, read in order.
///
/// The index moves past an element only when it decoded (or, for `decodeNil`, was `null`).
///
/// Two words (a reference and the index), so it fits an existential's inline buffer.
struct JSONValueUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    private let scope: JSONValueDecodingScope<[JSONValue]>
    private(set) var currentIndex = 0

    init(decoder: JSONValueDecoderImpl, elements: [JSONValue], path: CodingPathNode) {
        scope = JSONValueDecodingScope(decoder: decoder, content: elements, path: path)
    }

    private var decoder: JSONValueDecoderImpl { scope.decoder }
    private var elements: [JSONValue] { scope.content }
    private var path: CodingPathNode { scope.path }

    var codingPath: [any CodingKey] { path.codingPath }

    var count: Int? { elements.count }

    var isAtEnd: Bool { currentIndex >= elements.count }

    /// The element at the current index, or `valueNotFound` past the end.
    @inline(__always)
    private func current(_ type: Any.Type) throws -> JSONValue {
        guard currentIndex < elements.count else {
            throw DecodingError.valueNotFound(type, .init(
                codingPath: path.codingPath(appending: IndexCodingKey(currentIndex)), debugDescription: "Unkeyed container is at end."))
        }
        return elements[currentIndex]
    }

    private var key: IndexCodingKey { IndexCodingKey(currentIndex) }

    mutating func decodeNil() throws -> Bool {
        guard try current(Any?.self).isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try advance(decoder.unwrapBool(try current(type), path, key)) }
    mutating func decode(_ type: String.Type) throws -> String { try advance(decoder.unwrapString(try current(type), path, key)) }
    mutating func decode(_ type: Double.Type) throws -> Double { try advance(decoder.unwrapDouble(try current(type), path, key)) }
    mutating func decode(_ type: Float.Type) throws -> Float { try advance(decoder.unwrapFloat(try current(type), path, key)) }
    mutating func decode(_ type: Int.Type) throws -> Int { try advance(decoder.unwrapInteger(try current(type), Int.self, path, key)) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try advance(decoder.unwrapInteger(try current(type), Int8.self, path, key)) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try advance(decoder.unwrapInteger(try current(type), Int16.self, path, key)) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try advance(decoder.unwrapInteger(try current(type), Int32.self, path, key)) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try advance(decoder.unwrapInteger(try current(type), Int64.self, path, key)) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try advance(decoder.unwrapInteger(try current(type), UInt.self, path, key)) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try advance(decoder.unwrapInteger(try current(type), UInt8.self, path, key)) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try advance(decoder.unwrapInteger(try current(type), UInt16.self, path, key)) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try advance(decoder.unwrapInteger(try current(type), UInt32.self, path, key)) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try advance(decoder.unwrapInteger(try current(type), UInt64.self, path, key)) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try advance(decoder.unwrap(try current(type), as: T.self, parent: path, key: key))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let value = try current([String: Any].self)
        guard case .object(let object) = value else {
            throw JSONValueDecoderImpl.containerError([String: Any].self, "keyed decoding container", value, path.codingPath(appending: key))
        }
        return advance(KeyedDecodingContainer(JSONValueKeyedDecodingContainer<NestedKey>(decoder: decoder, object: object, path: path.appending(key))))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let value = try current([Any].self)
        guard case .array(let nested) = value else {
            throw JSONValueDecoderImpl.containerError([Any].self, "unkeyed decoding container", value, path.codingPath(appending: key))
        }
        return advance(JSONValueUnkeyedDecodingContainer(decoder: decoder, elements: nested, path: path.appending(key)))
    }

    mutating func superDecoder() throws -> any Decoder {
        let value = try current((any Decoder).self)
        return advance(JSONValueDecoderImpl(value: value, path: path.appending(key)))
    }

    /// Moves past the current element and returns what was decoded from it.
    @inline(__always)
    private mutating func advance<T>(_ decoded: T) -> T {
        currentIndex += 1
        return decoded
    }
}
