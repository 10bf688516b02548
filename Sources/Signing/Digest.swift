import COpenSSL

/// SHA-256 and HMAC-SHA256 from OpenSSL's libcrypto.
///
/// This module is the only code that touches libcrypto; callers see byte arrays only.
package enum Digest {
    /// The SHA-256 digest (32 bytes) of `bytes`.
    package static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                _ = SHA256(input.baseAddress, input.count, output.baseAddress)
            }
        }
        return out
    }

    /// HMAC-SHA256 (32 bytes) of `message` under `key`.
    package static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        key.withUnsafeBufferPointer { keyBuffer in
            message.withUnsafeBufferPointer { messageBuffer in
                out.withUnsafeMutableBufferPointer { output in
                    _ = HMAC(EVP_sha256(), keyBuffer.baseAddress, Int32(keyBuffer.count),
                             messageBuffer.baseAddress, messageBuffer.count, output.baseAddress, &length)
                }
            }
        }
        return Array(out.prefix(Int(length)))
    }

    /// Compares two byte strings in time that depends only on their lengths.
    package static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBufferPointer { pa in
            b.withUnsafeBufferPointer { pb in CRYPTO_memcmp(pa.baseAddress, pb.baseAddress, a.count) == 0 }
        }
    }

    /// `count` cryptographically secure random bytes.
    package static func randomBytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        let ok = out.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        precondition(ok == 1, "OpenSSL RAND_bytes failed")
        return out
    }

    /// Lowercase hex of `bytes`.
    package static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
