/// A gRPC status: the code and message sent in the `grpc-status` and `grpc-message` trailers.
package struct GRPCStatus: Sendable, Hashable, CustomStringConvertible {
    package var code: Int
    package var message: String

    package init(code: Int, message: String) {
        self.code = code
        self.message = message
    }

    package static let ok = GRPCStatus(code: 0, message: "")
    package static func invalidArgument(_ message: String) -> GRPCStatus { GRPCStatus(code: 3, message: message) }
    package static func deadlineExceeded(_ message: String) -> GRPCStatus { GRPCStatus(code: 4, message: message) }
    package static func resourceExhausted(_ message: String) -> GRPCStatus { GRPCStatus(code: 8, message: message) }
    package static func unimplemented(_ message: String) -> GRPCStatus { GRPCStatus(code: 12, message: message) }
    package static func `internal`(_ message: String) -> GRPCStatus { GRPCStatus(code: 13, message: message) }
    package static func unavailable(_ message: String) -> GRPCStatus { GRPCStatus(code: 14, message: message) }

    package var description: String { "\(code) \(message)" }

    /// `grpc-message` is percent-encoded: bytes outside printable ASCII, and `%`, become `%XX`.
    package static func percentEncoded(_ message: String) -> String {
        var out = ""
        for byte in message.utf8 {
            if byte >= 0x20, byte <= 0x7e, byte != UInt8(ascii: "%") {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
            }
        }
        return out
    }

    /// The inverse of `percentEncoded` (malformed escapes are kept as they are).
    package static func percentDecoded(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count, let value = UInt8(String(decoding: bytes[(i + 1)...(i + 2)], as: UTF8.self), radix: 16) {
                out.append(value)
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
