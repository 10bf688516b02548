/// Fleet Engine's `LocationSensor`; raw values are the proto enum names.
///
/// `FLEET_ENGINE_LOCATION` marks a server-estimated position: it is output-only and rejected on input.
package enum LocationSensor: String, Codable, Hashable, Sendable, CaseIterable {
    case unknown = "UNKNOWN_SENSOR"
    case gps = "GPS"
    case network = "NETWORK"
    case passive = "PASSIVE"
    case roadSnappedLocationProvider = "ROAD_SNAPPED_LOCATION_PROVIDER"
    case customerSuppliedLocation = "CUSTOMER_SUPPLIED_LOCATION"
    case fleetEngineLocation = "FLEET_ENGINE_LOCATION"
    case fusedLocationProvider = "FUSED_LOCATION_PROVIDER"
    case coreLocation = "CORE_LOCATION"
}
