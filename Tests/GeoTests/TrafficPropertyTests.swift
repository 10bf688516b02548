import Geo
import Testing

/// Properties checked on hundreds of random city-scale routes from fixed seeds.
@Suite struct TrafficPropertyTests {
    static let iterations = 300

    /// Metres of `[from, to]` covered by intervals of `speed` on a path with these cumulative distances.
    static func coverage(of speed: TrafficSpeed, in intervals: [TrafficInterval], cumulative: [Double], from: Double = 0, to: Double = .infinity) -> Double {
        var total = 0.0
        for interval in intervals where interval.speed == speed {
            let start = max(cumulative[interval.startIndex], from)
            let end = min(cumulative[interval.endIndex], to)
            total += max(0, end - start)
        }
        return total
    }

    /// Fleet Engine's reading of intervals after a trip through road stretches: gaps and
    /// `.noData` are normal traffic, touching intervals of one speed are one.
    static func normalized(_ intervals: [TrafficInterval], pointCount: Int) throws -> [TrafficInterval] {
        var speeds = Array(repeating: TrafficSpeed.normal, count: max(pointCount - 1, 0))
        for interval in intervals where interval.speed == .slow || interval.speed == .trafficJam {
            for segment in interval.startIndex..<interval.endIndex { speeds[segment] = interval.speed }
        }
        var result: [TrafficInterval] = []
        var start = 0
        for segment in speeds.indices where segment == speeds.count - 1 || speeds[segment + 1] != speeds[segment] {
            result.append(try TrafficInterval(startIndex: start, endIndex: segment + 1, speed: speeds[segment]))
            start = segment + 1
        }
        return result
    }

    @Test func trimmedLengthPlusDistanceAlongIsTheOriginalLength() throws {
        var generator = RouteGenerator(seed: 0x7121_0001)
        for _ in 0..<Self.iterations {
            let path = generator.path()
            let snapped = try #require(path.snap(generator.query(near: path)))
            let trimmed = path.trimmed(at: snapped)
            #expect(abs(trimmed.length + snapped.distanceAlong - path.length) < 0.01)
            #expect(trimmed.points.first == snapped.point)
            #expect(snapped.distanceAlong >= 0 && snapped.distanceAlong <= path.length)
            #expect((0...1).contains(snapped.fraction))
        }
    }

    @Test func snapIsNeverFartherThanTheNearestVertex() throws {
        var generator = RouteGenerator(seed: 0x7121_0002)
        for _ in 0..<Self.iterations {
            let path = generator.path()
            let query = generator.query(near: path)
            let snapped = try #require(path.snap(query))
            let nearestVertex = path.points.map { Distance.meters(query, $0) }.min() ?? .infinity
            #expect(snapped.distanceOff <= nearestVertex + 1e-6)
            #expect(abs(Distance.meters(query, snapped.point) - snapped.distanceOff) < 1e-9)
            #expect(abs(Distance.meters(path.point(atDistance: snapped.distanceAlong), snapped.point)) < 0.01)
        }
    }

    @Test func snapNotBeforeStaysAtOrAfterTheBoundAndTrimsConsistently() throws {
        var generator = RouteGenerator(seed: 0x7121_0003)
        for _ in 0..<Self.iterations {
            let path = generator.path()
            let bound = Double.random(in: 0...max(path.length, 1), using: &generator.random)
            let snapped = try #require(path.snap(generator.query(near: path), notBefore: bound))
            #expect(snapped.distanceAlong >= min(bound, path.length))
            #expect(abs(path.trimmed(at: snapped).length + snapped.distanceAlong - path.length) < 0.01)
        }
    }

