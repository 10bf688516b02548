import Geo
import Testing

@Suite struct PathTests {
    @Test func lengthAndCumulativeDistancesMatchDistance() {
        let points = [LatLng.at(0, 0), .at(0, 0.01), .at(0.01, 0.01)]
        let path = Path(points)
        #expect(path.cumulativeDistances == Distance.cumulative(points))
        #expect(path.length == Distance.pathLength(points))
        #expect(Path([]).length == 0)
        #expect(Path([.at(1, 1)]).length == 0)
    }

    @Test func pointAtDistanceWalksAlongSegmentsAndClampsAtTheEnds() {
        let path = equatorPath(count: 3, spacing: 1_000)
        #expect(path.point(atDistance: 0) == path.points[0])
        #expect(path.point(atDistance: -5) == path.points[0])
        #expect(path.point(atDistance: 1e9) == path.points[2])
        #expect(path.point(atDistance: .nan) == path.points[0])
        let middle = path.point(atDistance: 1_500)
        #expect(abs(Distance.meters(path.points[0], middle) - 1_500) < 1e-6)
        #expect(abs(middle.latitude) < 1e-12)
    }

    @Test func equalityIgnoresHowThePathWasBuilt() {
        let points = [LatLng.at(1, 2), .at(3, 4)]
        #expect(Path(points) == Path(Array(points)))
        #expect(Path(points) != Path(points.reversed()))
        #expect(Set([Path(points), Path(points)]).count == 1)
    }
}
