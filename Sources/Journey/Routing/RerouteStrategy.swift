/// How willing navigation is to leave the planned route for a faster one.
///
/// `timeToleranceSeconds` is the Navigation SDK's resolved "time tolerance window": an
/// alternative must be faster by at least this much to trigger a reroute. `nil` means the SDK's
/// default. `basis` is the SDK's own reroute strategy enum, as its route token execution details
/// report it. Fleet Engine has no such message; this is Waymark's shape of the SDK's two values.
package struct RerouteStrategy: Codable, Hashable, Sendable {
    /// The Navigation SDK's `RerouteStrategy` enum (raw values in Fleet Engine enum style).
    package enum Basis: String, Codable, Hashable, Sendable, CaseIterable {
        case unknown = "UNKNOWN"
        /// Reroutes are computed from the routing parameters stored in the route token.
        case bestBasedOnTokenParameters = "BEST_BASED_ON_TOKEN_PARAMETERS"
    }

    /// Seconds an alternative must save before navigation leaves the plan; nil = SDK default.
    package var timeToleranceSeconds: Int?
    /// What reroutes are based on, when the SDK reported it.
    package var basis: Basis?

    package init(timeToleranceSeconds: Int? = nil, basis: Basis? = nil) {
        self.timeToleranceSeconds = timeToleranceSeconds
        self.basis = basis
    }

    /// The SDK's default behaviour.
    package static let `default` = RerouteStrategy()
}
