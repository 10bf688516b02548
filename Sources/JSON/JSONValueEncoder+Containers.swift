/// The keyed container of ``JSONValueEncoder``: writes the members of one object.
struct JSONValueKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let builder: JSONObjectBuilder

    private var encoder: JSONValueEncoderImpl { builder.encoder }
    private var path: CodingPathNode { builder.path }

    var codingPath: [any CodingKey] { path.codingPath }

    @inline(__always)
    private func set(_ key: Key, _ value: JSONValue) {
        builder.members.append((key.stringValue, .value(value)))
    }

    mutating func encodeNil(forKey key: Key) { set(key, .null) }
    mutating func encode(_ value: Bool, forKey key: Key) { set(key, .bool(value)) }
    mutating func encode(_ value: String, forKey key: Key) { set(key, .string(value)) }
    mutating func encode(_ value: Double, forKey key: Key) throws { set(key, try JSONValueEncoderImpl.number(value, path, key)) }
    mutating func encode(_ value: Float, forKey key: Key) throws { set(key, try JSONValueEncoderImpl.number(value, path, key)) }
    mutating func encode(_ value: Int, forKey key: Key) { set(key, .number(JSONNumber(value))) }
    mutating func encode(_ value: Int8, forKey key: Key) { set(key, .number(JSONNumber(Int64(value)))) }
    mutating func encode(_ value: Int16, forKey key: Key) { set(key, .number(JSONNumber(Int64(value)))) }
    mutating func encode(_ value: Int32, forKey key: Key) { set(key, .number(JSONNumber(Int64(value)))) }
    mutating func encode(_ value: Int64, forKey key: Key) { set(key, .number(JSONNumber(value))) }
    mutating func encode(_ value: UInt, forKey key: Key) { set(key, .number(JSONNumber(UInt64(value)))) }
    mutating func encode(_ value: UInt8, forKey key: Key) { set(key, .number(JSONNumber(Int64(value)))) }
    mutating func encode(_ value: UInt16, forKey key: Key) { set(key, .number(JSONNumber(Int64(value)))) }
    mutating func encode(_ value: UInt32, forKey key: Key) { set(key, .number(JSONNumber(Int64(value)))) }
    mutating func encode(_ value: UInt64, forKey key: Key) { set(key, .number(JSONNumber(value))) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        set(key, try encoder.wrap(value, parent: path, key: key))
    }

    /// The object under `key`; one already made for `key` by this method is reused.
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let name = key.stringValue
        let nested: JSONObjectBuilder
        if let existing = builder.members.last(where: { UTF8Key.equal($0.key, name) }), case .object(let object) = existing.value {
            nested = object
        } else {
            nested = JSONObjectBuilder(encoder: encoder, path: path.appending(key))
            builder.members.append((name, .object(nested)))
        }
        return KeyedEncodingContainer(JSONValueKeyedEncodingContainer<NestedKey>(builder: nested))
    }

    /// The array under `key`; one already made for `key` by this method is reused.
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let name = key.stringValue
        let nested: JSONArrayBuilder
        if let existing = builder.members.last(where: { UTF8Key.equal($0.key, name) }), case .array(let array) = existing.value {
            nested = array
        } else {
            nested = JSONArrayBuilder(encoder: encoder, path: path.appending(key))
            builder.members.append((name, .array(nested)))
        }
        return JSONValueUnkeyedEncodingContainer(builder: nested)
    }

    /// An encoder for the member `super`.
    mutating func superEncoder() -> any Encoder {
        superEncoder(named: "super", key: AnyCodingKey(stringValue: "super"))
    }

    /// An encoder for the member `key`.
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(named: key.stringValue, key: key)
    }

    private func superEncoder(named name: String, key: any CodingKey) -> any Encoder {
        let encoder = JSONValueEncoderImpl(path: path.appending(key))
        builder.members.append((name, .deferred(encoder)))
        return encoder
    }
}

/// The unkeyed container of ``JSONValueEncoder``: writes the elements of one array.
struct JSONValueUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let builder: JSONArrayBuilder

    private var encoder: JSONValueEncoderImpl { builder.encoder }
    private var path: CodingPathNode { builder.path }

    var codingPath: [any CodingKey] { path.codingPath }

    var count: Int { builder.elements.count }

    @inline(__always)
    private func append(_ value: JSONValue) {
        builder.elements.append(.value(value))
    }

    private var key: IndexCodingKey { IndexCodingKey(count) }

    mutating func encodeNil() { append(.null) }
    mutating func encode(_ value: Bool) { append(.bool(value)) }
    mutating func encode(_ value: String) { append(.string(value)) }
    mutating func encode(_ value: Double) throws { append(try JSONValueEncoderImpl.number(value, path, key)) }
    mutating func encode(_ value: Float) throws { append(try JSONValueEncoderImpl.number(value, path, key)) }
    mutating func encode(_ value: Int) { append(.number(JSONNumber(value))) }
    mutating func encode(_ value: Int8) { append(.number(JSONNumber(Int64(value)))) }
    mutating func encode(_ value: Int16) { append(.number(JSONNumber(Int64(value)))) }
    mutating func encode(_ value: Int32) { append(.number(JSONNumber(Int64(value)))) }
    mutating func encode(_ value: Int64) { append(.number(JSONNumber(value))) }
    mutating func encode(_ value: UInt) { append(.number(JSONNumber(UInt64(value)))) }
    mutating func encode(_ value: UInt8) { append(.number(JSONNumber(Int64(value)))) }
    mutating func encode(_ value: UInt16) { append(.number(JSONNumber(Int64(value)))) }
    mutating func encode(_ value: UInt32) { append(.number(JSONNumber(Int64(value)))) }
    mutating func encode(_ value: UInt64) { append(.number(JSONNumber(value))) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        append(try encoder.wrap(value, parent: path, key: key))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = JSONObjectBuilder(encoder: encoder, path: path.appending(key))
        builder.elements.append(.object(nested))
        return KeyedEncodingContainer(JSONValueKeyedEncodingContainer<NestedKey>(builder: nested))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = JSONArrayBuilder(encoder: encoder, path: path.appending(key))
        builder.elements.append(.array(nested))
        return JSONValueUnkeyedEncodingContainer(builder: nested)
    }

    mutating func superEncoder() -> any Encoder {
        let encoder = JSONValueEncoderImpl(path: path.appending(key))
        builder.elements.append(.deferred(encoder))
        return encoder
    }
}
