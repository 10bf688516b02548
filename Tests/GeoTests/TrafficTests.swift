import Geo
import Testing

@Suite struct TrafficTests {
    /// Five vertices 100 m apart along the equator.
    let path = equatorPath(count: 5, spacing: 100)

    func interval(_ start: Int, _ end: Int, _ speed: TrafficSpeed) throws -> TrafficInterval {
        try TrafficInterval(startIndex: start, endIndex: end, speed: speed)
    }

    @Test func validateAcceptsOrderedTouchingAndGappedIntervals() throws {
        try Traffic.validate([], pointCount: 0)
        try Traffic.validate([interval(0, 1, .normal), interval(1, 3, .slow), interval(3, 4, .trafficJam)], pointCount: 5)
        try Traffic.validate([interval(1, 2, .slow), interval(3, 4, .noData)], pointCount: 5)
    }

    @Test func validateRejectsAnIntervalBeyondTheLastPoint() throws {
        let intervals = [try interval(0, 2, .normal), try interval(2, 5, .slow)]
        let error = #expect(throws: GeoError.self) { try Traffic.validate(intervals, pointCount: 5) }
        #expect(error?.code == .invalidInterval)
        #expect(error?.message.contains("interval 1") == true)
        #expect(error?.message.contains("5") == true)
    }

    @Test func validateRejectsOverlappingIntervals() throws {
        let intervals = [try interval(0, 3, .normal), try interval(2, 4, .slow)]
        let error = #expect(throws: GeoError.self) { try Traffic.validate(intervals, pointCount: 5) }
        #expect(error?.code == .invalidInterval)
        #expect(error?.message.contains("overlap") == true)
    }

    @Test func validateRejectsUnorderedIntervals() throws {
        let intervals = [try interval(2, 4, .slow), try interval(0, 1, .normal)]
        let error = #expect(throws: GeoError.self) { try Traffic.validate(intervals, pointCount: 5) }
        #expect(error?.code == .invalidInterval)
    }

    @Test func validateRejectsAnyIntervalOnAPathWithoutSegments() throws {
        let error = #expect(throws: GeoError.self) { try Traffic.validate([interval(0, 1, .slow)], pointCount: 1) }
        #expect(error?.code == .invalidInterval)
    }

    @Test func trimMidSegmentDropsIntervalsBehindClipsTheCurrentOneAndShiftsTheRest() throws {
        let intervals = [try interval(0, 1, .normal), try interval(1, 3, .slow), try interval(3, 4, .trafficJam)]
        let snapped = try #require(path.snap(path.point(atDistance: 150)))
        let trimmed = path.trimmed(at: snapped)
        #expect(trimmed.points.count == 4)  // snapped point, then vertices 2, 3, 4
        let result = Traffic.trim(intervals, of: path, at: snapped)
        #expect(result == [try interval(0, 2, .slow), try interval(2, 3, .trafficJam)])
    }

    @Test func trimOnAVertexShiftsIndicesWithoutAnInsertedPoint() throws {
        let intervals = [try interval(0, 1, .normal), try interval(1, 3, .slow), try interval(3, 4, .trafficJam)]
        let snapped = try #require(path.snap(path.points[2]))
        #expect(path.trimmed(at: snapped).points == Array(path.points[2...]))
        let result = Traffic.trim(intervals, of: path, at: snapped)
        #expect(result == [try interval(0, 1, .slow), try interval(1, 2, .trafficJam)])
    }

    @Test func trimDropsAnIntervalThatEndsExactlyWhereTheVehicleIs() throws {
        let intervals = [try interval(0, 2, .slow), try interval(2, 4, .normal)]
        let snapped = try #require(path.snap(path.points[2]))
        #expect(Traffic.trim(intervals, of: path, at: snapped) == [try interval(0, 2, .normal)])
    }

    @Test func trimKeepsGapsAsGaps() throws {
        let intervals = [try interval(3, 4, .trafficJam)]
        let snapped = try #require(path.snap(path.point(atDistance: 50)))
        // Trimmed: snapped, v1, v2, v3, v4 — vertex 3 becomes index 3.
        #expect(Traffic.trim(intervals, of: path, at: snapped) == [try interval(3, 4, .trafficJam)])
    }

    @Test func trimAtTheEndLeavesNothing() throws {
        let intervals = [try interval(0, 4, .slow)]
        let snapped = try #require(path.snap(path.points[4]))
        #expect(Traffic.trim(intervals, of: path, at: snapped) == [])
        #expect(Traffic.trim(intervals, of: Path([]), at: snapped) == [])
    }
}
