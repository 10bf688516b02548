import Geo
import Testing

@Suite struct SnapTests {
    /// Four vertices 1 km apart heading east along the equator.
    let path = equatorPath(count: 4, spacing: 1_000)

    @Test func emptyPathHasNoSnap() {
        #expect(Path([]).snap(.at(0, 0)) == nil)
        #expect(Path([]).snap(.at(0, 0), notBefore: 10) == nil)
    }

    @Test func singlePointPathSnapsToThatPoint() throws {
        let snapped = try #require(Path([.at(0, 0)]).snap(.at(0.001, 0)))
        #expect(snapped.point == .at(0, 0))
        #expect(snapped.segmentIndex == 0 && snapped.fraction == 0 && snapped.distanceAlong == 0)
        #expect(abs(snapped.distanceOff - 111.195) < 0.001)
    }

    @Test func queryOnAnInnerVertexSnapsToThatVertexAsTheStartOfItsSegment() throws {
        let snapped = try #require(path.snap(path.points[2]))
        #expect(snapped.point == path.points[2])
        #expect(snapped.segmentIndex == 2)
        #expect(snapped.fraction == 0)
        #expect(snapped.distanceAlong == path.cumulativeDistances[2])
        #expect(snapped.distanceOff < 1e-6)
    }

    @Test func queryOnTheLastVertexSnapsToTheEndOfTheLastSegment() throws {
        let snapped = try #require(path.snap(path.points[3]))
        #expect(snapped.point == path.points[3])
        #expect(snapped.segmentIndex == 2 && snapped.fraction == 1)
        #expect(snapped.distanceAlong == path.length)
    }

    @Test func queryMidSegmentSnapsToThatFraction() throws {
        let query = path.point(atDistance: 1_250)
        let snapped = try #require(path.snap(query))
        #expect(snapped.segmentIndex == 1)
        #expect(abs(snapped.fraction - 0.25) < 1e-6)
        #expect(abs(snapped.distanceAlong - 1_250) < 0.001)
        #expect(snapped.distanceOff < 0.001)
    }

    @Test func queryOffToTheSideReportsThePerpendicularDistance() throws {
        let onPath = path.point(atDistance: 2_400)
        let query = Distance.destination(from: onPath, bearing: 0, meters: 75)
        let snapped = try #require(path.snap(query))
        #expect(snapped.segmentIndex == 2)
        #expect(abs(snapped.distanceAlong - 2_400) < 0.01)
        #expect(abs(snapped.distanceOff - 75) < 0.01)
        #expect(Distance.meters(snapped.point, onPath) < 0.01)
    }

    @Test func queryBeforeTheStartSnapsToTheFirstVertex() throws {
        let query = Distance.destination(from: path.points[0], bearing: 260, meters: 500)
        let snapped = try #require(path.snap(query))
        #expect(snapped.point == path.points[0])
        #expect(snapped.segmentIndex == 0 && snapped.fraction == 0 && snapped.distanceAlong == 0)
        #expect(abs(snapped.distanceOff - 500) < 1e-6)
    }

    @Test func queryBeyondTheEndSnapsToTheLastVertex() throws {
        let query = Distance.destination(from: path.points[3], bearing: 80, meters: 300)
        let snapped = try #require(path.snap(query))
        #expect(snapped.point == path.points[3])
        #expect(snapped.segmentIndex == 2 && snapped.fraction == 1)
        #expect(snapped.distanceAlong == path.length)
        #expect(abs(snapped.distanceOff - 300) < 1e-6)
    }

    @Test func nearestSegmentWinsOverEarlierOnes() throws {
        // An L: east 1 km, then north 1 km. A point near the second leg must snap there.
        let corner = Distance.destination(from: .at(0, 0), bearing: 90, meters: 1_000)
        let top = Distance.destination(from: corner, bearing: 0, meters: 1_000)
        let lPath = Path([.at(0, 0), corner, top])
        let query = Distance.destination(from: Distance.destination(from: corner, bearing: 0, meters: 600), bearing: 270, meters: 20)
        let snapped = try #require(lPath.snap(query))
        #expect(snapped.segmentIndex == 1)
        #expect(abs(snapped.distanceAlong - 1_600) < 0.05)
        #expect(abs(snapped.distanceOff - 20) < 0.05)
    }