    @Test func trimmedIntervalsLieInsideTheTrimmedPathAndKeepEachSpeedsRoadAhead() throws {
        var generator = RouteGenerator(seed: 0x7121_0004)
        for _ in 0..<Self.iterations {
            let path = generator.path(pointCount: 2...40)
            let intervals = generator.intervals(pointCount: path.points.count)
            try Traffic.validate(intervals, pointCount: path.points.count)
            let snapped = try #require(path.snap(generator.query(near: path)))
            let trimmed = path.trimmed(at: snapped)
            let result = Traffic.trim(intervals, of: path, at: snapped)
            for interval in result {
                #expect(interval.startIndex >= 0 && interval.startIndex < interval.endIndex)
                #expect(interval.endIndex <= trimmed.points.count - 1)
            }
            try Traffic.validate(result, pointCount: trimmed.points.count)
            for speed in TrafficSpeed.allCases {
                let ahead = Self.coverage(of: speed, in: intervals, cumulative: path.cumulativeDistances, from: snapped.distanceAlong)
                let kept = Self.coverage(of: speed, in: result, cumulative: trimmed.cumulativeDistances)
                #expect(abs(ahead - kept) < 0.01, "speed \(speed): \(ahead) m ahead, \(kept) m kept")
            }
        }
    }

    @Test func stretchesThroughAnInsertedVertexPolylineRoundTripExactly() throws {
        var generator = RouteGenerator(seed: 0x7121_0005)
        for _ in 0..<Self.iterations {
            let path = generator.path(pointCount: 2...30, steps: 0...1_500)
            let stretches = generator.stretches(upTo: Int(path.length.rounded(.down)))
            let polyline = try Traffic.polyline(from: stretches, along: path)
            try Traffic.validate(polyline.intervals, pointCount: polyline.path.points.count)
            #expect(abs(polyline.path.length - path.length) < 1e-6)
            #expect(Traffic.roadStretches(from: polyline.intervals, along: polyline.path) == stretches)
            if let last = polyline.intervals.last {
                #expect(polyline.intervals.first?.startIndex == 0 && last.endIndex == polyline.path.points.count - 1)
            }
        }
    }

    @Test func stretchesRoundedToVerticesMoveEachBoundaryByAtMostHalfItsSegment() throws {
        var generator = RouteGenerator(seed: 0x7121_0006)
        var compared = 0
        for _ in 0..<Self.iterations {
            let path = generator.path(pointCount: 2...40, steps: 5...120, allowRepeats: false)
            let cumulative = path.cumulativeDistances
            let longest = zip(cumulative, cumulative.dropFirst()).map { $1 - $0 }.max() ?? 0
            // Long enough and far enough apart that no stretch collapses or merges when rounded.
            let spacing = Int(longest.rounded(.up)) + 2
            let stretches = generator.stretches(upTo: Int(path.length.rounded(.down)), minimumLength: spacing, minimumGap: spacing)
            let back = Traffic.roadStretches(from: try Traffic.intervals(from: stretches, along: path), along: path)
            try #require(back.count == stretches.count)
            for (got, want) in zip(back, stretches) {
                #expect(got.style == want.style)
                for (gotEdge, wantEdge) in [(got.offsetMeters, want.offsetMeters), (got.endMeters, want.endMeters)] {
                    let d = min(Double(wantEdge), path.length)
                    let segment = min(path.points.count - 2, cumulative.lastIndex { $0 <= d } ?? 0)
                    let tolerance = (cumulative[segment + 1] - cumulative[segment]) / 2 + 0.5
                    #expect(abs(Double(gotEdge - wantEdge)) <= tolerance + 1e-9, "\(wantEdge) m came back as \(gotEdge) m")
                }
                compared += 1
            }
        }
        #expect(compared > 200)
    }

    @Test func intervalsThroughRoadStretchesComeBackWhenSegmentsAreAtLeastAMetre() throws {
        var generator = RouteGenerator(seed: 0x7121_0007)
        for _ in 0..<Self.iterations {
            let path = generator.path(pointCount: 2...40, steps: 2...400, allowRepeats: false)
            let intervals = generator.intervals(pointCount: path.points.count)
            let stretches = Traffic.roadStretches(from: intervals, along: path)
            let back = try Traffic.intervals(from: stretches, along: path)
            #expect(back == (try Self.normalized(intervals, pointCount: path.points.count)))
        }
    }
}
