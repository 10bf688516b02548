import Signing

/// The `Waymark-Signature` header: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`.
///
/// The timestamp is signed with the body, so a receiver can refuse deliveries older than a few
/// minutes (replayed captures) and check the body was not altered, with the subscription's secret.
package enum WebhookSignature {
    package static func header(secret: String, body: [UInt8], unixSeconds: Int64) -> String {
        "t=\(unixSeconds),v1=\(hex(secret: secret, body: body, unixSeconds: unixSeconds))"
    }

    package static func hex(secret: String, body: [UInt8], unixSeconds: Int64) -> String {
        Digest.hex(Digest.hmacSHA256(key: Array(secret.utf8), message: Array("\(unixSeconds).".utf8) + body))
    }

    /// Checks a header against `body` (what a receiver does), in constant time for the digest.
    package static func verify(header: String, secret: String, body: [UInt8]) -> Bool {
        var t: Int64?
        var v1: String?
        for part in header.split(separator: ",") {
            if part.hasPrefix("t=") { t = Int64(part.dropFirst(2)) }
            if part.hasPrefix("v1=") { v1 = String(part.dropFirst(3)) }
        }
        guard let t, let v1 else { return false }
        return Digest.constantTimeEquals(Array(v1.utf8), Array(hex(secret: secret, body: body, unixSeconds: t).utf8))
    }
}
