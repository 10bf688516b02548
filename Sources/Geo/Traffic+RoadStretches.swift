extension Traffic {
    /// Inserted vertices closer than this to an existing vertex are not inserted; stretch
    /// boundaries are whole metres, so this only merges truly coincident points.
    static let boundaryTolerance = 0.01

    /// Converts road stretches into point-index intervals on `path`, moving each stretch
    /// boundary to the nearest vertex.
    ///
    /// The result covers the whole path (`0...count-1`), contiguous and ordered: slower
    /// traffic becomes `.slow`, jams `.trafficJam`, and everything not in a stretch
    /// `.normal`, because Fleet Engine's road stretches list only slow and jammed parts.
    /// Adjacent intervals of the same speed are merged. Stretches are sorted by offset first;
    /// overlapping stretches throw `.invalidRoadStretch`. Stretches are clipped to the path's
    /// length (a traffic source measuring the road slightly differently must not fail the
    /// whole report); those starting at or beyond the end are ignored.
    ///
    /// Tolerance: each boundary moves by at most half the length of the segment it falls in,
    /// so `roadStretches(from: intervals(from: s, along: p), along: p)` returns every boundary
    /// within that distance plus 0.5 m (whole-metre rounding). A stretch whose two ends round
    /// to the same vertex disappears. When that is too coarse (long straight segments), use
    /// `polyline(from:along:)`, which inserts vertices instead and round-trips exactly.
    /// A path with fewer than two points has no intervals.
    package static func intervals(from stretches: [RoadStretch], along path: Path) throws(GeoError) -> [TrafficInterval] {
        let ordered = try ordered(stretches)
        return intervals(fromOrdered: ordered, along: path)
    }

    /// Converts road stretches into a path with a vertex inserted at every stretch boundary
    /// that falls inside a segment, plus exact intervals on that path.
    ///
    /// Inserted vertices lie on the great-circle segment they split, so the path's shape and
    /// length are unchanged. Same coverage rules and errors as `intervals(from:along:)`.
    /// Round trip: `roadStretches(from: result.intervals, along: result.path)` gives back
    /// the input stretches exactly, sorted, clipped to the path's rounded length, with
    /// touching stretches of the same style merged.
    package static func polyline(from stretches: [RoadStretch], along path: Path) throws(GeoError) -> TrafficPolyline {
        let ordered = try ordered(stretches)
        let length = path.length
        var boundaries: [Double] = []
        for stretch in ordered {
            let start = Double(stretch.offsetMeters)
            let end = Double(stretch.endMeters)
            if start > 0, start < length { boundaries.append(start) }
            if end > 0, end < length { boundaries.append(end) }
        }
        let dense = inserting(boundaries, into: path)
        return TrafficPolyline(checkedPath: dense, intervals: intervals(fromOrdered: ordered, along: dense))
    }

    /// Converts intervals on `path` into road stretches: only `.slow` and `.trafficJam` become
    /// stretches; `.normal` and `.noData` are left out, as road stretches cannot express them.
    ///
    /// Offsets and ends are the cumulative distances of the interval's vertices, each rounded
    /// to whole metres (rounding ends, not lengths, keeps neighbours touching and errors
    /// from accumulating). The result is sorted, touching stretches of the same style are
    /// merged, and stretches that round to zero length are dropped. Intervals are expected to
    /// pass `validate`; indices past the path are clamped to its last point and overlaps are
    /// clipped, so the output never overlaps.
    ///
    /// Round trip: `intervals(from: roadStretches(from: i, along: p), along: p)` gives back
    /// `i` (with gaps and `.noData` as `.normal`, same speeds merged) whenever each interval
    /// boundary's neighbouring segments are at least 1 m long.
    package static func roadStretches(from intervals: [TrafficInterval], along path: Path) -> [RoadStretch] {
        let count = path.points.count
        guard count > 1 else { return [] }
        let cumulative = path.cumulativeDistances
        var pieces: [(style: RoadStretch.Style, start: Int, end: Int)] = []
        for interval in intervals {
            guard let style = RoadStretch.Style(interval.speed) else { continue }
            let startIndex = min(interval.startIndex, count - 1)
            let endIndex = min(interval.endIndex, count - 1)
            let start = Int(cumulative[startIndex].rounded())
            let end = Int(cumulative[endIndex].rounded())
            if start < end {
                pieces.append((style, start, end))
            }
        }
        pieces.sort { $0.start < $1.start }
        var result: [RoadStretch] = []
        for piece in pieces {
            let previousEnd = result.last?.endMeters ?? 0
            let start = max(piece.start, previousEnd)
            guard start < piece.end else { continue }
            if let last = result.last, last.style == piece.style, last.endMeters == start {
                result[result.count - 1] = RoadStretch(
                    checkedStyle: last.style,
                    offsetMeters: last.offsetMeters,
                    lengthMeters: piece.end - last.offsetMeters
                )
            } else {
                result.append(RoadStretch(checkedStyle: piece.style, offsetMeters: start, lengthMeters: piece.end - start))
            }
        }
        return result
    }

    /// Stretches sorted by offset; throws `.invalidRoadStretch` if any two overlap.
    private static func ordered(_ stretches: [RoadStretch]) throws(GeoError) -> [RoadStretch] {
        let sorted = stretches.enumerated()
            .sorted { ($0.element.offsetMeters, $0.offset) < ($1.element.offsetMeters, $1.offset) }
            .map(\.element)
        for index in sorted.indices.dropFirst() {
            let previous = sorted[index - 1]
            let current = sorted[index]
            guard current.offsetMeters >= previous.endMeters else {
                throw .invalidRoadStretch(
                    "road stretch at \(current.offsetMeters) m (length \(current.lengthMeters) m) overlaps the one at \(previous.offsetMeters) m (length \(previous.lengthMeters) m); stretches must not overlap"
                )
            }
        }
        return sorted
    }

    /// Whole-path, contiguous intervals from sorted, non-overlapping stretches, boundaries
    /// moved to the nearest vertex (a monotone rounding, so order and disjointness survive).
    private static func intervals(fromOrdered stretches: [RoadStretch], along path: Path) -> [TrafficInterval] {
        let count = path.points.count
        guard count > 1 else { return [] }
        let length = path.length
        var result: [TrafficInterval] = []
        var cursor = 0
        for stretch in stretches {
            let start = Double(stretch.offsetMeters)
            guard start < length else { break }
            let end = min(Double(stretch.endMeters), length)
            let startIndex = max(path.nearestVertex(toDistance: start), cursor)
            let endIndex = path.nearestVertex(toDistance: end)
            guard startIndex < endIndex else { continue }
            if cursor < startIndex {
                appendMerging(start: cursor, end: startIndex, speed: .normal, to: &result)
            }
            appendMerging(start: startIndex, end: endIndex, speed: stretch.style.speed, to: &result)
            cursor = endIndex
        }
        if cursor < count - 1 {
            appendMerging(start: cursor, end: count - 1, speed: .normal, to: &result)
        }
        return result
    }

    private static func appendMerging(start: Int, end: Int, speed: TrafficSpeed, to result: inout [TrafficInterval]) {
        if let last = result.last, last.speed == speed, last.endIndex == start {
            result[result.count - 1] = TrafficInterval(checkedStart: last.startIndex, end: end, speed: speed)
        } else {
            result.append(TrafficInterval(checkedStart: start, end: end, speed: speed))
        }
    }

    /// `path` with a vertex on the great-circle segment at each distance in `boundaries`
    /// (any order, duplicates allowed) that is more than `boundaryTolerance` from every vertex.
    private static func inserting(_ boundaries: [Double], into path: Path) -> Path {
        let points = path.points
        guard points.count > 1, !boundaries.isEmpty else { return path }
        let sorted = boundaries.sorted()
        let cumulative = path.cumulativeDistances
        var result: [LatLng] = []
        result.reserveCapacity(points.count + sorted.count)
        var next = 0
        for index in 0..<(points.count - 1) {
            result.append(points[index])
            let start = cumulative[index]
            let end = cumulative[index + 1]
            var lastInserted = start
            while next < sorted.count, sorted[next] < end {
                let d = sorted[next]
                next += 1
                guard d - lastInserted > boundaryTolerance, end - d > boundaryTolerance else { continue }
                let fraction = (d - start) / (end - start)
                result.append(Distance.interpolate(from: points[index], to: points[index + 1], fraction: fraction))
                lastInserted = d
            }
        }
        result.append(points[points.count - 1])
        return Path(result)
    }
}
