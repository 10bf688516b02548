import Foundation
import Geo
import Testing

@Suite struct TrafficIntervalTests {
    @Test(arguments: [(0, 0), (3, 2), (-1, 4)])
    func intervalMustStartAtZeroOrLaterAndBeforeItsEnd(start: Int, end: Int) {
        let error = #expect(throws: GeoError.self) { try TrafficInterval(startIndex: start, endIndex: end, speed: .slow) }
        #expect(error?.code == .invalidInterval)
        #expect(error?.message.contains("\(start)") == true)
    }

    @Test func speedWireNamesAreFleetEngines() {
        #expect(TrafficSpeed.allCases.map(\.rawValue) == ["NO_DATA", "NORMAL", "SLOW", "TRAFFIC_JAM"])
    }

    @Test func encodesWithFleetEngineFieldNames() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = try encoder.encode(TrafficInterval(startIndex: 0, endIndex: 4, speed: .trafficJam))
        #expect(String(decoding: data, as: UTF8.self) == #"{"endPolylinePointIndex":4,"speed":"TRAFFIC_JAM","startPolylinePointIndex":0}"#)
    }

    @Test func decodingTreatsAnOmittedStartIndexAsZero() throws {
        let json = #"{"endPolylinePointIndex":3,"speed":"SLOW"}"#
        let interval = try JSONDecoder().decode(TrafficInterval.self, from: Data(json.utf8))
        #expect(interval == (try TrafficInterval(startIndex: 0, endIndex: 3, speed: .slow)))
    }

    @Test(arguments: [
        #"{"startPolylinePointIndex":3,"endPolylinePointIndex":3,"speed":"SLOW"}"#,
        #"{"startPolylinePointIndex":-2,"endPolylinePointIndex":3,"speed":"SLOW"}"#,
        #"{"speed":"NORMAL"}"#,
    ])
    func decodingRejectsAnEmptyOrNegativeInterval(json: String) {
        let error = #expect(throws: DecodingError.self) { try JSONDecoder().decode(TrafficInterval.self, from: Data(json.utf8)) }
        #expect(underlyingGeoError(error)?.code == .invalidInterval)
    }
}
