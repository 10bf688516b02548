/// Fleet Engine's `NavigationStatus`; raw values are the proto enum names.
package enum NavigationStatus: String, Codable, Hashable, Sendable, CaseIterable {
    case unknown = "UNKNOWN_NAVIGATION_STATUS"
    /// Free navigation, no route.
    case noGuidance = "NO_GUIDANCE"
    case enrouteToDestination = "ENROUTE_TO_DESTINATION"
    case offRoute = "OFF_ROUTE"
    /// Within about 50 m of the destination.
    case arrivedAtDestination = "ARRIVED_AT_DESTINATION"
}
