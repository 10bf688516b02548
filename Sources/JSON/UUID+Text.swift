import Foundation

extension UUID {
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// A random (version 4) id from the system's generator.
    ///
    /// The same kind of id as `UUID()`, which on Linux opens, reads and closes `/dev/urandom` for
    /// every id; the server names every event it appends with one. This draws two words from
    /// `SystemRandomNumberGenerator` (`getrandom`) and sets the version and variant bits.
    package static func random() -> UUID {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { raw in
            raw.storeBytes(of: high.bigEndian, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: low.bigEndian, toByteOffset: 8, as: UInt64.self)
            raw[6] = raw[6] & 0x0F | 0x40  // version 4
            raw[8] = raw[8] & 0x3F | 0x80  // variant 10xx (RFC 9562)
        }
        return UUID(uuid: bytes)
    }

    /// The id as lowercase 8-4-4-4-12 hex, the way the API and the hash chain spell it.
    ///
    /// The same text as `uuidString.lowercased()`, written byte by byte: Foundation formats
    /// `uuidString` through `sprintf`, and location ingest spells several ids per report.
    package var lowercasedText: String {
        let bytes = uuid
        return String(unsafeUninitializedCapacity: 36) { out in
            var at = 0
            withUnsafeBytes(of: bytes) { raw in
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        out[at] = UInt8(ascii: "-")
                        at += 1
                    }
                    out[at] = UUID.hexDigits[Int(raw[index] >> 4)]
                    out[at + 1] = UUID.hexDigits[Int(raw[index] & 0x0F)]
                    at += 2
                }
            }
            return 36
        }
    }

    /// Parses 8-4-4-4-12 hex (either case); nil for anything else. Accepts exactly what
    /// `UUID(uuidString:)` accepts, without Foundation's `sscanf`.
    package init?(text: String) {
        var bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var text = text
        let parsed = text.withUTF8 { utf8 -> Bool in
            guard utf8.count == 36 else { return false }
            return withUnsafeMutableBytes(of: &bytes) { out -> Bool in
                func nibble(_ byte: UInt8) -> UInt8? {
                    switch byte {
                    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
                    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
                    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
                    default: nil
                    }
                }
                var at = 0
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        guard utf8[at] == UInt8(ascii: "-") else { return false }
                        at += 1
                    }
                    guard let high = nibble(utf8[at]), let low = nibble(utf8[at + 1]) else { return false }
                    out[index] = high << 4 | low
                    at += 2
                }
                return true
            }
        }
        guard parsed else { return nil }
        self.init(uuid: bytes)
    }
}
