import Foundation

extension Path {
    /// Snaps closer than this to a segment's end are moved onto the vertex, so a query on a
    /// vertex yields exactly that vertex and `trimmed(at:)` adds no near-duplicate point.
    static let vertexTolerance = 0.001

    /// The best point found so far on one segment, before it becomes a `SnappedPoint`.
    struct SnapCandidate {
        var index: Int
        var fraction: Double
        var point: LatLng
        var off: Double
    }

    /// The nearest point on the path to `p`; nil for an empty path.
    ///
    /// Every segment is tried: the fraction along it comes from a local equirectangular
    /// projection (accurate at city scale), the point itself is placed on the great-circle
    /// arc, and the candidate with the smallest great-circle `distanceOff` wins, the
    /// earliest one on a tie (so a looping route snaps to its first pass).
    package func snap(_ p: LatLng) -> SnappedPoint? {
        snap(p, notBefore: 0)
    }

    /// The nearest point to `p` on the part of the path from `distanceAlong` metres on; nil for an empty path.
    ///
    /// Vehicles do not go backwards along their route: passing the previous snap's
    /// `distanceAlong` keeps a vehicle on a route that doubles back from snapping onto an
    /// earlier pass. The result's `distanceAlong` is never less than the (clamped) bound.
    /// This scans every segment; `IndexedPath.snap` gives the same answer from a few of them.
    package func snap(_ p: LatLng, notBefore distanceAlong: Double) -> SnappedPoint? {
        guard let first = points.first else { return nil }
        guard points.count > 1 else {
            return SnappedPoint(point: first, segmentIndex: 0, fraction: 0, distanceAlong: 0, distanceOff: Distance.meters(p, first))
        }
        let cumulative = cumulativeDistances
        let bound = snapBound(distanceAlong)
        var best: SnapCandidate?
        for index in 0..<(points.count - 1) where cumulative[index + 1] >= bound {
            let candidate = snapCandidate(p, onSegment: index, bound: bound)
            if best.map({ candidate.off < $0.off }) ?? true {
                best = candidate
            }
        }
        return snappedPoint(best, for: p, bound: bound)
    }

    /// `distanceAlong` as a snap's lower bound: NaN as 0, clamped to `0...length`.
    func snapBound(_ distanceAlong: Double) -> Double {
        distanceAlong.isNaN ? 0 : min(max(distanceAlong, 0), length)
    }

    /// The nearest point to `p` on segment `index`, at or after `bound`; the segment must end at or after `bound`.
    func snapCandidate(_ p: LatLng, onSegment index: Int, bound: Double) -> SnapCandidate {
        let cumulative = cumulativeDistances
        let start = cumulative[index]
        let segmentLength = cumulative[index + 1] - start
        let minimumFraction = segmentLength > 0 ? min(max((bound - start) / segmentLength, 0), 1) : 0
        let a = points[index]
        let b = points[index + 1]
        var fraction = max(Self.projectedFraction(of: p, from: a, to: b), minimumFraction)
        if (1 - fraction) * segmentLength < Self.vertexTolerance {
            fraction = 1
        } else if minimumFraction == 0, fraction * segmentLength < Self.vertexTolerance {
            fraction = 0
        }
        let point = Distance.interpolate(from: a, to: b, fraction: fraction)
        return SnapCandidate(index: index, fraction: fraction, point: point, off: Distance.meters(p, point))
    }

    /// The winning candidate as a `SnappedPoint` (a snap on an inner vertex starts the next segment).
    func snappedPoint(_ best: SnapCandidate?, for p: LatLng, bound: Double) -> SnappedPoint {
        let cumulative = cumulativeDistances
        guard let best else {
            // Unreachable: the last segment always ends at `length >= bound`.
            let last = points[points.count - 1]
            return SnappedPoint(point: last, segmentIndex: points.count - 2, fraction: 1, distanceAlong: length, distanceOff: Distance.meters(p, last))
        }
        var index = best.index
        var fraction = best.fraction
        if fraction == 1, index + 1 < points.count - 1 {
            index += 1
            fraction = 0
        }
        let along: Double
        if fraction == 0 {
            along = cumulative[index]
        } else if fraction == 1 {
            along = cumulative[index + 1]
        } else {
            along = cumulative[index] + fraction * (cumulative[index + 1] - cumulative[index])
        }
        return SnappedPoint(
            point: best.point,
            segmentIndex: index,
            fraction: fraction,
            distanceAlong: max(along, bound),
            distanceOff: best.off
        )
    }

    /// The part of the path still ahead of `snapped`: the snapped point, then the remaining vertices.
    ///
    /// When the snap lies exactly on a vertex (fraction 0 or 1, or the same coordinates),
    /// that vertex starts the result and no duplicate is added. For a `snapped` from this
    /// path, `trimmed(at: s).length + s.distanceAlong == length` up to rounding.
    package func trimmed(at snapped: SnappedPoint) -> Path {
        let plan = trimPlan(at: snapped)
        var result: [LatLng] = []
        result.reserveCapacity(points.count - plan.firstKept + 1)
        if let leading = plan.leading {
            result.append(leading)
        }
        result.append(contentsOf: points[plan.firstKept...])
        return Path(result)
    }

    /// How `trimmed(at:)` builds its result: `leading` (if any) then `points[firstKept...]`.
    ///
    /// `Traffic.trim` uses the same plan, so re-indexed intervals match the trimmed path.
    func trimPlan(at snapped: SnappedPoint) -> (firstKept: Int, leading: LatLng?) {
        guard points.count > 1 else { return (0, nil) }
        let index = min(max(snapped.segmentIndex, 0), points.count - 2)
        if snapped.fraction <= 0 || snapped.point == points[index] {
            return (index, nil)
        }
        if snapped.fraction >= 1 || snapped.point == points[index + 1] {
            return (index + 1, nil)
        }
        return (index + 1, snapped.point)
    }

    /// Fraction 0...1 of the foot of the perpendicular from `p` onto `a → b`, in a local
    /// equirectangular projection centred on the segment (longitudes unwrapped across ±180°).
    private static func projectedFraction(of p: LatLng, from a: LatLng, to b: LatLng) -> Double {
        let scale = cos(Distance.radians((a.latitude + b.latitude) / 2))
        let bx = unwrap(b.longitude - a.longitude) * scale
        let by = b.latitude - a.latitude
        let px = unwrap(p.longitude - a.longitude) * scale
        let py = p.latitude - a.latitude
        let squaredLength = bx * bx + by * by
        guard squaredLength > 0 else { return 0 }
        return min(max((px * bx + py * by) / squaredLength, 0), 1)
    }

    /// A longitude difference moved into [-180, 180].
    private static func unwrap(_ delta: Double) -> Double {
        if delta > 180 { return delta - 360 }
        if delta < -180 { return delta + 360 }
        return delta
    }
}
