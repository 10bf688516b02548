/// Fleet Engine's `TripWaypoint` as kept in a vehicle's remaining waypoint list.
///
/// Only `tripId`, `waypointType` and `location` are meaningful for ordering (reference §3.5);
/// per-waypoint ETAs and paths are derived by projections.
package struct TripWaypoint: Codable, Hashable, Sendable {
    /// The trip this stop belongs to.
    package var tripId: String
    /// Pickup, intermediate destination or drop-off.
    package var waypointType: WaypointType
    /// Where the stop is.
    package var location: TerminalLocation

    package init(tripId: String, waypointType: WaypointType, location: TerminalLocation) {
        self.tripId = tripId
        self.waypointType = waypointType
        self.location = location
    }
}
