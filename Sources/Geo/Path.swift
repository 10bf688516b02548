/// An ordered list of points with its cumulative great-circle distances precomputed.
///
/// Segments are great-circle arcs: `point(atDistance:)`, `snap` and `trimmed` all place
/// points on those arcs, so lengths add up exactly (to rounding) when a path is cut.
/// Equality and hashing use `points` only; the distances are derived from them.
package struct Path: Sendable, Hashable {
    /// The vertices, in travel order.
    package let points: [LatLng]
    private let cumulative: [Double]

    /// Creates a path and computes its cumulative distances (O(n)).
    package init(_ points: [LatLng]) {
        self.points = points
        self.cumulative = Distance.cumulative(points)
    }

    /// Total length in metres; 0 for fewer than two points.
    package var length: Double { cumulative.last ?? 0 }

    /// Distance from the start to each vertex: `[0, d01, d01+d12, ...]`, same count as `points`.
    package var cumulativeDistances: [Double] { cumulative }

    /// The point `d` metres from the start along the path, `d` clamped to `0...length`.
    ///
    /// - Precondition: the path is not empty.
    package func point(atDistance d: Double) -> LatLng {
        precondition(!points.isEmpty, "point(atDistance:) on an empty path")
        guard points.count > 1 else { return points[0] }
        let target = d.isNaN ? 0 : min(max(d, 0), length)
        if target >= length { return points[points.count - 1] }
        let index = segmentIndex(containing: target)
        let segmentLength = cumulative[index + 1] - cumulative[index]
        guard segmentLength > 0 else { return points[index] }
        let fraction = (target - cumulative[index]) / segmentLength
        return Distance.interpolate(from: points[index], to: points[index + 1], fraction: fraction)
    }

    /// Compares `points` only.
    package static func == (lhs: Path, rhs: Path) -> Bool {
        lhs.points == rhs.points
    }

    /// Hashes `points` only.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(points)
    }

    /// The last segment `i` with `cumulative[i] <= d` (binary search); needs two or more points.
    func segmentIndex(containing d: Double) -> Int {
        var low = 0
        var high = points.count - 2
        while low < high {
            let middle = (low + high + 1) / 2
            if cumulative[middle] <= d {
                low = middle
            } else {
                high = middle - 1
            }
        }
        return low
    }

    /// A vertex whose cumulative distance is nearest to `d`; a monotone (non-decreasing) function of `d`. Needs one or more points.
    func nearestVertex(toDistance d: Double) -> Int {
        guard points.count > 1 else { return 0 }
        let index = segmentIndex(containing: d)
        let next = index + 1
        if cumulative[index] > d { return index }
        return d - cumulative[index] <= cumulative[next] - d ? index : next
    }
}
