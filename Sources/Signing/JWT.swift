import COpenSSL

/// The signature layer of JSON Web Tokens (RFC 7519): splitting, signing and verifying.
///
/// Claims are JSON and this module knows no JSON: callers parse `header` and `payload` bytes
/// themselves. HS256 uses HMAC-SHA256; RS256 verification uses libcrypto with a PEM public key.
/// Verification compares in constant time and never accepts `alg: none` (the caller decides the
/// algorithm from its configuration, never from the token alone).
package enum JWT {
    /// A token split into its parts, not yet verified.
    package struct Parts: Sendable {
        /// The decoded header JSON bytes.
        package let header: [UInt8]
        /// The decoded payload (claims) JSON bytes.
        package let payload: [UInt8]
        /// `base64url(header) + "." + base64url(payload)`, the bytes that are signed.
        package let signingInput: [UInt8]
        /// The decoded signature.
        package let signature: [UInt8]
    }

    /// Splits a compact JWS into its three decoded parts; nil when it is not three base64url segments.
    package static func split(_ token: String) -> Parts? {
        let bytes = Array(token.utf8)
        guard bytes.count <= 8192 else { return nil }
        var dots: [Int] = []
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: ".") {
            dots.append(index)
            if dots.count > 2 { return nil }
        }
        guard dots.count == 2, dots[0] > 0, dots[1] > dots[0] + 1,
              let header = Base64URL.decode(bytes: bytes[..<dots[0]]),
              let payload = Base64URL.decode(bytes: bytes[(dots[0] + 1)..<dots[1]]),
              let signature = Base64URL.decode(bytes: bytes[(dots[1] + 1)...]) else { return nil }
        return Parts(header: header, payload: payload, signingInput: Array(bytes[..<dots[1]]), signature: signature)
    }

    /// Signs header and payload JSON with HMAC-SHA256 and returns the compact token.
    package static func signHS256(header: [UInt8], payload: [UInt8], key: [UInt8]) -> String {
        let input = Base64URL.encode(header) + "." + Base64URL.encode(payload)
        let signature = Digest.hmacSHA256(key: key, message: Array(input.utf8))
        return input + "." + Base64URL.encode(signature)
    }

    /// Whether `parts` carry a valid HMAC-SHA256 signature under `key`.
    package static func verifyHS256(_ parts: Parts, key: [UInt8]) -> Bool {
        let expected = Digest.hmacSHA256(key: key, message: parts.signingInput)
        return Digest.constantTimeEquals(expected, parts.signature)
    }

    /// Whether `parts` carry a valid RSASSA-PKCS1-v1_5 SHA-256 signature by `key`.
    package static func verifyRS256(_ parts: Parts, key: RSAPublicKey) -> Bool {
        key.verifySHA256(message: parts.signingInput, signature: parts.signature)
    }
}

/// An RSA public key loaded from PEM (`-----BEGIN PUBLIC KEY-----`), for RS256 verification.
///
/// `@unchecked Sendable`: the `EVP_PKEY` is never mutated after loading, and libcrypto allows
/// concurrent verification with one key; it is freed once, in `deinit`.
package final class RSAPublicKey: @unchecked Sendable {
    private let key: OpaquePointer

    /// Loads a PEM public key; nil when the text is not one or the key is not RSA.
    package init?(pem: String) {
        var bytes = Array(pem.utf8)
        guard let bio = bytes.withUnsafeMutableBytes({ BIO_new_mem_buf($0.baseAddress, Int32($0.count)) }) else { return nil }
        defer { BIO_free(bio) }
        guard let key = PEM_read_bio_PUBKEY(bio, nil, nil, nil) else { return nil }
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA else {
            EVP_PKEY_free(key)
            return nil
        }
        self.key = key
    }

    deinit { EVP_PKEY_free(key) }

    func verifySHA256(message: [UInt8], signature: [UInt8]) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        let result = message.withUnsafeBufferPointer { m in
            signature.withUnsafeBufferPointer { s in
                EVP_DigestVerify(context, s.baseAddress, s.count, m.baseAddress, m.count)
            }
        }
        return result == 1
    }
}
