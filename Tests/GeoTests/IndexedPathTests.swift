import Geo
import Testing

/// `IndexedPath.snap` against `Path.snap`, the plain scan it must reproduce bit for bit.
@Suite struct IndexedPathTests {
    /// Both nil, or the same snap down to the last bit of every number (so 0 and -0 differ).
    static func identical(_ a: SnappedPoint?, _ b: SnappedPoint?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return a.segmentIndex == b.segmentIndex
            && a.point.latitude.bitPattern == b.point.latitude.bitPattern
            && a.point.longitude.bitPattern == b.point.longitude.bitPattern
            && a.fraction.bitPattern == b.fraction.bitPattern
            && a.distanceAlong.bitPattern == b.distanceAlong.bitPattern
            && a.distanceOff.bitPattern == b.distanceOff.bitPattern
    }

    /// `path`, then back along itself `gap` metres to the north of each vertex (0: the same vertices).
    static func doubledBack(_ path: Path, gap: Double) -> Path {
        Path(path.points + path.points.reversed().map { Distance.destination(from: $0, bearing: 0, meters: gap) })
    }

    /// Random routes (long enough for several tree levels, some doubling back on themselves, some
    /// with zero-length segments, some with continent-sized segments), queried on and near them,
    /// on vertices, far away and anywhere on Earth, with and without a `notBefore`.
    @Test func indexedSnapIsExactlyThePlainScan() throws {
        var generator = RouteGenerator(seed: 0x1DE_0001)
        var checked = 0
        var mismatches: [String] = []
        for round in 0..<400 {
            var path = switch round % 8 {
            case 0: generator.path(pointCount: 2...60, steps: 100_000...3_000_000)
            case 1: generator.path(pointCount: 300...1_500, steps: 0...120)
            default: generator.path(pointCount: 1...300, steps: 0...400)
            }
            if round % 3 == 0 {
                path = Self.doubledBack(path, gap: [0, 2, 25][round % 9 / 3])
            }
            let indexed = IndexedPath(path)
            var previous = 0.0
            for query in 0..<24 {
                let p: LatLng
                switch query % 6 {
                case 0: p = .at(Double.random(in: -90...90, using: &generator.random), Double.random(in: -180...180, using: &generator.random))
                case 1: p = generator.query(near: path, spread: 20_000)
                case 2: p = path.points.isEmpty ? .at(0, 0) : path.points[Int.random(in: path.points.indices, using: &generator.random)]
                default: p = generator.query(near: path, spread: 40)
                }
                let bounds: [Double] = [0, previous, Double.random(in: -50...(path.length + 50), using: &generator.random), .nan, .infinity, -.infinity]
                for bound in bounds {
                    let expected = path.snap(p, notBefore: bound)
                    let actual = indexed.snap(p, notBefore: bound)
                    checked += 1
                    if !Self.identical(actual, expected), mismatches.count < 5 {
                        mismatches.append("round \(round), \(path.points.count) points, query \(p), notBefore \(bound): \(String(describing: actual)) instead of \(String(describing: expected))")
                    }
                }
                #expect(Self.identical(indexed.snap(p), path.snap(p)))
                previous = path.snap(p, notBefore: previous)?.distanceAlong ?? previous
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
        #expect(checked == 400 * 24 * 6)
    }
}

extension IndexedPathTests {
    /// A vehicle driving a 10,000-point route, reporting every 20-80 m up to 15 m off it.
    ///
    /// Each report is snapped as the journey view does (from the previous snap on) and as the
    /// domain does (the whole route); neither may evaluate more than a small constant number of
    /// segments, where a plain scan evaluates all 9,999. Some snaps are checked against the scan.
    @Test func snappingAlongATenThousandPointRouteExaminesABoundedNumberOfSegments() throws {
        var generator = RouteGenerator(seed: 0x1DE_0002)
        let path = generator.path(pointCount: 10_000...10_000, steps: 5...40, turns: -15...15, allowRepeats: false)
        let indexed = IndexedPath(path)
        var along = 0.0
        var previous = 0.0
        var most = 0
        var total = 0
        var reports = 0
        while along < path.length {
            let position = Distance.destination(
                from: path.point(atDistance: along),
                bearing: Double.random(in: 0..<360, using: &generator.random),
                meters: Double.random(in: 0...15, using: &generator.random)
            )
            let journey = indexed.search(position, notBefore: previous)
            let domain = indexed.search(position, notBefore: 0)
            most = max(most, journey.segmentsExamined, domain.segmentsExamined)
            total += journey.segmentsExamined + domain.segmentsExamined
            if reports % 100 == 0 {
                #expect(Self.identical(journey.snapped, path.snap(position, notBefore: previous)))
                #expect(Self.identical(domain.snapped, path.snap(position)))
            }
            // As the journey view does: a position off the route does not move the snap.
            let snapped = try #require(journey.snapped)
            if snapped.distanceOff <= 50 { previous = snapped.distanceAlong }
            reports += 1
            along += Double.random(in: 20...80, using: &generator.random)
        }
        #expect(path.points.count == 10_000)
        #expect(reports > 1_000)
        #expect(most < 200, "a report examined \(most) segments")
        #expect(total < 40 * 2 * reports, "\(total) segments examined for \(reports) reports")
    }

    @Test func emptyAndSinglePointPathsSnapAsThePlainScanDoes() {
        #expect(IndexedPath(Path([])).snap(.at(1, 1)) == nil)
        let single = Path([.at(1, 2)])
        #expect(Self.identical(IndexedPath(single).snap(.at(1.001, 2), notBefore: 5), single.snap(.at(1.001, 2), notBefore: 5)))
        #expect(IndexedPath(single).lowerBound(to: .at(1.001, 2)) == single.snap(.at(1.001, 2))?.distanceOff)
        #expect(IndexedPath(Path([])).lowerBound(to: .at(1, 1)) == .infinity)
    }

    /// The bound `DriverGuidance` uses to skip whole steps: never above a real snap's distance.
    @Test func lowerBoundNeverExceedsTheSnappedDistance() throws {
        var generator = RouteGenerator(seed: 0x1DE_0003)
        for round in 0..<300 {
            let path = round % 5 == 0 ? generator.path(pointCount: 2...40, steps: 100_000...3_000_000) : generator.path(pointCount: 2...400)
            let indexed = IndexedPath(path)
            for _ in 0..<10 {
                let p = generator.query(near: path, spread: round % 2 == 0 ? 30 : 30_000)
                let snapped = try #require(path.snap(p))
                #expect(indexed.lowerBound(to: p) <= snapped.distanceOff)
            }
        }
    }
}
