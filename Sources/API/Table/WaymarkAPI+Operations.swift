/// The checks every front door applies to an operation, in one place.
extension WaymarkAPI {
    /// Admits a caller to an operation, or throws what REST and gRPC both answer: UNAUTHENTICATED
    /// without a valid token, PERMISSION_DENIED for a share link outside the rider operations or a
    /// role the operation does not allow. A rider token may come from `query` (`access_token`).
    func authorize(_ access: Access, authorization: String?, query: inout QueryParameters) throws(APIError) -> Admission {
        switch access {
        case .open:
            return Admission()
        case .token, .roles:
            let bearer = try Authenticator.bearerToken(authorization)
            if ShareLinkToken.looksLikeLink(bearer) {
                _ = try riders.reader(token: bearer)  // a forged or expired link is 401, a genuine one 403
                throw .permissionDenied("a share-link token may only read its trip's journey")
            }
            let (caller, expires) = try authenticator.verifyWithExpiry(token: bearer)
            if case .roles(let roles, let action) = access { try caller.require(roles, to: action) }
            return Admission(token: bearer, caller: caller, expires: expires)
        case .rider(let queryToken):
            let token = try RESTHandler.riderToken(authorization, &query, acceptsQueryToken: queryToken)
            return Admission(token: token, reader: try riders.reader(token: token))
        }
    }

    /// Counts one answer in the metrics: `route` is the operation's name, `method` the HTTP method (`GRPC` for gRPC).
    func observe(_ route: String, method: String, status: Int, since started: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - started
        metrics.observe(route: route, method: method, status: status,
                        seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
}
