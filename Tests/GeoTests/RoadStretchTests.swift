import Foundation
import Geo
import Testing

@Suite struct RoadStretchTests {
    /// Five vertices 100 m apart along the equator: vertex k is at k × 100 m.
    let path = equatorPath(count: 5, spacing: 100)

    func stretch(_ style: RoadStretch.Style, _ offset: Int, _ length: Int) throws -> RoadStretch {
        try RoadStretch(style: style, offsetMeters: offset, lengthMeters: length)
    }

    func interval(_ start: Int, _ end: Int, _ speed: TrafficSpeed) throws -> TrafficInterval {
        try TrafficInterval(startIndex: start, endIndex: end, speed: speed)
    }

    @Test(arguments: [(-1, 10), (0, 0), (5, -3), (Int(Int32.max) + 1, 1), (0, Int(Int32.max) + 1)])
    func stretchNeedsANonNegativeOffsetAndPositiveLengthWithinInt32(offset: Int, length: Int) {
        let error = #expect(throws: GeoError.self) { try RoadStretch(style: .trafficJam, offsetMeters: offset, lengthMeters: length) }
        #expect(error?.code == .invalidRoadStretch)
    }

    @Test func encodesWithFleetEngineFieldNames() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = try encoder.encode(stretch(.slowerTraffic, 0, 120))
        #expect(String(decoding: data, as: UTF8.self) == #"{"lengthMeters":120,"offsetMeters":0,"style":"SLOWER_TRAFFIC"}"#)
    }

    @Test func decodingTreatsAnOmittedOffsetAsZeroAndRejectsAZeroLength() throws {
        let decoded = try JSONDecoder().decode(RoadStretch.self, from: Data(#"{"style":"TRAFFIC_JAM","lengthMeters":7}"#.utf8))
        #expect(decoded == (try stretch(.trafficJam, 0, 7)))
        let error = #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(RoadStretch.self, from: Data(#"{"style":"TRAFFIC_JAM","offsetMeters":7}"#.utf8))
        }
        #expect(underlyingGeoError(error)?.code == .invalidRoadStretch)
    }

    @Test func stylesMapToSpeedsAndBack() {
        #expect(RoadStretch.Style.slowerTraffic.speed == .slow)
        #expect(RoadStretch.Style.trafficJam.speed == .trafficJam)
        #expect(RoadStretch.Style(.slow) == .slowerTraffic)
        #expect(RoadStretch.Style(.trafficJam) == .trafficJam)
        #expect(RoadStretch.Style(.normal) == nil)
        #expect(RoadStretch.Style(.noData) == nil)
    }

    @Test func stretchesBecomeIntervalsAtTheNearestVerticesWithNormalTrafficElsewhere() throws {
        let stretches = [try stretch(.slowerTraffic, 96, 207), try stretch(.trafficJam, 303, 60)]
        // 96 → vertex 1, 303 → vertex 3, 363 → vertex 4.
        let intervals = try Traffic.intervals(from: stretches, along: path)
        #expect(intervals == [try interval(0, 1, .normal), try interval(1, 3, .slow), try interval(3, 4, .trafficJam)])
    }

    @Test func noStretchesMeansNormalTrafficOnTheWholePath() throws {
        #expect(try Traffic.intervals(from: [], along: path) == [try interval(0, 4, .normal)])
        #expect(try Traffic.intervals(from: [stretch(.trafficJam, 0, 10)], along: Path([.at(0, 0)])) == [])
    }

    @Test func unsortedStretchesAreAccepted() throws {
        let stretches = [try stretch(.trafficJam, 300, 100), try stretch(.slowerTraffic, 0, 100)]
        let intervals = try Traffic.intervals(from: stretches, along: path)
        #expect(intervals == [try interval(0, 1, .slow), try interval(1, 3, .normal), try interval(3, 4, .trafficJam)])
    }

    @Test func overlappingStretchesAreRejectedNamingBoth() throws {
        let stretches = [try stretch(.slowerTraffic, 0, 150), try stretch(.trafficJam, 120, 50)]
        let error = #expect(throws: GeoError.self) { try Traffic.intervals(from: stretches, along: path) }
        #expect(error?.code == .invalidRoadStretch)
        #expect(error?.message.contains("120") == true)
        #expect(error?.message.contains("150") == true)
        #expect(throws: GeoError.self) { try Traffic.polyline(from: stretches, along: path) }
    }

    @Test func stretchesPastTheEndAreClippedOrIgnored() throws {
        // 360 m and the clipped end (400 m) both round to vertex 4; 900 m starts past the end.
        let stretches = [try stretch(.trafficJam, 360, 500), try stretch(.slowerTraffic, 900, 10)]
        #expect(try Traffic.intervals(from: stretches, along: path) == [try interval(0, 4, .normal)])
        let clipped = try Traffic.intervals(from: [stretch(.trafficJam, 280, 500)], along: path)
        #expect(clipped == [try interval(0, 3, .normal), try interval(3, 4, .trafficJam)])
    }

    @Test func touchingStretchesOfTheSameStyleMergeIntoOneInterval() throws {
        let stretches = [try stretch(.slowerTraffic, 100, 100), try stretch(.slowerTraffic, 200, 100)]
        #expect(try Traffic.intervals(from: stretches, along: path) == [
            try interval(0, 1, .normal), try interval(1, 3, .slow), try interval(3, 4, .normal),
        ])
    }

    @Test func aStretchShorterThanHalfASegmentAwayFromVerticesDisappearsWhenRounded() throws {
        #expect(try Traffic.intervals(from: [stretch(.trafficJam, 130, 20)], along: path) == [try interval(0, 4, .normal)])
    }

    @Test func onlySlowAndJammedIntervalsBecomeStretches() throws {
        let intervals = [
            try interval(0, 1, .noData), try interval(1, 2, .slow), try interval(2, 3, .normal), try interval(3, 4, .trafficJam),
        ]
        #expect(Traffic.roadStretches(from: intervals, along: path) == [
            try stretch(.slowerTraffic, 100, 100), try stretch(.trafficJam, 300, 100),
        ])
    }

    @Test func touchingIntervalsOfTheSameSpeedBecomeOneStretch() throws {
        let intervals = [try interval(0, 1, .slow), try interval(1, 3, .slow), try interval(3, 4, .trafficJam)]
        #expect(Traffic.roadStretches(from: intervals, along: path) == [
            try stretch(.slowerTraffic, 0, 300), try stretch(.trafficJam, 300, 100),
        ])
    }

    @Test func intervalsBeyondThePathAreClampedToItsLastPoint() throws {
        let intervals = [try interval(3, 9, .trafficJam)]
        #expect(Traffic.roadStretches(from: intervals, along: path) == [try stretch(.trafficJam, 300, 100)])
        #expect(Traffic.roadStretches(from: intervals, along: Path([.at(0, 0)])) == [])
    }

    @Test func polylineInsertsVerticesWhereStretchesStartAndEndMidSegment() throws {
        let straight = equatorPath(count: 2, spacing: 1_000)
        let result = try Traffic.polyline(from: [stretch(.trafficJam, 250, 250)], along: straight)
        #expect(result.path.points.count == 4)
        #expect(result.path.points.first == straight.points[0] && result.path.points.last == straight.points[1])
        let cumulative = result.path.cumulativeDistances
        #expect(abs(cumulative[1] - 250) < 1e-6 && abs(cumulative[2] - 500) < 1e-6)
        #expect(abs(result.path.length - straight.length) < 1e-6)
        #expect(result.intervals == [try interval(0, 1, .normal), try interval(1, 2, .trafficJam), try interval(2, 3, .normal)])
        #expect(Traffic.roadStretches(from: result.intervals, along: result.path) == [try stretch(.trafficJam, 250, 250)])
    }

    @Test func polylineReusesAVertexThatAlreadySitsOnABoundary() throws {
        let result = try Traffic.polyline(from: [stretch(.slowerTraffic, 100, 150)], along: path)
        #expect(result.path.points.count == 6)  // only 250 m is new
        #expect(result.intervals == [
            try interval(0, 1, .normal), try interval(1, 3, .slow), try interval(3, 5, .normal),
        ])
    }

    @Test func trafficPolylineInitializerValidatesItsIntervals() throws {
        let error = #expect(throws: GeoError.self) { try TrafficPolyline(path: path, intervals: [interval(0, 5, .slow)]) }
        #expect(error?.code == .invalidInterval)
        let valid = try TrafficPolyline(path: path, intervals: [interval(0, 4, .slow)])
        #expect(valid.intervals.count == 1)
    }
}
