/// The `x-request-id` rule: reuse the client's id when it is safe to echo and log, else make one.
///
/// Acceptable ids are 1–128 characters of `[A-Za-z0-9._-]`, so a client cannot inject header
/// syntax or log noise. Generated ids are 16 random bytes as 32 lowercase hex digits.
enum RequestID {
    /// The id to use for a request that carried `clientValue` (nil when absent).
    static func resolve(_ clientValue: String?) -> String {
        if let clientValue, isAcceptable(clientValue) { return clientValue }
        return generate()
    }

    static func isAcceptable(_ value: String) -> Bool {
        let bytes = value.utf8
        guard !bytes.isEmpty, bytes.count <= 128 else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                return true
            default:
                return false
            }
        }
    }

    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(32)
        for _ in 0..<2 {
            var word = generator.next() as UInt64
            for _ in 0..<16 {
                out.append(digits[Int(word & 0xF)])
                word >>= 4
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
