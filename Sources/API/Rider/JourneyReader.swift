/// Who reads a trip's journey: the holder of a bearer JWT, or of a share link.
enum JourneyReader: Sendable {
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
