import JSON
import Journey
import Testing
@testable import API

/// The vehicle marker's staleness judged by the clock at read time (`JourneySnapshot.seen(at:)`).
@Suite struct JourneySnapshotTests {
    static func view(stale: Bool, visible: Bool = true, staleTime: String? = "2026-01-01T10:01:00Z") throws -> JSONValue {
        let time = staleTime.map { "\"\($0)\"" } ?? "null"
        return try JSONValue.parse(Array("""
            {"version":7,"tripStatus":"ENROUTE_TO_PICKUP","markers":[{"type":"PICKUP","visible":true},
             {"type":"TRIP_VEHICLE","position":{"latitude":52.5,"longitude":13.4},"visible":\(visible),"stale":\(stale),"staleTime":\(time)}]}
            """.utf8))
    }

    static let before = Timestamp(rfc3339: "2026-01-01T10:00:59Z")!
    static let after = Timestamp(rfc3339: "2026-01-01T10:01:00Z")!

    @Test func pastTheStaleTimeReadersGetTheSameVersionWithTheMarkerStale() throws {
        let fresh = try #require(JourneySnapshot(key: "providers/acme/trips/t-1", document: Self.view(stale: false)))
        #expect(fresh.seen(at: Self.before) === fresh)
        let stale = fresh.seen(at: Self.after)
        #expect(stale !== fresh && stale.version == 7 && stale.isStaleVariant)
        #expect(stale.etag == #""7-stale""# && fresh.etag == #""7""#)
        #expect(stale.rank == fresh.rank + 1 && fresh.rank == JourneySnapshot.rank(ofVersion: 7))
        #expect(fresh.seen(at: Self.after) === stale, "made once per version")
        let view = try JSONValue.parse(stale.body)
        let markers = try #require(view["markers"]?.arrayValue)
        let freshMarkers = try #require(try JSONValue.parse(fresh.body)["markers"]?.arrayValue)
        #expect(markers[1]["stale"] == .bool(true) && markers[1]["position"] == freshMarkers[1]["position"])
        #expect(markers[0]["stale"] == nil, "other markers are untouched")
        #expect(String(decoding: stale.frame, as: UTF8.self).hasPrefix("id: 7\ndata: {"))
    }

    @Test func aHiddenOrAlreadyStaleOrUntimedMarkerNeverChangesByTheClock() throws {
        for document in [try Self.view(stale: true), try Self.view(stale: false, visible: false), try Self.view(stale: false, staleTime: nil)] {
            let snapshot = try #require(JourneySnapshot(key: "k", document: document))
            #expect(snapshot.staleTime == nil)
            #expect(snapshot.seen(at: Self.after) === snapshot)
        }
    }
}
