/// The Routes API `RoutingPreference`; raw values are the proto enum names.
///
/// A route token exists only for TRAFFIC_AWARE and TRAFFIC_AWARE_OPTIMAL routes.
package enum RoutingPreference: String, Codable, Hashable, Sendable, CaseIterable {
    case unspecified = "ROUTING_PREFERENCE_UNSPECIFIED"
    case trafficUnaware = "TRAFFIC_UNAWARE"
    case trafficAware = "TRAFFIC_AWARE"
    case trafficAwareOptimal = "TRAFFIC_AWARE_OPTIMAL"

    /// Whether routes computed with this preference can carry a route token.
    package var allowsRouteToken: Bool { self == .trafficAware || self == .trafficAwareOptimal }
}
