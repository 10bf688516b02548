import Foundation
import JSON

extension ProtoSchema {
    /// Proto3 JSON (lowerCamel or proto names) as a binary protobuf message.
    ///
    /// Fields in the JSON that the schema does not name, and nulls, are left out. Singular scalars
    /// equal to their default (0, false, "", enum 0) are not written, as proto3 does; wrappers and
    /// other messages are written whenever present, so an explicit 0 in a wrapper survives.
    /// Repeated numbers and enums are packed.
    package func encode(_ json: JSONValue, as messageName: String, path: String = "") throws(ProtobufError) -> [UInt8] {
        var writer = WireWriter()
        try encodeMessage(json, as: messageName, into: &writer, path: path)
        return writer.bytes
    }

    private func encodeMessage(_ json: JSONValue, as name: String, into writer: inout WireWriter, path: String) throws(ProtobufError) {
        if try encodeWellKnown(json, as: name, into: &writer, path: path) { return }
        guard let message = messages[name] else { throw ProtobufError(.typeMismatch, "\(path): no schema for \(name)") }
        guard case .object(let object) = json else { throw ProtobufError(.typeMismatch, "\(path): \(name) must be a JSON object") }
        // In field-number order, as protobuf's own serializers write (so a round trip is byte-identical).
        var present: [(Field, JSONValue)] = []
        for (key, value) in object {
            guard let field = message.field(jsonName: key), value != .null else { continue }
            present.append((field, value))
        }
        present.sort { $0.0.number < $1.0.number }
        for (field, value) in present {
            let fieldPath = path.isEmpty ? field.name : path + "." + field.name
            if field.repeated {
                guard case .array(let elements) = value else { throw ProtobufError(.typeMismatch, "\(fieldPath) must be an array") }
                if field.isPackable {
                    guard !elements.isEmpty else { continue }
                    var packed = WireWriter()
                    for element in elements { try encodeScalar(element, field.type, into: &packed, path: fieldPath) }
                    writer.lengthDelimited(field.number, packed.bytes)
                } else {
                    for element in elements { try encodeField(element, field, into: &writer, path: fieldPath, keepDefault: true) }
                }
            } else {
                try encodeField(value, field, into: &writer, path: fieldPath, keepDefault: false)
            }
        }
    }

    private func encodeField(_ value: JSONValue, _ field: Field, into writer: inout WireWriter, path: String, keepDefault: Bool) throws(ProtobufError) {
        if case .message(let name) = field.type {
            var nested = WireWriter()
            try encodeMessage(value, as: name, into: &nested, path: path)
            writer.lengthDelimited(field.number, nested.bytes)
            return
        }
        var scalar = WireWriter()
        try encodeScalar(value, field.type, into: &scalar, path: path)
        if !keepDefault, Self.isDefault(scalar.bytes, field.type) { return }
        if Self.wireType(of: field.type) == .lengthDelimited {
            writer.tag(field.number, .lengthDelimited)
        } else {
            writer.tag(field.number, Self.wireType(of: field.type))
        }
        writer.append(scalar.bytes)
    }

    /// Whether an encoded scalar (without tag) is the type's default value.
    private static func isDefault(_ bytes: [UInt8], _ type: FieldType) -> Bool {
        switch wireType(of: type) {
        case .lengthDelimited: bytes == [0]
        case .varint: bytes == [0]
        case .fixed32: bytes == [0, 0, 0, 0]
        default: bytes == [0, 0, 0, 0, 0, 0, 0, 0]
        }
    }

