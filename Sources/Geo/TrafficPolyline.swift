/// A path together with traffic intervals that index into its points (the pair behind
/// Fleet Engine's `ConsumableTrafficPolyline`).
///
/// `Traffic.polyline(from:along:)` builds one from road stretches by inserting vertices
/// where stretches start and end, so the intervals are exact rather than rounded.
/// Invariant: `intervals` pass `Traffic.validate` for `path.points.count`.
package struct TrafficPolyline: Sendable, Hashable {
    /// The path, possibly with vertices added where traffic changes.
    package let path: Path
    /// Intervals indexing into `path.points`.
    package let intervals: [TrafficInterval]

    /// Pairs a path with intervals; throws `.invalidInterval` if they don't fit it.
    package init(path: Path, intervals: [TrafficInterval]) throws(GeoError) {
        try Traffic.validate(intervals, pointCount: path.points.count)
        self.path = path
        self.intervals = intervals
    }

    /// Pairs a path with intervals already known to fit it.
    init(checkedPath path: Path, intervals: [TrafficInterval]) {
        self.path = path
        self.intervals = intervals
    }
}
