/// Who reads a trip's journey: the holder of a bearer JWT, or of a share link.
///
/// `indirect`, and `WaymarkAPI.authorize` reads the token into a local before asking for the
/// reader: without both, release builds (Swift 6.3.1, -O) handed the rider handler (then
/// `RESTHandler.handleRider`) a garbage payload and
/// the server crashed copying the `Principal` on every rider request that took the ordinary path
/// (journey style, riders' trips, the first journey GET or stream of a token). Which of the two
/// changes is enough was not isolated; debug builds were never affected.
indirect enum JourneyReader: Sendable {
    /// A verified JWT's principal and its `exp` (unix seconds).
    case principal(Principal, expires: Int64)
    /// A genuine share-link token (signature checked, expiry not yet).
    case shareLink(ShareLinkToken.Claims)

    /// The principal, or PERMISSION_DENIED for a share link (which may read only its trip's journey).
    func requirePrincipal(to action: String) throws(APIError) -> Principal {
        switch self {
        case .principal(let principal, _): return principal
        case .shareLink: throw .permissionDenied("a share-link token may only read its trip's journey, not \(action)")
        }
    }
}
