/// How willing navigation is to leave the planned route for a faster one.
///
/// `timeToleranceSeconds` is the Navigation SDK's resolved "time tolerance window": an
/// alternative must be faster by at least this much to trigger a reroute. `nil` means the SDK's
/// default. This is Waymark's own shape (Fleet Engine has no such message).
package struct RerouteStrategy: Codable, Hashable, Sendable {
    /// Seconds an alternative must save before navigation leaves the plan; nil = SDK default.
    package var timeToleranceSeconds: Int?

    package init(timeToleranceSeconds: Int? = nil) { self.timeToleranceSeconds = timeToleranceSeconds }

    /// The SDK's default behaviour.
    package static let `default` = RerouteStrategy()
}
