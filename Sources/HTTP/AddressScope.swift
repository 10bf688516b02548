import Glibc

/// Where a numeric IP address points: the public internet, or somewhere a webhook must not reach.
///
/// Loopback, private (RFC 1918, IPv6 unique-local), link-local (including the cloud metadata
/// address 169.254.169.254), carrier-grade NAT, unspecified, multicast and reserved ranges are all
/// `.internal`; IPv6 forms that carry an IPv4 address (IPv4-compatible `::a.b.c.d`, mapped, SIIT,
/// NAT64, 6to4, Teredo) are judged by the IPv4 address they carry.
package enum AddressScope: Sendable, Hashable {
    case `public`
    case `internal`
    /// Not a numeric IPv4 or IPv6 address.
    case invalid

    /// The scope of `address` ("203.0.113.7", "::1", "fe80::1").
    package init(_ address: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            let bytes = withUnsafeBytes(of: v4.s_addr) { Array($0) }  // network order
            self = Self.scope(v4: bytes)
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, address, &v6) == 1 {
            let bytes = withUnsafeBytes(of: v6) { Array($0) }
            self = Self.scope(v6: bytes)
            return
        }
        self = .invalid
    }

    static func scope(v4 b: [UInt8]) -> AddressScope {
        switch (b[0], b[1]) {
        case (0, _), (10, _), (127, _): return .internal                 // this network, private, loopback
        case (100, 64...127): return .internal                           // carrier-grade NAT
        case (169, 254): return .internal                                // link-local, cloud metadata
        case (172, 16...31), (192, 168): return .internal                // private
        case (192, 0) where b[2] == 0: return .internal                  // IETF protocol assignments
        case (198, 18...19): return .internal                            // benchmarking
        case (224...255, _): return .internal                            // multicast, reserved, broadcast
        default: return .public
        }
    }

    static func scope(v6 b: [UInt8]) -> AddressScope {
        if b[0..<15].allSatisfy({ $0 == 0 }) && (b[15] == 0 || b[15] == 1) { return .internal }  // ::, ::1
        if b[0..<12].allSatisfy({ $0 == 0 }) { return scope(v4: Array(b[12..<16])) }  // ::a.b.c.d (IPv4-compatible, deprecated)
        if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xFF && b[11] == 0xFF { return scope(v4: Array(b[12..<16])) }  // ::ffff:a.b.c.d
        if b[0..<8].allSatisfy({ $0 == 0 }) && b[8] == 0xFF && b[9] == 0xFF && b[10] == 0 && b[11] == 0 {
            return scope(v4: Array(b[12..<16]))                          // ::ffff:0:a.b.c.d (SIIT)
        }
        if b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xFF && b[3] == 0x9B {
            if b[4] == 0 && b[5] == 1 { return .internal }               // 64:ff9b:1::/48 local-use NAT64
            return scope(v4: Array(b[12..<16]))                          // 64:ff9b::/96
        }
        if b[0] == 0x20 && b[1] == 0x02 { return scope(v4: Array(b[2..<6])) }  // 2002::/16 6to4: the IPv4 router it names
        if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0 {       // 2001::/32 Teredo: server, and client (inverted)
            let client = b[12..<16].map { $0 ^ 0xFF }
            return scope(v4: Array(b[4..<8])) == .internal || scope(v4: client) == .internal ? .internal : .public
        }
        if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0D && b[3] == 0xB8 { return .internal }  // 2001:db8::/32 documentation
        if b[0] == 0x01 && b[1] == 0x00 && b[2..<8].allSatisfy({ $0 == 0 }) { return .internal }  // 100::/64 discard-only
        if b[0] & 0xFE == 0xFC { return .internal }                      // fc00::/7 unique local
        if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { return .internal }      // fe80::/10 link-local
        if b[0] == 0xFE && b[1] & 0xC0 == 0xC0 { return .internal }      // fec0::/10 site-local (deprecated)
        if b[0] == 0xFF { return .internal }                             // multicast
        return .public
    }
}
