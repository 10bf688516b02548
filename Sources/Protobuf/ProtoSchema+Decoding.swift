import Foundation
import JSON

extension ProtoSchema {
    /// A binary protobuf message as proto3 JSON (lowerCamel names).
    ///
    /// Enums become their names (numbers this schema does not know stay numbers), int64 values
    /// strings, wrappers bare values, Timestamp/Duration their text forms, and a FieldMask the
    /// comma-joined paths exactly as sent (callers accept snake_case and lowerCamel alike).
    /// Unknown fields are skipped; packed and unpacked repeated fields are both read.
    package func decode(_ bytes: ArraySlice<UInt8>, as messageName: String, path: String = "") throws(ProtobufError) -> JSONValue {
        if let special = try decodeWellKnown(bytes, as: messageName, path: path) { return special }
        guard let message = messages[messageName] else { throw .malformed("\(path): no schema for \(messageName)") }
        var reader = WireReader(bytes)
        var singles: [Int: JSONValue] = [:]
        var lists: [Int: [JSONValue]] = [:]
        while !reader.isAtEnd {
            let (number, wireType) = try reader.tag()
            guard let field = message.field(number: number) else {
                try reader.skip(wireType)
                continue
            }
            let fieldPath = path.isEmpty ? field.name : path + "." + field.name
            if field.repeated, field.isPackable, wireType == .lengthDelimited {
                var packed = WireReader(try reader.lengthDelimited())
                let elementWire = Self.wireType(of: field.type)
                while !packed.isAtEnd {
                    lists[number, default: []].append(try decodeValue(&packed, wireType: elementWire, field: field, path: fieldPath))
                }
                continue
            }
            let value = try decodeValue(&reader, wireType: wireType, field: field, path: fieldPath)
            if field.repeated {
                lists[number, default: []].append(value)
            } else {
                singles[number] = value
            }
        }
        var members: [(String, JSONValue)] = []
        for field in message.fields {
            if let value = singles[field.number] {
                members.append((field.jsonName, value))
            } else if let values = lists[field.number] {
                members.append((field.jsonName, .array(values)))
            }
        }
        return .object(JSONObject(members))
    }

    static func wireType(of type: FieldType) -> WireReader.WireType {
        switch type {
        case .double, .fixed64, .sfixed64: .fixed64
        case .float, .fixed32, .sfixed32: .fixed32
        case .string, .bytes, .message: .lengthDelimited
        default: .varint
        }
    }

    private func decodeValue(_ reader: inout WireReader, wireType: WireReader.WireType, field: Field, path: String) throws(ProtobufError) -> JSONValue {
        let expected = Self.wireType(of: field.type)
        guard wireType == expected else {
            throw .malformed("\(path): wire type \(wireType.rawValue) does not match the field's type (expected \(expected.rawValue))")
        }
        switch field.type {
        case .message(let name):
            return try decode(try reader.lengthDelimited(), as: name, path: path)
        case .enumeration(let name):
            let number = Int(Int32(truncatingIfNeeded: try reader.varint()))
            if let valueName = enums[name]?.name(of: number) { return .string(valueName) }
            return .number(JSONNumber(number))
        default:
            return try Self.scalar(&reader, field.type, path: path)
        }
    }

