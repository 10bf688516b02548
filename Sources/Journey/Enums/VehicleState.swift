/// Fleet Engine's `VehicleState`; raw values are the proto enum names.
///
/// An OFFLINE vehicle takes no new trips but may finish the ones it has.
package enum VehicleState: String, Codable, Hashable, Sendable, CaseIterable {
    case unknown = "UNKNOWN_VEHICLE_STATE"
    case offline = "OFFLINE"
    case online = "ONLINE"
}
