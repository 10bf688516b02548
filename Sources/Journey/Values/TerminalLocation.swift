import Geo

/// Fleet Engine's `TerminalLocation`: a stop's point (pickup, intermediate destination, dropoff).
package struct TerminalLocation: Codable, Hashable, Sendable {
    /// Where the stop is.
    package var point: LatLng

    package init(point: LatLng) { self.point = point }
}

extension LatLng {
    /// Throws `INVALID_ARGUMENT` naming `field` unless the point is finite and within
    /// latitude [-90, 90] and longitude [-180, 180] (points built unchecked may not be).
    func validate(field: String) throws(JourneyError) {
        guard latitude.isFinite, longitude.isFinite, (-90.0...90.0).contains(latitude), (-180.0...180.0).contains(longitude) else {
            throw .invalidArgument("\(field) must have latitude in [-90, 90] and longitude in [-180, 180] (got \(latitude), \(longitude))")
        }
    }
}