    /// One scalar value of `type` read from `reader`.
    static func scalar(_ reader: inout WireReader, _ type: FieldType, path: String) throws(ProtobufError) -> JSONValue {
        switch type {
        case .int32: return .number(JSONNumber(Int(Int32(truncatingIfNeeded: try reader.varint()))))
        case .uint32: return .number(JSONNumber(Int(UInt32(truncatingIfNeeded: try reader.varint()))))
        case .sint32:
            let raw = UInt32(truncatingIfNeeded: try reader.varint())
            return .number(JSONNumber(Int(Int32(bitPattern: (raw >> 1) ^ (0 &- (raw & 1))))))
        case .int64: return .string(String(Int64(bitPattern: try reader.varint())))
        case .uint64: return .string(String(try reader.varint()))
        case .sint64:
            let raw = try reader.varint()
            return .string(String(Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))))
        case .fixed32: return .number(JSONNumber(Int(try reader.fixed32())))
        case .sfixed32: return .number(JSONNumber(Int(Int32(bitPattern: try reader.fixed32()))))
        case .fixed64: return .string(String(try reader.fixed64()))
        case .sfixed64: return .string(String(Int64(bitPattern: try reader.fixed64())))
        case .bool: return .bool(try reader.varint() != 0)
        case .double: return number(Double(bitPattern: try reader.fixed64()))
        case .float: return number(Double(Float(bitPattern: try reader.fixed32())))
        case .string:
            let raw = try reader.lengthDelimited()
            guard let text = String(validating: raw, as: UTF8.self) else { throw .malformed("\(path): a string field holds invalid UTF-8") }
            return .string(text)
        case .bytes:
            return .string(Data(try reader.lengthDelimited()).base64EncodedString())
        case .enumeration, .message:
            preconditionFailure("not a scalar")
        }
    }

    private static func number(_ value: Double) -> JSONValue {
        if let number = JSONNumber(value) { return .number(number) }
        return .string(value.isNaN ? "NaN" : value > 0 ? "Infinity" : "-Infinity")
    }

    /// Timestamp, Duration, FieldMask, Empty and the wrappers; nil for any other message.
    private func decodeWellKnown(_ bytes: ArraySlice<UInt8>, as name: String, path: String) throws(ProtobufError) -> JSONValue? {
        let isTime = name == Self.timestamp || name == Self.duration
        let wrapped = Self.wrapped(name)
        guard isTime || wrapped != nil || name == Self.fieldMask || name == Self.empty else { return nil }
        var reader = WireReader(bytes)
        var seconds: Int64 = 0
        var nanos: Int32 = 0
        var paths: [String] = []
        var value: JSONValue?
        while !reader.isAtEnd {
            let (number, wireType) = try reader.tag()
            if isTime, number == 1, wireType == .varint {
                seconds = Int64(bitPattern: try reader.varint())
            } else if isTime, number == 2, wireType == .varint {
                nanos = Int32(truncatingIfNeeded: try reader.varint())
            } else if name == Self.fieldMask, number == 1, wireType == .lengthDelimited {
                let raw = try reader.lengthDelimited()
                guard let text = String(validating: raw, as: UTF8.self) else { throw .malformed("\(path): a field mask path holds invalid UTF-8") }
                paths.append(text)
            } else if let wrapped, number == 1, wireType == Self.wireType(of: wrapped) {
                value = try Self.scalar(&reader, wrapped, path: path)
            } else {
                try reader.skip(wireType)
            }
        }
        if name == Self.timestamp {
            guard seconds >= -62_135_596_800, seconds <= 253_402_300_799, nanos >= 0, nanos < 1_000_000_000 else {
                throw .malformed("\(path): timestamp out of range (seconds \(seconds), nanos \(nanos))")
            }
            return .string(ProtoTime.formatTimestamp(seconds: seconds, nanos: nanos))
        }
        if name == Self.duration {
            guard nanos > -1_000_000_000, nanos < 1_000_000_000, (seconds >= 0 && nanos >= 0) || (seconds <= 0 && nanos <= 0) else {
                throw .malformed("\(path): duration out of range (seconds \(seconds), nanos \(nanos))")
            }
            return .string(ProtoTime.formatDuration(seconds: seconds, nanos: nanos))
        }
        if name == Self.fieldMask { return .string(paths.joined(separator: ",")) }
        if name == Self.empty { return .object(JSONObject()) }
        if let value { return value }
        // An empty wrapper is an explicit default value (an explicit 0, false or "").
        switch wrapped {
        case .bool: return .bool(false)
        case .string, .bytes: return .string("")
        case .int64, .uint64: return .string("0")
        default: return .number(JSONNumber(0))
        }
    }
}