    /// Out along one lane, a U-turn, and back along a parallel lane 30 m north.
    func uTurn() -> Path {
        let far = Distance.destination(from: .at(0, 0), bearing: 90, meters: 1_000)
        let farNorth = Distance.destination(from: far, bearing: 0, meters: 30)
        let nearNorth = Distance.destination(from: .at(0, 0), bearing: 0, meters: 30)
        return Path([.at(0, 0), far, farNorth, nearNorth])
    }

    @Test func withoutABoundARouteThatDoublesBackSnapsToTheNearerLane() throws {
        let route = uTurn()
        let query = Distance.destination(from: route.point(atDistance: 300), bearing: 0, meters: 10)
        let snapped = try #require(route.snap(query))
        #expect(snapped.segmentIndex == 0)
        #expect(abs(snapped.distanceAlong - 300) < 0.05)
    }

    @Test func notBeforeKeepsAVehicleFromSnappingBackToAnEarlierPass() throws {
        let route = uTurn()
        let query = Distance.destination(from: route.point(atDistance: 300), bearing: 0, meters: 10)
        let snapped = try #require(route.snap(query, notBefore: 1_030))
        #expect(snapped.segmentIndex == 2)
        // The return lane passes 300 m east of the start at 1 000 + 30 + 700 m.
        #expect(abs(snapped.distanceAlong - 1_730) < 0.05)
        #expect(abs(snapped.distanceOff - 20) < 0.05)
    }

    @Test func notBeforeInsideASegmentNeverSnapsBehindTheBound() throws {
        let query = path.point(atDistance: 500)
        let snapped = try #require(path.snap(query, notBefore: 700))
        #expect(snapped.segmentIndex == 0)
        #expect(snapped.distanceAlong >= 700)
        #expect(abs(snapped.distanceAlong - 700) < 1e-6)
        #expect(abs(snapped.distanceOff - 200) < 0.01)
    }

    @Test func notBeforeBeyondTheEndSnapsToTheLastVertex() throws {
        let snapped = try #require(path.snap(path.points[0], notBefore: 10_000))
        #expect(snapped.point == path.points[3])
        #expect(snapped.distanceAlong == path.length)
    }

    @Test func notBeforeZeroOrNegativeMatchesAnUnboundedSnap() {
        let query = LatLng.at(0.0003, 0.012)
        #expect(path.snap(query, notBefore: 0) == path.snap(query))
        #expect(path.snap(query, notBefore: -50) == path.snap(query))
    }

    @Test func trimmedMidSegmentStartsAtTheSnappedPointThenTheRemainingVertices() throws {
        let snapped = try #require(path.snap(path.point(atDistance: 1_250)))
        let trimmed = path.trimmed(at: snapped)
        #expect(trimmed.points == [snapped.point] + path.points[2...])
        #expect(abs(trimmed.length - (path.length - 1_250)) < 0.001)
    }

    @Test func trimmedOnAVertexAddsNoDuplicatePoint() throws {
        let snapped = try #require(path.snap(path.points[1]))
        #expect(path.trimmed(at: snapped).points == Array(path.points[1...]))
        let end = try #require(path.snap(path.points[3]))
        #expect(path.trimmed(at: end).points == [path.points[3]])
        let start = try #require(path.snap(path.points[0]))
        #expect(path.trimmed(at: start) == path)
    }

    @Test func queryWithinAMillimetreOfAVertexSnapsExactlyOntoIt() throws {
        let query = Distance.destination(from: path.points[2], bearing: 270, meters: 0.0004)
        let snapped = try #require(path.snap(query))
        #expect(snapped.point == path.points[2])
        #expect(path.trimmed(at: snapped).points.count == 2)
    }

    @Test func snappingAcrossTheAntimeridianFindsTheSegment() throws {
        let west = LatLng.at(10, 179.99)
        let east = LatLng.at(10, -179.99)
        let crossing = Path([west, east])
        let query = LatLng.at(10.0001, 179.999)
        let snapped = try #require(crossing.snap(query))
        #expect(abs(snapped.fraction - 0.45) < 1e-3)
        #expect(abs(snapped.distanceOff - 11.12) < 0.05)
    }
}
