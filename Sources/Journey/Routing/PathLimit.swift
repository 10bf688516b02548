import Geo

/// The most points one encoded polyline may hold: a vehicle's route segment, a plan's leg, a step.
///
/// Every location report trims the vehicle's segment and every rider's view carries it, so a
/// client must not be able to make that work and those documents as large as a request body
/// allows (1 MiB holds some 200,000 points). 10,000 points cover a few hundred kilometres of road
/// at the spacing routing services emit; a longer path is refused, never cut.
package enum PathLimit {
    package static let maximumPoints = 10_000

    /// The points of `encoded`, or INVALID_ARGUMENT naming `field` when it is not a polyline, has
    /// fewer than 2 points or more than `maximumPoints`.
    static func decode(_ encoded: String, field: String) throws(JourneyError) -> [LatLng] {
        let points: [LatLng]
        do {
            points = try Polyline.decode(encoded)
        } catch {
            throw .invalidArgument("\(field) must be a valid encoded polyline (got \"\(encoded.prefix(32))\")")
        }
        guard points.count >= 2 else {
            throw .invalidArgument("\(field) must have at least 2 points (got \(points.count))")
        }
        guard points.count <= maximumPoints else {
            throw .invalidArgument("\(field) may hold at most \(maximumPoints) points (got \(points.count))")
        }
        return points
    }
}
