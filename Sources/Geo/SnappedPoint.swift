/// Where a query point lands on a `Path`: the nearest point on it and how far along it is.
///
/// A snap exactly on vertex `k` is reported as segment `k` with fraction 0, except the
/// last vertex, which is the last segment with fraction 1. For a one-point path the
/// segment index and fraction are 0.
package struct SnappedPoint: Sendable, Hashable {
    /// The nearest point on the path.
    package let point: LatLng
    /// Index `i` of the segment `points[i] → points[i+1]` holding `point` (0 for a one-point path).
    package let segmentIndex: Int
    /// How far along that segment `point` lies, 0...1, by distance.
    package let fraction: Double
    /// Metres from the path's start to `point`, along the path.
    package let distanceAlong: Double
    /// Metres from the query point to `point` (great-circle).
    package let distanceOff: Double

    /// Creates a snapped point; `Path.snap` is the usual source.
    package init(point: LatLng, segmentIndex: Int, fraction: Double, distanceAlong: Double, distanceOff: Double) {
        self.point = point
        self.segmentIndex = segmentIndex
        self.fraction = fraction
        self.distanceAlong = distanceAlong
        self.distanceOff = distanceOff
    }
}
