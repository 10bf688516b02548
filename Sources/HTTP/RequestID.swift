import Synchronization

/// The `x-request-id` rule: reuse the client's id when it is safe to echo and log, else make one.
///
/// Acceptable ids are 1–128 characters of `[A-Za-z0-9._-]`, so a client cannot inject header
/// syntax or log noise. Generated ids are 128 bits as 32 lowercase hex digits.
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
        let number = source.counter.add(1, ordering: .relaxed).newValue
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(32)
        for var word in [mix(number ^ source.seeds.0), mix(number &+ source.seeds.1)] {
            for _ in 0..<16 {
                out.append(digits[Int(word & 0xF)])
                word >>= 4
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A process-wide counter and two random seeds: ids are unique within the process (`mix` is a
    /// bijection of the counter) and unpredictable across processes, without a `getrandom` system
    /// call per request.
    private static let source = Source()

    private final class Source: Sendable {
        let counter = Atomic<UInt64>(0)
        let seeds: (UInt64, UInt64)

        init() {
            var generator = SystemRandomNumberGenerator()
            seeds = (generator.next(), generator.next())
        }
    }

    /// SplitMix64's finalizer: a bijection on 64-bit values that spreads every input bit.
    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
