/// The navigation app's route status when it applied (or failed to apply) a plan; raw values are
/// the Navigation SDK's names.
///
/// `OK` means navigation has a route and guides along it; every other value is an error the
/// driver's app met while computing or applying the route.
package enum RouteStatus: String, Codable, Hashable, Sendable, CaseIterable {
    case ok = "OK"
    case noRouteFound = "NO_ROUTE_FOUND"
    case networkError = "NETWORK_ERROR"
    case quotaExceeded = "QUOTA_EXCEEDED"
    case quotaCheckFailed = "QUOTA_CHECK_FAILED"
    case travelModeUnsupported = "TRAVEL_MODE_UNSUPPORTED"
    case waypointError = "WAYPOINT_ERROR"
    case locationUnavailable = "LOCATION_UNAVAILABLE"
    case routeCanceled = "ROUTE_CANCELED"
    case unknown = "UNKNOWN"

    /// Whether navigation is guiding along a route.
    package var isOK: Bool { self == .ok }
}
