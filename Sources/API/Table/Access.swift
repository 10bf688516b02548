/// Who may call an operation, checked by the front door before the operation runs.
///
/// REST and gRPC check it in one place (`WaymarkAPI.authorize`), so a token is refused alike by both.
/// Finer rules (a driver's own vehicle, a consumer's trip) stay with the services.
enum Access: Sendable {
    /// No token: health, readiness, metrics, the OpenAPI document.
    case open
    /// A verified bearer JWT of any role; a share link is refused (403, or 401 when forged or expired).
    case token
    /// As `token`, for these roles only; `action` names the operation in the refusal.
    case roles(Set<Principal.Role>, action: String)
    /// A rider's reader: a JWT or a share link, from `Authorization` or (`queryToken`) `?access_token=`.
    case rider(queryToken: Bool)
}

/// What passing `Access` established about the caller.
struct Admission: Sendable {
    /// The token as sent ("" for `open`).
    var token = ""
    /// The verified caller (`token` and `roles`).
    var caller: Principal?
    /// When the verified JWT expires, in seconds since 1970 (`token` and `roles`).
    var expires: Int64 = 0
    /// The rider's reader (`rider`).
    var reader: JourneyReader?
}
