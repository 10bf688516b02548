/// Fleet Engine's `WaypointType`; raw values are the proto enum names.
package enum WaypointType: String, Codable, Hashable, Sendable, CaseIterable {
    case unknown = "UNKNOWN_WAYPOINT_TYPE"
    case pickup = "PICKUP_WAYPOINT_TYPE"
    case dropOff = "DROP_OFF_WAYPOINT_TYPE"
    case intermediateDestination = "INTERMEDIATE_DESTINATION_WAYPOINT_TYPE"
}
