import API
import Foundation
import JSON
import Journey
import Testing
import TestSupport

/// A car that goes silent turns stale by the clock, not only when the trip's next event comes:
/// GET, long polls and open streams all see it. Waits out the real 60 s threshold (in its own
/// suite, so the serialized rider suites do not wait with it).
@Suite(.timeLimit(.minutes(3))) struct StaleVehicleTests {
    static func vehicleMarker(_ view: JSONValue) -> JSONValue? {
        view["markers"]?.arrayValue?.first { $0["type"]?.stringValue == "TRIP_VEHICLE" }
    }

    @Test func aSilentVehicleTurnsStaleByTheClockForReadsLongPollsAndStreams() async throws {
        try await TestServer.with { server in
            try await server.startTrip()
            try await server.report(latitude: 52.5231)
            let view = try await server.journeyView("t-1") { vehicleLatitude($0) == 52.5231 }
            let marker = try #require(Self.vehicleMarker(view))
            #expect(marker["stale"] == .bool(false), "\(marker)")
            let staleTime = try #require(marker["staleTime"]?.stringValue.flatMap(Timestamp.init(rfc3339:)), "\(marker)")
            let untilStale = staleTime.date.timeIntervalSinceNow
            #expect(untilStale > 50 && untilStale <= 60, "staleTime is the report's server time plus 60 s: \(untilStale) s away")
            let fresh = "\"\(version(view))\""

            let stream = try await server.openStream("/v1/providers/acme/trips/t-1/journey:stream", token: server.server, timeoutSeconds: 90)
            defer { stream.close() }
            let first = try #require(try await stream.nextEventAsync())
            #expect(first.id == String(version(view)))
            // A long poll on the fresh view, open when the marker turns stale (the client gives up after 30 s).
            try await Task.sleep(for: .seconds(max(0, untilStale - 15)))
            async let woken = server.journey("t-1", query: "?waitSeconds=25", headers: ["If-None-Match": fresh])

            let pushed = try #require(try await stream.nextEventAsync())
            let pushedView = try JSONValue.parse(Array(pushed.data.utf8))
            #expect(Date() >= staleTime.date, "pushed before the stale time")
            #expect(pushed.id == String(version(view)), "the same version, seen stale")
            #expect(Self.vehicleMarker(pushedView)?["stale"] == .bool(true), "\(pushedView)")

            let polled = try await woken
            #expect(polled.status == 200 && polled.header("ETag") == "\"\(version(view))-stale\"", "\(polled.status) \(polled.headers)")
            #expect(Self.vehicleMarker(polled.json)?["stale"] == .bool(true))
            let again = try await server.journey("t-1", headers: ["If-None-Match": "\"\(version(view))-stale\""])
            #expect(again.status == 304)
            let old = try await server.journey("t-1", headers: ["If-None-Match": fresh])
            #expect(old.status == 200 && Self.vehicleMarker(old.json)?["stale"] == .bool(true))

            // The next report makes it fresh again, with a new version.
            try await server.report(latitude: 52.5232)
            let next = try #require(try await stream.nextEventAsync())
            let nextView = try JSONValue.parse(Array(next.data.utf8))
            #expect(version(nextView) > version(view) && Self.vehicleMarker(nextView)?["stale"] == .bool(false), "\(nextView)")
        }
    }
}
