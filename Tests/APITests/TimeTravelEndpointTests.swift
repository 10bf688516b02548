import API
import Foundation
import JSON
import Journey
import Testing
import TestSupport

extension AuditEndpoints {
    /// `GET .../trips/{t}/journey?asOf=` and `GET .../trips/{t}?asOf=`: the past replayed through the live projections.
    @Suite(.timeLimit(.minutes(4))) struct TimeTravelEndpointTests {
        /// What was live after one step of the script, and when.
        struct Capture {
            var step: String
            var at: Timestamp
            var journey: JSONValue
            var sdkTrip: JSONValue
            var sharedTrip: JSONValue
        }

        /// The SDK Trip without `remainingTimeToFirstWaypoint`: the one field computed from the
        /// request's "now" (`etaToFirstWaypoint` − now), which a live read and an `asOf` read take at
        /// different instants by construction. Checked separately against `asOf`.
        static func withoutNow(_ trip: JSONValue) -> JSONValue {
            guard case .object(var members) = trip else { return trip }
            members.removeValue(forKey: "remainingTimeToFirstWaypoint")
            return .object(members)
        }

        @Test func asOfEachCapturedInstantEqualsTheLiveJourneyAndTripOfThatInstant() async throws {
            try await TestServer.with { server in
                var captures: [Capture] = []
                func capture(_ step: String) async throws {
                    try await server.waitForProjections()
                    // Every event of the step is recorded and applied, and nothing is written until the next step.
                    let at = Timestamp(Date())
                    try await Task.sleep(for: .milliseconds(2))  // the next step's events are recorded after `at`
                    let live = try await server.journey("t-1")
                    try #require(live.status == 200, "\(step): \(live.text)")
                    let (sdkStatus, sdk) = try await server.json("GET", "/v1/providers/acme/trips/t-1")
                    let (sharedStatus, shared) = try await server.json("GET", "/v1/providers/acme/trips/t-1?view=JOURNEY_SHARING_V1S")
                    try #require(sdkStatus == 200 && sharedStatus == 200, "\(step): \(sdk) \(shared)")
                    captures.append(Capture(step: step, at: at, journey: live.json, sdkTrip: sdk, sharedTrip: shared))
                }
                try await server.createVehicle("v-1", latitude: 52.49, longitude: 13.39)
                let beforeTrip = Timestamp(Date())
                try await Task.sleep(for: .milliseconds(2))  // the trip is recorded after `beforeTrip`
                try await server.createTrip("t-1", extra: #","consumerId":"rider-1""#)
                try await capture("created")
                var (status, body) = try await server.updateTrip("t-1", mask: "vehicleId,tripStatus", #"{"vehicleId":"v-1","tripStatus":"ENROUTE_TO_PICKUP"}"#)
                try #require(status == 200, "\(body)")
                try await capture("assigned")
                try await server.report(latitude: 52.495, longitude: 13.395)
                try await capture("moving")
                (status, body) = try await server.json("PUT", "/v1/providers/acme/vehicles/v-1?updateMask=remainingDistanceMeters,etaToFirstWaypoint",
                                                       #"{"remainingDistanceMeters":800,"etaToFirstWaypoint":"\#(Timestamp(Date()).adding(seconds: 3600).rfc3339)"}"#)
                try #require(status == 200, "\(body)")
                try await capture("eta reported")
                try await server.report(latitude: 52.4999, longitude: 13.3999)
                (status, body) = try await server.updateTrip("t-1", mask: "tripStatus", #"{"tripStatus":"ARRIVED_AT_PICKUP"}"#)
                try #require(status == 200, "\(body)")
                try await capture("at pickup")
                (status, body) = try await server.updateTrip("t-1", mask: "tripStatus", #"{"tripStatus":"ENROUTE_TO_DROPOFF"}"#)
                try #require(status == 200, "\(body)")
                try await server.report(latitude: 52.51, longitude: 13.39)
                try await capture("riding")
                (status, body) = try await server.updateTrip("t-1", mask: "tripStatus", #"{"tripStatus":"COMPLETE"}"#)
                try #require(status == 200, "\(body)")
                try await server.report(latitude: 52.53, longitude: 13.38)  // after the trip: changes nothing of it
                try await capture("complete")

                // The script really changed the view: versions moved and statuses differ.
                #expect(Set(captures.map { version($0.journey) }).count >= 5, "\(captures.map { version($0.journey) })")
                #expect(captures.map { $0.journey["tripStatus"]?.stringValue ?? "" }.last == "COMPLETE")
                #expect(captures.contains { $0.sdkTrip["etaToFirstWaypoint"] != nil })

                let rider = server.token(.consumer, consumer: "rider-1")
                for capture in captures {
                    let asOf = capture.at.rfc3339
                    let past = try await server.journey("t-1", query: "?asOf=\(asOf)", headers: [:])
                    #expect(past.status == 200, "\(capture.step): \(past.text)")
                    #expect(past.json == capture.journey, "journey at \(capture.step):\n past \(past.json)\n live \(capture.journey)")
                    let auditor = try await server.journey("t-1", token: server.token(.auditor), query: "?asOf=\(asOf)")
                    #expect(auditor.json == capture.journey, "auditor's journey at \(capture.step)")
                    let riders = try await server.journey("t-1", token: rider, query: "?asOf=\(asOf)")
                    #expect(riders.json == capture.journey, "rider's journey at \(capture.step): \(riders.text)")

                    let (sdkStatus, sdk) = try await server.json("GET", "/v1/providers/acme/trips/t-1?asOf=\(asOf)")
                    #expect(sdkStatus == 200, "\(capture.step): \(sdk)")
                    #expect(Self.withoutNow(sdk) == Self.withoutNow(capture.sdkTrip), "trip at \(capture.step):\n past \(sdk)\n live \(capture.sdkTrip)")
                    if let eta = sdk["etaToFirstWaypoint"]?.stringValue.flatMap(Timestamp.init(rfc3339:)) {
                        let seconds = max(0, eta.microsecondsSinceEpoch - capture.at.microsecondsSinceEpoch) / 1_000_000
                        let remaining = sdk["remainingTimeToFirstWaypoint"]?.stringValue ?? ""
                        #expect(remaining.hasPrefix("\(seconds)"), "remaining \(remaining) for eta \(eta) at \(capture.at)")
                    }
                    let (sharedStatus, shared) = try await server.json("GET", "/v1/providers/acme/trips/t-1?view=JOURNEY_SHARING_V1S&asOf=\(asOf)", token: rider)
                    #expect(sharedStatus == 200 && shared == capture.sharedTrip, "shared trip at \(capture.step):\n past \(shared)\n live \(capture.sharedTrip)")
                }

                // Before the trip existed there was nothing to see.
                expectError((try await server.json("GET", "/v1/providers/acme/trips/t-1?asOf=\(beforeTrip.rfc3339)")), 404, "NOT_FOUND")
                let none = try await server.journey("t-1", query: "?asOf=\(beforeTrip.rfc3339)")
                #expect(none.status == 404, "\(none.text)")
            }
        }

        @Test func asOfRefusesDriversShareLinksOtherRidersFutureAndMalformedInstants() async throws {
            try await TestServer.with { server in
                try await server.startTrip(consumer: "rider-1")
                try await server.waitForProjections()
                let now = Timestamp(Date()).rfc3339
                func journey(_ query: String, token: String? = nil) async throws -> (Int, JSONValue) {
                    let response = try await server.journey("t-1", token: token, query: query)
                    return (response.status, response.json)
                }
                expectError(try await journey("?asOf=\(now)", token: server.token(.driver, vehicle: "v-1")), 403, "PERMISSION_DENIED")
                expectError(try await journey("?asOf=\(now)", token: server.token(.consumer, trip: "t-2")), 403, "PERMISSION_DENIED")
                expectError(try await journey("?asOf=\(now)", token: server.token(.consumer, consumer: "rider-2")), 403, "PERMISSION_DENIED")
                expectError(try await journey("?asOf=\(now)", token: server.token(.server, provider: "other")), 403, "PERMISSION_DENIED")
                let (shareStatus, share) = try await server.json("POST", "/v1/providers/acme/trips/t-1:share", "{}")
                try #require(shareStatus == 200, "\(share)")
                let before = try await server.eventCount()
                expectError(try await journey("?asOf=\(now)", token: share["token"]?.stringValue), 403, "PERMISSION_DENIED")
                #expect(try await journey("", token: share["token"]?.stringValue).0 == 200)  // the live view it may read

                let future = Timestamp(Date()).adding(seconds: 3600).rfc3339
                expectError(try await journey("?asOf=\(future)"), 400, "INVALID_ARGUMENT", containing: "future")
                expectError(try await journey("?asOf=now"), 400, "INVALID_ARGUMENT", containing: "asOf")
                expectError(try await journey("?asOf=\(now)&waitSeconds=5"), 400, "INVALID_ARGUMENT", containing: "waitSeconds")
                expectError(try await journey("?asOf=\(now)&asOf=\(now)"), 400, "INVALID_ARGUMENT")
                expectError(try await server.json("GET", "/v1/providers/acme/trips/t-9/journey?asOf=\(now)"), 404, "NOT_FOUND")

                let trip = "/v1/providers/acme/trips/t-1"
                expectError(try await server.json("GET", "\(trip)?asOf=\(now)", token: server.token(.driver, vehicle: "v-1")), 403, "PERMISSION_DENIED")
                expectError(try await server.json("GET", "\(trip)?asOf=\(now)", token: server.token(.consumer, trip: "t-1")), 403, "PERMISSION_DENIED",
                            containing: "JOURNEY_SHARING_V1S")
                expectError(try await server.json("GET", "\(trip)?view=JOURNEY_SHARING_V1S&asOf=\(now)", token: server.token(.consumer, trip: "t-2")),
                            403, "PERMISSION_DENIED")
                expectError(try await server.json("GET", "\(trip)?asOf=\(future)"), 400, "INVALID_ARGUMENT", containing: "future")
                expectError(try await server.json("GET", "\(trip)?asOf=2024-02-30T25:00:00Z"), 400, "INVALID_ARGUMENT", containing: "asOf")
                expectError(try await server.json("GET", "/v1/providers/acme/trips/t-9?asOf=\(now)"), 404, "NOT_FOUND")
                #expect(try await server.json("GET", "\(trip)?view=JOURNEY_SHARING_V1S&asOf=\(now)", token: server.token(.consumer, trip: "t-1")).0 == 200)
                #expect(try await server.json("GET", "\(trip)?asOf=\(now)", token: server.token(.auditor)).0 == 200)
                #expect(try await server.eventCount() == before)
            }
        }

        /// The bound the tests below give their servers: more than a trip and its vehicle hold right
        /// after the assignment (about 5 events), less than they hold after `reports` more reports.
        static let bound = 20
        static let reports = 30

        /// A recorded instant after everything written so far, and the live journey of t-1 then.
        static func now(_ server: TestServer) async throws -> (at: Timestamp, journey: JSONValue) {
            try await server.waitForProjections()
            let at = Timestamp(Date())
            try await Task.sleep(for: .milliseconds(2))  // what is written next is recorded after `at`
            let live = try await server.journey("t-1")
            try #require(live.status == 200, "\(live.text)")
            return (at, live.json)
        }

        /// Gives v-1 `reports` location reports: its history, and so a replay of t-1, passes `bound`.
        static func lengthenVehicleHistory(_ server: TestServer) async throws {
            for index in 0..<reports {
                try await server.report(latitude: 52.49 + Double(index) * 0.0001, longitude: 13.39)
            }
        }

        @Test func asOfRefusesAnotherTripsConsumerBeforeReadingAnyHistory() async throws {
            // With a bound of one event, any replay of t-1 is refused (400) as soon as its stream is
            // counted: a 403 can only come from a check made before that.
            try await TestServer.with(environment: ["WAYMARK_TIME_TRAVEL_MAX_EVENTS": "1"]) { server in
                try await server.startTrip(consumer: "rider-1")
                let (now, _) = try await Self.now(server)
                let asOf = "asOf=\(now.rfc3339)"
                let trip = "/v1/providers/acme/trips/t-1"
                func journey(_ token: String) async throws -> (Int, JSONValue) {
                    let response = try await server.journey("t-1", token: token, query: "?\(asOf)")
                    return (response.status, response.json)
                }
                let stranger = server.token(.consumer, trip: "t-2")
                expectError(try await journey(stranger), 403, "PERMISSION_DENIED")
                expectError(try await server.json("GET", "\(trip)?view=JOURNEY_SHARING_V1S&\(asOf)", token: stranger), 403, "PERMISSION_DENIED")
                // The same requests by callers who may look are refused by the bound.
                expectError(try await journey(server.token(.consumer, trip: "t-1")), 400, "INVALID_ARGUMENT", containing: "more than the 1 ")
                expectError(try await journey(server.token(.auditor)), 400, "INVALID_ARGUMENT", containing: "more than the 1 ")
                expectError(try await server.json("GET", "\(trip)?view=JOURNEY_SHARING_V1S&\(asOf)", token: server.token(.consumer, trip: "t-1")),
                            400, "INVALID_ARGUMENT", containing: "more than the 1 ")
            }
        }

        @Test func asOfPastTheEventBoundIsRefusedNamingItAndUnderItAnswersAsLive() async throws {
            try await TestServer.with(environment: ["WAYMARK_TIME_TRAVEL_MAX_EVENTS": "\(Self.bound)"]) { server in
                try await server.startTrip(consumer: "rider-1")
                let early = try await Self.now(server)
                try await Self.lengthenVehicleHistory(server)
                let (late, _) = try await Self.now(server)

                // Counted as of the instant: v-1's history is past the bound now, but was not then.
                let past = try await server.journey("t-1", token: server.token(.auditor), query: "?asOf=\(early.at.rfc3339)")
                #expect(past.status == 200, "\(past.text)")
                #expect(past.json == early.journey, "past \(past.json)\n live \(early.journey)")
                #expect(try await server.json("GET", "/v1/providers/acme/trips/t-1?asOf=\(early.at.rfc3339)").0 == 200)

                let refused = try await server.journey("t-1", token: server.token(.auditor), query: "?asOf=\(late.rfc3339)")
                expectError((refused.status, refused.json), 400, "INVALID_ARGUMENT", containing: "more than the \(Self.bound) ")
                let message = refused.json["error"]?["message"]?.stringValue ?? ""
                #expect(message.contains("WAYMARK_TIME_TRAVEL_MAX_EVENTS") && message.contains("route audit"), "\(message)")
                expectError(try await server.json("GET", "/v1/providers/acme/trips/t-1?asOf=\(late.rfc3339)"), 400, "INVALID_ARGUMENT",
                            containing: "more than the \(Self.bound) ")
            }
        }

        @Test func asOfJudgesARidersTokenFromTheTripAloneBeforeCountingItsVehicle() async throws {
            try await TestServer.with(environment: ["WAYMARK_TIME_TRAVEL_MAX_EVENTS": "\(Self.bound)"]) { server in
                try await server.startTrip(consumer: "rider-1")
                let early = try await Self.now(server)
                let (status, body) = try await server.updateTrip("t-1", mask: "consumerId", #"{"consumerId":"rider-3"}"#)
                try #require(status == 200, "\(body)")
                let moved = try await Self.now(server)
                try await Self.lengthenVehicleHistory(server)
                let (late, _) = try await Self.now(server)
                func journey(_ rider: String, at instant: Timestamp) async throws -> TestServer.Response {
                    try await server.journey("t-1", token: server.token(.consumer, consumer: rider), query: "?asOf=\(instant.rfc3339)")
                }

                // Under the bound, a rider reads the trip as it was while it was theirs, and only then.
                let first = try await journey("rider-1", at: early.at)
                #expect(first.status == 200 && first.json == early.journey, "\(first.text)")
                let second = try await journey("rider-3", at: moved.at)
                #expect(second.status == 200 && second.json == moved.journey, "\(second.text)")
                let notYet = try await journey("rider-3", at: early.at)
                expectError((notYet.status, notYet.json), 403, "PERMISSION_DENIED")
                let noLonger = try await journey("rider-1", at: moved.at)
                expectError((noLonger.status, noLonger.json), 403, "PERMISSION_DENIED")

                // Past the bound: the trip's rider then is refused by it, any other rider before it.
                let rider = try await journey("rider-3", at: late)
                expectError((rider.status, rider.json), 400, "INVALID_ARGUMENT", containing: "more than the \(Self.bound) ")
                for other in ["rider-1", "rider-2"] {
                    let refused = try await journey(other, at: late)
                    expectError((refused.status, refused.json), 403, "PERMISSION_DENIED")
                }
                let trip = "/v1/providers/acme/trips/t-1?view=JOURNEY_SHARING_V1S&asOf=\(late.rfc3339)"
                expectError(try await server.json("GET", trip, token: server.token(.consumer, consumer: "rider-2")), 403, "PERMISSION_DENIED")
                expectError(try await server.json("GET", trip, token: server.token(.consumer, consumer: "rider-3")), 400, "INVALID_ARGUMENT")
            }
        }
    }
}
