/// Fleet Engine's `TripType`; raw values are the proto enum names.
package enum TripType: String, Codable, Hashable, Sendable, CaseIterable {
    case unknown = "UNKNOWN_TRIP_TYPE"
    /// Pooled: several trips may share the vehicle at once.
    case shared = "SHARED"
    /// One rider party; the only type that may have intermediate destinations.
    case exclusive = "EXCLUSIVE"
}
