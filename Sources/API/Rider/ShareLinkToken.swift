import Foundation
import JSON
import Signing
import Synchronization

/// The bearer token of a share link: self-describing and signed, so any node can check it from memory.
///
/// Shape: `wms1.<base64url(payload)>.<base64url(HMAC-SHA256)>`, the payload
/// `{"p":provider,"t":tripId,"l":linkId,"exp":unix seconds}`. The key is derived from the
/// server's HS256 secret (`HMAC(secret, "waymark share links v1")`), so every node of a
/// deployment accepts the same links and no JWT can pass for a link or the reverse. A valid
/// signature says the server issued the link; whether it still works (not revoked, trip not ended
/// more than 15 minutes ago) is the journey projection's `shares` document's to say.
package final class ShareLinkToken: Sendable {
    /// What a link token names.
    package struct Claims: Sendable, Hashable {
        package var provider: String
        package var tripId: String
        package var linkId: String
        /// Unix seconds after which the link never works.
        package var expires: Int64
    }

    /// The prefix every link token starts with (and no JWT does).
    package static let prefix = "wms1."

    private let key: [UInt8]
    private let verified = Mutex<[String: Claims]>([:])
    private static let cacheCapacity = 10_000

    /// A signer/verifier keyed from the server's HS256 secret.
    package init(secret: [UInt8]) {
        key = Digest.hmacSHA256(key: secret, message: Array("waymark share links v1".utf8))
    }

    /// Whether `token` is shaped like a link token (it may still be forged or expired).
    package static func looksLikeLink(_ token: String) -> Bool {
        token.utf8.starts(with: prefix.utf8)
    }

    /// Signs the claims.
    func mint(_ claims: Claims) -> String {
        let payload: JSONValue = .object(JSONObject([
            ("p", .string(claims.provider)), ("t", .string(claims.tripId)), ("l", .string(claims.linkId)), ("exp", .number(JSONNumber(claims.expires))),
        ]))
        let input = Self.prefix + Base64URL.encode(payload.compactBytes())
        return input + "." + Base64URL.encode(Digest.hmacSHA256(key: key, message: Array(input.utf8)))
    }

    /// The claims of a genuine link token, or nil when it is malformed or its signature does not verify.
    /// Expiry is the caller's to check. Verified tokens are remembered (bounded).
    func verify(_ token: String) -> Claims? {
        if let known = verified.withLock({ $0[token] }) { return known }
        guard Self.looksLikeLink(token) else { return nil }
        let body = token.utf8.dropFirst(Self.prefix.utf8.count)
        guard let dot = body.firstIndex(of: UInt8(ascii: ".")) else { return nil }
        let input = Array(token.utf8[..<dot])
        guard let payloadBytes = Base64URL.decode(bytes: body[..<dot]),
              let signature = Base64URL.decode(bytes: body[body.index(after: dot)...]),
              Digest.constantTimeEquals(signature, Digest.hmacSHA256(key: key, message: input)),
              let payload = try? JSONValue.parse(payloadBytes),
              let provider = payload["p"]?.stringValue, let tripId = payload["t"]?.stringValue,
              let linkId = payload["l"]?.stringValue, let expires = payload["exp"]?.int64Value
        else { return nil }
        let claims = Claims(provider: provider, tripId: tripId, linkId: linkId, expires: expires)
        verified.withLock { cache in
            if cache.count >= Self.cacheCapacity { cache.removeAll(keepingCapacity: true) }
            cache[token] = claims
        }
        return claims
    }

    /// The claims only if this token was verified before (no crypto: for the fast path).
    func cached(_ token: String) -> Claims? {
        verified.withLock { $0[token] }
    }
}
