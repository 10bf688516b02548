/// Reads the protobuf wire format: tags, varints, fixed-width numbers and length-delimited spans.
///
/// Works on a borrowed byte slice; every read checks bounds and throws `malformed` rather than
/// trapping, because the bytes come from the network.
package struct WireReader {
    /// The wire types of protobuf encoding (groups are obsolete and refused).
    package enum WireType: UInt8, Sendable {
        case varint = 0, fixed64 = 1, lengthDelimited = 2, startGroup = 3, endGroup = 4, fixed32 = 5
    }

    let bytes: ArraySlice<UInt8>
    private(set) var position: Int

    package init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        position = bytes.startIndex
    }

    package var isAtEnd: Bool { position >= bytes.endIndex }

    /// The next field's number and wire type.
    package mutating func tag() throws(ProtobufError) -> (field: Int, wireType: WireType) {
        let key = try varint()
        let field = key >> 3
        guard field >= 1, field <= 536_870_911 else { throw .malformed("field number \(field) is out of range") }
        guard let type = WireType(rawValue: UInt8(key & 7)) else { throw .malformed("unknown wire type \(key & 7) for field \(field)") }
        return (Int(field), type)
    }

    /// A base-128 varint (up to 10 bytes).
    package mutating func varint() throws(ProtobufError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < bytes.endIndex else { throw .malformed("truncated varint") }
            let byte = bytes[position]
            position += 1
            guard shift < 64 else { throw .malformed("varint longer than 10 bytes") }
            result |= UInt64(byte & 0x7f) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
    }

    package mutating func fixed32() throws(ProtobufError) -> UInt32 {
        guard bytes.endIndex - position >= 4 else { throw .malformed("truncated fixed32") }
        var value: UInt32 = 0
        for i in 0..<4 { value |= UInt32(bytes[position + i]) << (8 * UInt32(i)) }
        position += 4
        return value
    }

    package mutating func fixed64() throws(ProtobufError) -> UInt64 {
        guard bytes.endIndex - position >= 8 else { throw .malformed("truncated fixed64") }
        var value: UInt64 = 0
        for i in 0..<8 { value |= UInt64(bytes[position + i]) << (8 * UInt64(i)) }
        position += 8
        return value
    }

    /// The bytes of a length-delimited field.
    package mutating func lengthDelimited() throws(ProtobufError) -> ArraySlice<UInt8> {
        let length = try varint()
        guard length <= UInt64(bytes.endIndex - position) else { throw .malformed("length \(length) runs past the end of the message") }
        let start = position
        position += Int(length)
        return bytes[start..<position]
    }

    /// Skips a field's value of the given wire type (unknown fields are skipped, never kept).
    package mutating func skip(_ type: WireType) throws(ProtobufError) {
        switch type {
        case .varint: _ = try varint()
        case .fixed64: _ = try fixed64()
        case .fixed32: _ = try fixed32()
        case .lengthDelimited: _ = try lengthDelimited()
        case .startGroup, .endGroup: throw .malformed("groups are not supported")
        }
    }
}
