/// Operations on traffic speed intervals that index into a path's points.
///
/// Intervals follow Fleet Engine's `SpeedReadingInterval`: each covers
/// `points[startIndex...endIndex]`, they are ordered, and they do not overlap (touching at
/// a shared vertex is fine). They need not cover the whole path.
package enum Traffic {
    /// Re-indexes intervals of `path` onto `path.trimmed(at: snapped)`.
    ///
    /// Intervals wholly behind the snapped point are dropped, the one containing it is
    /// clipped to start at index 0 (the snapped point), and the rest are shifted; each result
    /// covers the same stretch of road as before, minus the part behind the vehicle.
    /// Indices beyond the trimmed path are clamped to it, and intervals left empty are
    /// dropped, so the result always passes `validate` for the trimmed path when the input
    /// passed it for `path`.
    package static func trim(_ intervals: [TrafficInterval], of path: Path, at snapped: SnappedPoint) -> [TrafficInterval] {
        guard path.points.count > 1 else { return [] }
        let plan = path.trimPlan(at: snapped)
        // New index = old index - shift; with a leading snapped point, old firstKept maps to 1.
        let shift = plan.leading == nil ? plan.firstKept : plan.firstKept - 1
        let lastIndex = path.points.count - 1 - shift
        var result: [TrafficInterval] = []
        result.reserveCapacity(intervals.count)
        for interval in intervals where interval.endIndex > shift {
            let start = max(interval.startIndex - shift, 0)
            let end = min(interval.endIndex - shift, lastIndex)
            guard start < end else { continue }
            result.append(TrafficInterval(checkedStart: start, end: end, speed: interval.speed))
        }
        return result
    }

    /// Checks that intervals fit a path of `pointCount` points, are ordered and do not overlap.
    ///
    /// Throws `.invalidInterval` naming the first offending interval by its position in the list.
    package static func validate(_ intervals: [TrafficInterval], pointCount: Int) throws(GeoError) {
        var previousEnd = 0
        for (position, interval) in intervals.enumerated() {
            guard interval.startIndex >= 0, interval.startIndex < interval.endIndex else {
                throw .invalidInterval(
                    "traffic interval \(position) has start index \(interval.startIndex) not below end index \(interval.endIndex)"
                )
            }
            guard interval.endIndex < pointCount else {
                throw .invalidInterval(
                    "traffic interval \(position) ends at point index \(interval.endIndex), beyond the last index \(pointCount - 1) of a \(pointCount)-point path"
                )
            }
            guard interval.startIndex >= previousEnd else {
                throw .invalidInterval(
                    "traffic interval \(position) starts at point index \(interval.startIndex), before the previous interval ends at \(previousEnd) (intervals must be ordered and not overlap)"
                )
            }
            previousEnd = interval.endIndex
        }
    }
}
