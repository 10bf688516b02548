/// Fleet Engine's `Vehicle.VehicleType` (`{category}`).
package struct VehicleType: Codable, Hashable, Sendable {
    /// Fleet Engine's `Vehicle.VehicleType.Category`; raw values are the proto enum names.
    package enum Category: String, Codable, Hashable, Sendable, CaseIterable {
        case unknown = "UNKNOWN"
        case auto = "AUTO"
        case taxi = "TAXI"
        case truck = "TRUCK"
        case twoWheeler = "TWO_WHEELER"
        case bicycle = "BICYCLE"
        case pedestrian = "PEDESTRIAN"
    }

    /// The kind of vehicle; required and not UNKNOWN on registration.
    package var category: Category

    package init(category: Category) { self.category = category }
}