    /// The value of a scalar field without its tag (strings and bytes with their length).
    private func encodeScalar(_ value: JSONValue, _ type: FieldType, into writer: inout WireWriter, path: String) throws(ProtobufError) {
        switch type {
        case .int32, .int64, .sint32, .sint64, .uint32, .uint64, .fixed32, .fixed64, .sfixed32, .sfixed64:
            let number = try Self.integer(value, path: path)
            switch type {
            case .int32, .int64: writer.signedVarint(number)
            case .uint32, .uint64: writer.varint(UInt64(bitPattern: number))
            case .sint32, .sint64: writer.varint(UInt64(bitPattern: (number << 1) ^ (number >> 63)))
            case .fixed32, .sfixed32: writer.fixed32(UInt32(truncatingIfNeeded: number))
            default: writer.fixed64(UInt64(bitPattern: number))
            }
        case .double: writer.fixed64(try Self.double(value, path: path).bitPattern)
        case .float: writer.fixed32(Float(try Self.double(value, path: path)).bitPattern)
        case .bool:
            guard case .bool(let flag) = value else { throw ProtobufError(.typeMismatch, "\(path) must be true or false") }
            writer.varint(flag ? 1 : 0)
        case .string:
            guard case .string(let text) = value else { throw ProtobufError(.typeMismatch, "\(path) must be a string") }
            writer.varint(UInt64(text.utf8.count))
            writer.append(Array(text.utf8))
        case .bytes:
            guard case .string(let text) = value, let data = Data(base64Encoded: text) else { throw ProtobufError(.typeMismatch, "\(path) must be base64") }
            writer.varint(UInt64(data.count))
            writer.append([UInt8](data))
        case .enumeration(let name):
            switch value {
            case .string(let valueName):
                guard let number = enums[name]?.number(of: valueName) else { throw ProtobufError(.typeMismatch, "\(path): \(valueName) is not a value of \(name)") }
                writer.signedVarint(Int64(number))
            default:
                writer.signedVarint(try Self.integer(value, path: path))
            }
        case .message:
            preconditionFailure("not a scalar")
        }
    }

    private static func integer(_ value: JSONValue, path: String) throws(ProtobufError) -> Int64 {
        switch value {
        case .number(let number):
            if let integer = number.int64Value { return integer }
        case .string(let text):
            if let integer = Int64(text) { return integer }
        default:
            break
        }
        throw ProtobufError(.typeMismatch, "\(path) must be an integer")
    }

    private static func double(_ value: JSONValue, path: String) throws(ProtobufError) -> Double {
        switch value {
        case .number(let number): return number.doubleValue
        case .string(let text):
            if let parsed = Double(text) { return parsed }
        default:
            break
        }
        throw ProtobufError(.typeMismatch, "\(path) must be a number")
    }

    /// Writes a well-known type's fields; false when `name` is not one.
    private func encodeWellKnown(_ json: JSONValue, as name: String, into writer: inout WireWriter, path: String) throws(ProtobufError) -> Bool {
        if name == Self.timestamp || name == Self.duration {
            guard case .string(let text) = json,
                  let (seconds, nanos) = name == Self.timestamp ? ProtoTime.parseTimestamp(text) : ProtoTime.parseDuration(text) else {
                throw ProtobufError(.typeMismatch, "\(path) must be a \(name == Self.timestamp ? "RFC 3339 timestamp" : "duration such as \"1.5s\"")")
            }
            if seconds != 0 {
                writer.tag(1, .varint)
                writer.signedVarint(seconds)
            }
            if nanos != 0 {
                writer.tag(2, .varint)
                writer.signedVarint(Int64(nanos))
            }
            return true
        }
        if name == Self.fieldMask {
            guard case .string(let text) = json else { throw ProtobufError(.typeMismatch, "\(path) must be a comma-separated string") }
            for path in text.split(separator: ",") where !path.isEmpty {
                writer.lengthDelimited(1, Array(String(path).utf8))
            }
            return true
        }
        if name == Self.empty { return true }
        if let wrapped = Self.wrapped(name) {
            var scalar = WireWriter()
            try encodeScalar(json, wrapped, into: &scalar, path: path)
            if !Self.isDefault(scalar.bytes, wrapped) {
                writer.tag(1, Self.wireType(of: wrapped))
                writer.append(scalar.bytes)
            }
            return true
        }
        return false
    }
}
