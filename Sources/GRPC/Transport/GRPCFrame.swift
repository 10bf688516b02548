/// gRPC's length-prefixed message framing (one message per unary request or response).
enum GRPCFrame {
    /// `message` framed: a zero flag byte (not compressed), its length as 4 bytes big-endian, the message.
    static func framed(_ message: [UInt8]) -> [UInt8] {
        let length = UInt32(message.count)
        return [0, UInt8(length >> 24), UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff)] + message
    }

    /// Copies the next part of `body` (from `sent`, at most `length` bytes) into nghttp2's buffer
    /// for a DATA frame; returns how many bytes it copied and whether that was the last of them.
    static func copyChunk(of body: [UInt8], sent: inout Int, into buffer: UnsafeMutablePointer<UInt8>, length: Int) -> (count: Int, done: Bool) {
        let count = min(length, body.count - sent)
        body.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress! + sent, count: count) }
        sent += count
        return (count, sent == body.count)
    }
}
