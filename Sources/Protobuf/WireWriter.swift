/// Writes the protobuf wire format into a growing byte buffer.
package struct WireWriter {
    package private(set) var bytes: [UInt8] = []

    package init() {}

    package mutating func tag(_ field: Int, _ type: WireReader.WireType) {
        varint(UInt64(field) << 3 | UInt64(type.rawValue))
    }

    package mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(v & 0x7f) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    /// An int32/int64/enum value: negative numbers take ten bytes (sign-extended), as protobuf says.
    package mutating func signedVarint(_ value: Int64) {
        varint(UInt64(bitPattern: value))
    }

    package mutating func fixed32(_ value: UInt32) {
        for i in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt32(i)))) }
    }

    package mutating func fixed64(_ value: UInt64) {
        for i in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
    }

    package mutating func lengthDelimited(_ field: Int, _ payload: [UInt8]) {
        tag(field, .lengthDelimited)
        varint(UInt64(payload.count))
        bytes.append(contentsOf: payload)
    }
}

extension WireWriter {
    /// Raw bytes, already encoded.
    package mutating func append(_ raw: [UInt8]) {
        bytes.append(contentsOf: raw)
    }
}
