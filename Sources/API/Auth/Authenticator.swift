import Foundation
import JSON
import Journey
import Signing
import Synchronization

/// Verifies bearer JWTs and turns their claims into a `Principal`.
///
/// Accepted: HS256 with the configured secret, or RS256 with one of the configured public keys;
/// the algorithm must be one that is configured (never `none`). Claims: `exp` required and at
/// most `maximumLifetime` (plus `leeway`) ahead, `iat` and `nbf` not in the future, `aud` equal to (or
/// containing) `waymark`, `role`, `provider`, and the role's `authorization` claim. Every failure
/// is UNAUTHENTICATED with a message that says which check failed and never echoes the token.
package struct Authenticator: Sendable {
    package var hs256Secret: [UInt8]?
    package var rs256Keys: [RSAPublicKey]
    package var audience: String
    package var maximumLifetime: Int64
    package var leeway: Int64
    /// Seconds since the epoch; injectable for tests.
    package var clock: @Sendable () -> Int64
    /// Tokens already verified, with their principal and expiry: clients reuse one token for up
    /// to an hour, so each is verified (signature and JSON) once, not on every request.
    private let verified = VerifiedTokens()

    package init(hs256Secret: [UInt8]?, rs256Keys: [RSAPublicKey] = [], audience: String = "waymark", maximumLifetime: Int64 = 3600, leeway: Int64 = 60,
                 clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }) {
        self.hs256Secret = hs256Secret
        self.rs256Keys = rs256Keys
        self.audience = audience
        self.maximumLifetime = maximumLifetime
        self.leeway = leeway
        self.clock = clock
    }

    /// The principal of an `Authorization` header value.
    package func authenticate(authorization header: String?) throws(APIError) -> Principal {
        try verify(token: Self.bearerToken(header))
    }

    /// The token of an `Authorization: Bearer <token>` header value; UNAUTHENTICATED when absent or malformed.
    package static func bearerToken(_ header: String?) throws(APIError) -> String {
        guard let header, !header.isEmpty else {
            throw .unauthenticated("a bearer token is required (Authorization: Bearer <jwt>)")
        }
        // Byte-wise: the scheme is matched case-insensitively, the token is what follows the spaces.
        let bytes = Array(header.utf8)
        let scheme = Array("bearer ".utf8)
        guard bytes.count > scheme.count, zip(bytes, scheme).allSatisfy({ ($0 | 0x20) == $1 }) else {
            throw .unauthenticated("the Authorization header must be \"Bearer <jwt>\"")
        }
        var start = scheme.count
        var end = bytes.count
        while start < end, bytes[start] == UInt8(ascii: " ") { start += 1 }
        while end > start, bytes[end - 1] == UInt8(ascii: " ") { end -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// The principal of a compact JWT.
    package func verify(token: String) throws(APIError) -> Principal {
        try verifyWithExpiry(token: token).principal
    }

    /// The principal of a compact JWT and its `exp` (unix seconds), for callers that outlive a
    /// request (event streams end when their token expires).
    package func verifyWithExpiry(token: String) throws(APIError) -> (principal: Principal, expires: Int64) {
        let now = clock()
        if let known = verified.lookup(token), known.expires > now - leeway { return known }
        let (principal, expires) = try check(token: token)
        verified.store(token, principal: principal, expires: expires)
        return (principal, expires)
    }

    /// The principal of a token verified before and not expired, from memory only (no signature
    /// check, no parsing): for the fast path, which must not spend time on a token it has not seen.
    package func cachedPrincipal(token: String) -> (principal: Principal, expires: Int64)? {
        guard let known = verified.lookup(token), known.expires > clock() - leeway else { return nil }
        return known
    }

    private func check(token: String) throws(APIError) -> (Principal, Int64) {
        guard let parts = JWT.split(token) else {
            throw .unauthenticated("the bearer token is not a JWT (three base64url segments)")
        }
        guard let header = try? JSONValue.parse(parts.header), case .object = header else {
            throw .unauthenticated("the JWT header is not a JSON object")
        }
        guard let algorithm = header["alg"]?.stringValue else {
            throw .unauthenticated("the JWT header has no alg")
        }
        switch algorithm {
        case "HS256":
            guard let secret = hs256Secret else { throw .unauthenticated("alg HS256 is not accepted by this server") }
            guard JWT.verifyHS256(parts, key: secret) else { throw .unauthenticated("the JWT signature does not verify") }
        case "RS256":
            guard !rs256Keys.isEmpty else { throw .unauthenticated("alg RS256 is not accepted by this server") }
            guard rs256Keys.contains(where: { JWT.verifyRS256(parts, key: $0) }) else { throw .unauthenticated("the JWT signature does not verify") }
        default:
            throw .unauthenticated("alg \(algorithm.prefix(16)) is not accepted (HS256\(rs256Keys.isEmpty ? "" : " or RS256") only)")
        }
        guard let claims = try? JSONValue.parse(parts.payload), case .object = claims else {
            throw .unauthenticated("the JWT payload is not a JSON object")
        }
        return try principal(from: claims)
    }

    private func principal(from claims: JSONValue) throws(APIError) -> (Principal, Int64) {
        let now = clock()
        guard let exp = claims["exp"]?.doubleValue, exp.isFinite else {
            throw .unauthenticated("the token has no exp claim")
        }
        // Compared as doubles: a signed claim may hold any JSON number (1e300), which Int64 cannot.
        guard exp > Double(now - leeway) else { throw .unauthenticated("the token has expired") }
        guard exp <= Double(now + maximumLifetime + leeway) else {
            throw .unauthenticated("the token's exp is more than \(maximumLifetime) s ahead")
        }
        if let iat = claims["iat"] {
            guard let issued = iat.doubleValue, issued.isFinite else { throw .unauthenticated("the token's iat is not a number") }
            guard issued <= Double(now + leeway) else { throw .unauthenticated("the token's iat is in the future") }
        }
        if let nbf = claims["nbf"] {
            guard let notBefore = nbf.doubleValue, notBefore.isFinite else { throw .unauthenticated("the token's nbf is not a number") }
            guard notBefore <= Double(now + leeway) else { throw .unauthenticated("the token is not valid yet (nbf)") }
        }
        switch claims["aud"] {
        case .string(let aud)?:
            guard aud == audience else { throw .unauthenticated("the token's aud is not \(audience)") }
        case .array(let list)?:
            guard list.contains(.string(audience)) else { throw .unauthenticated("the token's aud does not include \(audience)") }
        default:
            throw .unauthenticated("the token has no aud claim (expected \(audience))")
        }
        guard let roleName = claims["role"]?.stringValue, let role = Principal.Role(rawValue: roleName) else {
            throw .unauthenticated("the token's role must be one of server, driver, consumer, auditor")
        }
        guard let provider = claims["provider"]?.stringValue, !provider.isEmpty else {
            throw .unauthenticated("the token has no provider claim")
        }
        do { try Identifier.validateProvider(provider, field: "the token's provider") } catch { throw .unauthenticated(error.message) }
        let authorization = claims["authorization"]
        func claim(_ name: String) throws(APIError) -> String? {
            guard let value = authorization?[name]?.stringValue, !value.isEmpty else { return nil }
            // Ids are compared with Swift's == here and as bytes in the database: they must agree.
            guard Identifier.isNFC(value) else { throw .unauthenticated("the token's authorization.\(name) is not in Unicode Normalization Form C") }
            return value
        }
        let principal = Principal(role: role, provider: provider, tripId: try claim("tripid"), vehicleId: try claim("vehicleid"),
                                  consumerId: try claim("consumerid"), subject: claims["sub"]?.stringValue)
        switch role {
        case .driver where principal.vehicleId == nil:
            throw .unauthenticated("a driver token needs authorization.vehicleid")
        case .consumer where principal.tripId == nil && principal.consumerId == nil:
            throw .unauthenticated("a consumer token needs authorization.tripid or authorization.consumerid")
        default:
            return (principal, Int64(exp))
        }
    }

    /// Mints a token (for `waymark token` and tests): HS256 over the given claims.
    package static func mint(secret: [UInt8], role: Principal.Role, provider: String, tripId: String? = nil, vehicleId: String? = nil,
                             consumerId: String? = nil, issuedAt: Int64, ttl: Int64, audience: String = "waymark") -> String {
        var authorization: [(String, JSONValue)] = []
        if let tripId { authorization.append(("tripid", .string(tripId))) }
        if let vehicleId { authorization.append(("vehicleid", .string(vehicleId))) }
        if let consumerId { authorization.append(("consumerid", .string(consumerId))) }
        var claims: [(String, JSONValue)] = [
            ("aud", .string(audience)), ("iat", .number(JSONNumber(issuedAt))), ("exp", .number(JSONNumber(issuedAt + ttl))),
            ("role", .string(role.rawValue)), ("provider", .string(provider)),
        ]
        if !authorization.isEmpty { claims.append(("authorization", .object(JSONObject(authorization)))) }
        let header: JSONValue = .object(JSONObject([("alg", "HS256"), ("typ", "JWT")]))
        return JWT.signHS256(header: header.compactBytes(), payload: JSONValue.object(JSONObject(claims)).compactBytes(), key: secret)
    }
}

/// Verified tokens by their exact text, bounded (cleared when full; re-verifying is cheap enough).
private final class VerifiedTokens: Sendable {
    private let entries = Mutex<[String: (principal: Principal, expires: Int64)]>([:])
    private let capacity = 10_000

    func lookup(_ token: String) -> (principal: Principal, expires: Int64)? {
        entries.withLock { $0[token] }
    }

    func store(_ token: String, principal: Principal, expires: Int64) {
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[token] = (principal, expires)
        }
    }
}
