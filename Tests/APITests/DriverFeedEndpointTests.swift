import API
import Foundation
import Geo
import JSON
import Journey
import Testing
import TestSupport

/// Route plans, route choice, token execution reports, continue-to-next, offers and the driver
/// feed over HTTP: a scripted drive, and every endpoint's unhappy paths.
@Suite(.timeLimit(.minutes(4)), .serialized) struct DriverFeedEndpointTests {
    static func p(_ lat: Double, _ lng: Double) -> LatLng { LatLng(uncheckedLatitude: lat, longitude: lng) }
    /// v-1 starts at S; the road goes east to B, then north to C, where the pickup lies on the right; then north to D.
    static let s = p(52.5150, 13.4000), b = p(52.5150, 13.4050), c = p(52.5200, 13.4050), d = p(52.5300, 13.4050)

    static func latLng(_ point: LatLng) -> String { #"{"latLng":{"latitude":\#(point.latitude),"longitude":\#(point.longitude)}}"# }
    static func polyline(_ points: [LatLng]) -> String { #"{"encodedPolyline":"\#(Polyline.encode(points).replacingOccurrences(of: "\\", with: "\\\\"))"}"# }

    static func step(_ maneuver: String, _ text: String, _ from: LatLng, _ to: LatLng, meters: Int, seconds: Int) -> String {
        #"{"distanceMeters":\#(meters),"staticDuration":"\#(seconds)s","polyline":\#(polyline([from, to])),"startLocation":\#(latLng(from)),"endLocation":\#(latLng(to)),"navigationInstruction":{"maneuver":"\#(maneuver)","instructions":"\#(text)"}}"#
    }

    static func leg(_ points: [LatLng], meters: Int, seconds: Int, steps: [String]) -> String {
        #"{"distanceMeters":\#(meters),"duration":"\#(seconds)s","staticDuration":"\#(seconds)s","polyline":\#(polyline(points)),"startLocation":\#(latLng(points[0])),"endLocation":\#(latLng(points[points.count - 1])),"steps":[\#(steps.joined(separator: ","))],"travelAdvisory":{"speedReadingIntervals":[{"startPolylinePointIndex":0,"endPolylinePointIndex":\#(points.count - 1),"speed":"NORMAL"}]}}"#
    }

    static let legToPickup = leg([s, b, c], meters: 900, seconds: 100, steps: [
        step("DEPART", "Head east on Main Street", s, b, meters: 340, seconds: 40),
        step("TURN_LEFT", "Turn left onto Oak Street", b, c, meters: 560, seconds: 60),
    ])
    static let legToDropoff = leg([c, d], meters: 1110, seconds: 120, steps: [step("DEPART", "Continue north on Oak Street", c, d, meters: 1110, seconds: 120)])

    /// A `:planRoute` body (the contract's shape): `routes` each with a token and the given legs.
    static func planBody(routes: [[String]] = [[legToPickup, legToDropoff]], travelMode: String = "DRIVE", preference: String = "TRAFFIC_AWARE",
                         tokens: Bool = true, extra: String = "") -> String {
        let list = routes.enumerated().map { i, legs in
            #"{\#(tokens ? #""routeToken":"token-\#(i)","# : "")"distanceMeters":2010,"duration":"220s","polyline":\#(polyline([s, d])),"legs":[\#(legs.joined(separator: ","))]}"#
        }
        return #"{"routes":[\#(list.joined(separator: ","))],"travelMode":"\#(travelMode)","routingPreference":"\#(preference)","objectives":[],"routeModifiers":{"avoidTolls":false,"avoidHighways":false,"avoidFerries":false}\#(extra)}"#
    }

    static let tripPath = "/v1/providers/acme/trips/t-1"
    static let vehiclePath = "/v1/providers/acme/vehicles/v-1"

    /// v-1 at S; t-1 from the pickup (right of C) to the dropoff (left of D), assigned to v-1 and ENROUTE_TO_PICKUP.
    static func start(_ server: TestServer) async throws {
        try await server.createVehicle("v-1", latitude: s.latitude, longitude: s.longitude)
        let (status, body) = try await server.json("POST", "/v1/providers/acme/trips?tripId=t-1", """
            {"tripType":"EXCLUSIVE","pickupPoint":{"point":{"latitude":52.52,"longitude":13.4053}},
             "dropoffPoint":{"point":{"latitude":52.53,"longitude":13.4047}}}
            """)
        try #require(status == 200, "create trip: \(body)")
        let (assigned, answer) = try await server.updateTrip("t-1", mask: "vehicleId,tripStatus", #"{"vehicleId":"v-1","tripStatus":"ENROUTE_TO_PICKUP"}"#)
        try #require(assigned == 200, "assign: \(answer)")
    }

    static func driver(_ server: TestServer, _ vehicle: String = "v-1") -> String { server.token(.driver, vehicle: vehicle) }

    static func report(_ server: TestServer, _ point: LatLng) async throws {
        let (status, body) = try await server.json("PUT", "\(vehiclePath)?updateMask=lastLocation",
                                                   #"{"lastLocation":{"location":{"latitude":\#(point.latitude),"longitude":\#(point.longitude)}}}"#)
        try #require(status == 200, "report: \(body)")
    }

    static func feed(_ server: TestServer, token: String? = nil) async throws -> (Int, JSONValue) {
        try await server.json("GET", "\(vehiclePath)/driverFeed", token: token ?? driver(server))
    }

    /// `[maneuver, instruction, distanceMeters, rounded value, unit, minutes]`.
    static func shown(_ value: JSONValue?) -> [String] {
        guard let value else { return [] }
        return [value["maneuver"]?.stringValue ?? "-", value["instruction"]?.stringValue ?? "-", String(value["distanceMeters"]?.int64Value ?? -1),
                value["rounded"]?["distance"]?["value"].map { $0.compactString } ?? "-", value["rounded"]?["distance"]?["unit"]?.stringValue ?? "-",
                String(value["rounded"]?["minutes"]?.int64Value ?? -1)]
    }

    @Test func aScriptedDriveAlongAPlannedRouteThenOffRouteAndReplanned() async throws {
        try await TestServer.with { server in
            try await Self.start(server)
            let (planned, trip) = try await server.json("POST", "\(Self.tripPath):planRoute", Self.planBody())
            #expect(planned == 200, "\(trip)")
            #expect(trip["name"]?.stringValue == "providers/acme/trips/t-1")

            try await Self.report(server, Self.p(52.5150, 13.4010))
            var (status, feed) = try await Self.feed(server)
            #expect(status == 200, "\(feed)")
            #expect(feed["vehicle"]?.stringValue == "providers/acme/vehicles/v-1")
            #expect(Self.shown(feed["currentStep"]) == ["TURN_LEFT", "Turn left onto Oak Street", "272", "250", "m", "1"])
            #expect(Self.shown(feed["nextStep"]).prefix(2) == ["DESTINATION_RIGHT", "Your destination is on your right"])
            #expect(Self.shown(feed["nextStop"]).suffix(4) == ["832", "850", "m", "2"])
            #expect(Self.shown(feed["tripRemaining"]).suffix(4) == ["1942", "1.9", "km", "4"])

            try await Self.report(server, Self.p(52.5150, 13.4045))
            (status, feed) = try await Self.feed(server)
            #expect(Self.shown(feed["currentStep"]) == ["TURN_LEFT", "Turn left onto Oak Street", "34", "30", "m", "1"])

            try await Self.report(server, Self.p(52.5180, 13.4050))
            (status, feed) = try await Self.feed(server)
            #expect(Self.shown(feed["currentStep"]) == ["DESTINATION_RIGHT", "Your destination is on your right", "224", "200", "m", "1"])

            // Off route: three reports 700 m east of the plan; the vehicle is OFF the plan it follows.
            for i in 0..<3 { try await Self.report(server, Self.p(52.5150 + Double(i) / 10_000, 13.4150)) }
            // Rerouted from where the car is: the new plan's steps drive the feed.
            let off = Self.p(52.5152, 13.4150), corner = Self.p(52.5200, 13.4150)
            let newLeg = Self.leg([off, corner, Self.c], meters: 1213, seconds: 150, steps: [
                Self.step("DEPART", "Head north on Elm Street", off, corner, meters: 534, seconds: 70),
                Self.step("TURN_LEFT", "Turn left onto Birch Road", corner, Self.c, meters: 679, seconds: 80),
            ])
            let (replanned, replanAnswer) = try await server.json("POST", "\(Self.tripPath):planRoute", Self.planBody(routes: [[newLeg, Self.legToDropoff]]))
            #expect(replanned == 200, "\(replanAnswer)")
            try await Self.report(server, Self.p(52.5176, 13.4150))
            (status, feed) = try await Self.feed(server)
            #expect(Self.shown(feed["currentStep"]).prefix(2) == ["TURN_LEFT", "Turn left onto Birch Road"])
            #expect(Self.shown(feed["currentStep"])[4] == "m")
        }
    }

    @Test func invalidPlansAreRejectedWithTheFleetEngineErrorShapeAndNothingWritten() async throws {
        try await TestServer.with { server in
            try await Self.start(server)
            let before = try await server.eventCount()
            let path = "\(Self.tripPath):planRoute"
            let bicycle = try await server.json("POST", path, Self.planBody(travelMode: "BICYCLE"))
            expectError(bicycle, 400, "INVALID_ARGUMENT", containing: "travelMode")
            #expect(bicycle.1["error"]?["details"]?.arrayValue?.first?["reason"]?.stringValue == "TRAVEL_MODE_UNSUPPORTED")
            expectError(try await server.json("POST", path, Self.planBody(preference: "TRAFFIC_UNAWARE")), 400, "INVALID_ARGUMENT", containing: "routingPreference")
            expectError(try await server.json("POST", path, Self.planBody(extra: #","intermediates":[{"via":true}]"#)), 400, "INVALID_ARGUMENT", containing: "via")
            expectError(try await server.json("POST", path, Self.planBody(routes: [[Self.legToPickup]])), 400, "INVALID_ARGUMENT", containing: "one leg per destination")
            expectError(try await server.json("POST", path, Self.planBody(extra: #","bogus":1"#)), 400, "INVALID_ARGUMENT", containing: "bogus")
            expectError(try await server.json("POST", path, #"{"routes":[]}"#), 400, "INVALID_ARGUMENT")
            expectError(try await server.json("POST", path, "{not json"), 400, "INVALID_ARGUMENT")
            let badStep = Self.planBody().replacingOccurrences(of: #""maneuver":"TURN_LEFT""#, with: #""maneuver":"FLY""#)
            expectError(try await server.json("POST", path, badStep), 400, "INVALID_ARGUMENT", containing: "maneuver")
            expectError(try await server.json("POST", path, Self.planBody(), token: Self.driver(server)), 403, "PERMISSION_DENIED")
            expectError(try await server.json("POST", path, Self.planBody(), token: server.token(.consumer, trip: "t-1")), 403, "PERMISSION_DENIED")
            expectError(try await server.json("POST", path, Self.planBody(), token: server.token(.server, provider: "other")), 403, "PERMISSION_DENIED")
            expectError(try await server.json("POST", "/v1/providers/acme/trips/nope:planRoute", Self.planBody()), 404, "NOT_FOUND")
            expectError(try await server.json("GET", path), 405, "UNIMPLEMENTED")
            #expect(try await server.eventCount() == before)
        }
    }

    @Test func aRouteIsChosenBeforeGuidanceAndFixedAfterIt() async throws {
        try await TestServer.with { server in
            try await Self.start(server)
            let alternative = Self.leg([Self.s, Self.p(52.5200, 13.4000), Self.c], meters: 895, seconds: 110, steps: [])
            let (planned, _) = try await server.json("POST", "\(Self.tripPath):planRoute", Self.planBody(routes: [[Self.legToPickup, Self.legToDropoff], [alternative, Self.legToDropoff]]))
            #expect(planned == 200)
            let path = "\(Self.tripPath):selectRoute"
            expectError(try await server.json("POST", path, #"{"routeIndex":2}"#), 400, "INVALID_ARGUMENT", containing: "routeIndex")
            expectError(try await server.json("POST", path, #"{}"#), 400, "INVALID_ARGUMENT", containing: "routeIndex")
            expectError(try await server.json("POST", path, #"{"routeIndex":1}"#, token: Self.driver(server, "v-2")), 403, "PERMISSION_DENIED")
            let (chosen, answer) = try await server.json("POST", path, #"{"routeIndex":1}"#, token: Self.driver(server))
            #expect(chosen == 200, "\(answer)")
            // The chosen route has no steps: the feed shows no current step, only the stop.
            let (_, feed) = try await Self.feed(server)
            #expect(feed["currentStep"] == nil)
            #expect(feed["nextStop"]?["distanceMeters"]?.int64Value == 895)
            // Guidance starts with the navigation app's report; the choice is then fixed.
            let (reported, reportAnswer) = try await server.json("POST", "\(Self.vehiclePath):reportRouteTokenExecution",
                #"{"routeStatus":"OK","routeTokenExecutionStatus":"TOKEN_SUCCESSFULLY_APPLIED","resolvedParameters":{"travelMode":"DRIVE","avoidTolls":true,"avoidVignettes":["CH"],"rerouteStrategy":{"timeToleranceSeconds":60}}}"#,
                token: Self.driver(server))
            #expect(reported == 200, "\(reportAnswer)")
            expectError(try await server.json("POST", path, #"{"routeIndex":0}"#), 400, "FAILED_PRECONDITION", containing: "guidance")
            expectError(try await server.json("POST", "/v1/providers/acme/trips/nope:selectRoute", #"{"routeIndex":0}"#), 404, "NOT_FOUND")
        }
    }

    @Test func tokenExecutionReportsAreValidatedAndNeedTheVehiclesDriver() async throws {
        try await TestServer.with { server in
            try await server.createVehicle("v-2")
            try await Self.start(server)
            let path = "\(Self.vehiclePath):reportRouteTokenExecution"
            let ok = #"{"routeStatus":"OK","routeTokenExecutionStatus":"TOKEN_SUCCESSFULLY_APPLIED"}"#
            let before = try await server.eventCount()
            expectError(try await server.json("POST", path, ok, token: Self.driver(server)), 400, "FAILED_PRECONDITION", containing: "route plan")
            _ = try await server.json("POST", "\(Self.tripPath):planRoute", Self.planBody())
            let planned = try await server.eventCount()
            #expect(planned > before)
            expectError(try await server.json("POST", path, ok), 403, "PERMISSION_DENIED")
            expectError(try await server.json("POST", path, ok, token: Self.driver(server, "v-2")), 403, "PERMISSION_DENIED")
            expectError(try await server.json("POST", path, #"{"routeStatus":"OK"}"#, token: Self.driver(server)), 400, "INVALID_ARGUMENT", containing: "routeTokenExecutionStatus")
            expectError(try await server.json("POST", path, #"{"routeStatus":"LOST","routeTokenExecutionStatus":"TOKEN_SUCCESSFULLY_APPLIED"}"#, token: Self.driver(server)), 400, "INVALID_ARGUMENT", containing: "routeStatus")
            let walk = #"{"routeTokenExecutionStatus":"TOKEN_SUCCESSFULLY_APPLIED","resolvedParameters":{"travelMode":"WALK"}}"#
            let walking = try await server.json("POST", path, walk, token: Self.driver(server))
            expectError(walking, 400, "INVALID_ARGUMENT")
            #expect(walking.1["error"]?["details"]?.arrayValue?.first?["reason"]?.stringValue == "TRAVEL_MODE_UNSUPPORTED")
            expectError(try await server.json("POST", path, #"{"routeTokenExecutionStatus":"TOKEN_SUCCESSFULLY_APPLIED","resolvedParameters":{"avoidVignettes":["swiss"]}}"#, token: Self.driver(server)), 400, "INVALID_ARGUMENT")
            expectError(try await server.json("POST", "/v1/providers/acme/vehicles/v-2:reportRouteTokenExecution", ok, token: Self.driver(server, "v-2")), 400, "FAILED_PRECONDITION", containing: "no current trip")
            expectError(try await server.json("POST", "/v1/providers/acme/vehicles/v-9:reportRouteTokenExecution", ok, token: Self.driver(server, "v-9")), 404, "NOT_FOUND")
            #expect(try await server.eventCount() == planned)
            let (status, answer) = try await server.json("POST", path, #"{"routeStatus":"NETWORK_ERROR","routeTokenExecutionStatus":"TOKEN_IGNORED_OTHER"}"#, token: Self.driver(server))
            #expect(status == 200, "\(answer)")
            // The Navigation SDK's route description, as the driver app has it: names nested, enums as the iOS SDK prints them.
            let sdk = #"{"routeStatus":"OK","routeTokenExecutionDetails":{"tokenExecutionStatus":"tokenSuccessfullyApplied","resolvedParameters":{"travelMode":"DRIVE","avoidFerries":true,"rerouteStrategy":"bestBasedOnTokenParameters"}}}"#
            let (sdkStatus, sdkAnswer) = try await server.json("POST", path, sdk, token: Self.driver(server))
            #expect(sdkStatus == 200, "\(sdkAnswer)")
            var execution: JSONValue?
            let audited = await waitFor(.seconds(20)) {
                execution = try await server.json("GET", "\(Self.tripPath)/routeAudit", token: server.token(.auditor)).1["routeTokenExecution"]
                return execution?["status"]?.stringValue == "TOKEN_SUCCESSFULLY_APPLIED"
            }
            #expect(audited, "\(execution ?? .null)")
            #expect(execution?["resolvedParameters"]?["rerouteStrategy"]?.stringValue == "BEST_BASED_ON_TOKEN_PARAMETERS", "\(execution ?? .null)")
            #expect(execution?["resolvedParameters"]?["avoidFerries"] == .bool(true), "\(execution ?? .null)")
        }
    }

    @Test func continueToNextDestinationNeedsAnArrivalFirst() async throws {
        try await TestServer.with { server in
            try await Self.start(server)
            _ = try await server.json("POST", "\(Self.tripPath):planRoute", Self.planBody())
            let path = "\(Self.vehiclePath):continueToNextDestination"
            let before = try await server.eventCount()
            expectError(try await server.json("POST", path, "{}", token: Self.driver(server)), 400, "FAILED_PRECONDITION", containing: "arrived")
            expectError(try await server.json("POST", path, "{}"), 403, "PERMISSION_DENIED")
            expectError(try await server.json("POST", path, #"{"x":1}"#, token: Self.driver(server)), 400, "INVALID_ARGUMENT")
            #expect(try await server.eventCount() == before)
            // The navigation app says it arrived: continuing records the arrival and heads for the dropoff.
            let (nav, navAnswer) = try await server.json("PUT", "\(Self.vehiclePath)?updateMask=navigationStatus", #"{"navigationStatus":"ARRIVED_AT_DESTINATION"}"#)
            #expect(nav == 200, "\(navAnswer)")
            let (status, trip) = try await server.json("POST", path, "{}", token: Self.driver(server))
            #expect(status == 200, "\(trip)")
            #expect(trip["tripStatus"]?.stringValue == "ENROUTE_TO_DROPOFF")
            let (_, vehicle) = try await server.json("GET", Self.vehiclePath)
            #expect(vehicle["navigationStatus"]?.stringValue == "ENROUTE_TO_DESTINATION")
            // Not arrived at the dropoff: a second continue is refused.
            expectError(try await server.json("POST", path, "{}", token: Self.driver(server)), 400, "FAILED_PRECONDITION")
            let (_, feed) = try await Self.feed(server)
            #expect(feed["nextStop"]?["waypointType"]?.stringValue == "DROP_OFF_WAYPOINT_TYPE")
            #expect(feed["messages"]?.arrayValue?.compactMap { $0["text"]?.stringValue }.suffix(2) == ["Arrived at pickup", "Rider picked up"])
        }
    }

    @Test func offersAreAcceptedDeclinedOrExpire() async throws {
        try await TestServer.with { server in
            try await server.createVehicle("v-1")
            for trip in ["t-1", "t-2", "t-3"] { try await server.createTrip(trip) }
            let offer = "\(Self.vehiclePath):offerTrip"
            let (offered, answer) = try await server.json("POST", offer, #"{"tripId":"t-1","ttlSeconds":60}"#)
            #expect(offered == 200, "\(answer)")
            #expect(answer["tripId"]?.stringValue == "t-1")
            var (_, feed) = try await Self.feed(server)
            #expect(feed["offers"]?.arrayValue?.compactMap { $0["tripId"]?.stringValue } == ["t-1"])
            // Accepted: the trip is assigned to the vehicle.
            let (accepted, trip) = try await server.json("POST", "\(Self.vehiclePath):acceptOffer", #"{"tripId":"t-1"}"#, token: Self.driver(server))
            #expect(accepted == 200, "\(trip)")
            #expect(trip["vehicleId"]?.stringValue == "v-1")
            // Declined: nothing assigned.
            _ = try await server.json("POST", offer, #"{"tripId":"t-2","ttlSeconds":60}"#)
            let (declined, empty) = try await server.json("POST", "\(Self.vehiclePath):declineOffer", #"{"tripId":"t-2"}"#, token: Self.driver(server))
            #expect(declined == 200 && empty == .object(JSONObject()), "\(empty)")
            let (_, t2) = try await server.json("GET", "/v1/providers/acme/trips/t-2")
            #expect(t2["vehicleId"] == nil)
            // Expired: refused, and no longer shown. The offer expires by the clock, so real time has to
            // pass: the sleep runs to just past its expiry (3 s ahead, so a slow offer is still in time).
            let expiry = Date().addingTimeInterval(3)
            let (offeredLate, late) = try await server.json("POST", offer, #"{"tripId":"t-3","expireTime":"\#(Timestamp(expiry).rfc3339)"}"#)
            #expect(offeredLate == 200, "\(late)")
            try await Task.sleep(for: .seconds(max(0, expiry.timeIntervalSinceNow) + 0.25))
            let before = try await server.eventCount()
            expectError(try await server.json("POST", "\(Self.vehiclePath):acceptOffer", #"{"tripId":"t-3"}"#, token: Self.driver(server)), 400, "FAILED_PRECONDITION", containing: "expired")
            #expect(try await server.eventCount() == before)
            (_, feed) = try await Self.feed(server)
            #expect(feed["offers"]?.arrayValue?.isEmpty == true)
            #expect(feed["messages"]?.arrayValue?.compactMap { $0["text"]?.stringValue }.contains("Offer accepted") == true)
        }
    }

    @Test func offerEndpointsRejectBadRequestsWithNothingWritten() async throws {
        try await TestServer.with { server in
            try await Self.start(server)
            try await server.createTrip("t-2")
            let before = try await server.eventCount()
            let offer = "\(Self.vehiclePath):offerTrip"
            expectError(try await server.json("POST", offer, #"{"tripId":"t-2","ttlSeconds":60}"#, token: Self.driver(server)), 403, "PERMISSION_DENIED")
            expectError(try await server.json("POST", offer, #"{"tripId":"t-1","ttlSeconds":60}"#), 400, "FAILED_PRECONDITION", containing: "already assigned")
            expectError(try await server.json("POST", offer, #"{"tripId":"t-9","ttlSeconds":60}"#), 404, "NOT_FOUND")
            expectError(try await server.json("POST", offer, #"{"ttlSeconds":60}"#), 400, "INVALID_ARGUMENT", containing: "tripId")
            expectError(try await server.json("POST", offer, #"{"tripId":"t-2"}"#), 400, "INVALID_ARGUMENT", containing: "expireTime")
            expectError(try await server.json("POST", offer, #"{"tripId":"t-2","ttlSeconds":0}"#), 400, "INVALID_ARGUMENT")
            expectError(try await server.json("POST", offer, #"{"tripId":"t-2","expireTime":"2020-01-01T00:00:00Z"}"#), 400, "INVALID_ARGUMENT", containing: "future")
            expectError(try await server.json("POST", "/v1/providers/acme/vehicles/v-9:offerTrip", #"{"tripId":"t-2","ttlSeconds":60}"#), 404, "NOT_FOUND")
            expectError(try await server.json("POST", "\(Self.vehiclePath):acceptOffer", #"{"tripId":"t-2"}"#, token: Self.driver(server)), 404, "NOT_FOUND")
            expectError(try await server.json("POST", "\(Self.vehiclePath):acceptOffer", #"{"tripId":"t-2"}"#), 403, "PERMISSION_DENIED")
            expectError(try await server.json("POST", "\(Self.vehiclePath):declineOffer", #"{"tripId":"t-2"}"#, token: Self.driver(server, "v-2")), 403, "PERMISSION_DENIED")
            expectError(try await server.json("POST", "\(Self.vehiclePath):declineOffer", "[]", token: Self.driver(server)), 400, "INVALID_ARGUMENT")
            #expect(try await server.eventCount() == before)
        }
    }

    @Test func theFeedIsReadByItsDriverOrTheServerAndStreamsChanges() async throws {
        try await TestServer.with { server in
            try await Self.start(server)
            _ = try await server.json("POST", "\(Self.tripPath):planRoute", Self.planBody())
            expectError(try await Self.feed(server, token: Self.driver(server, "v-2")), 403, "PERMISSION_DENIED")
            expectError(try await Self.feed(server, token: server.token(.consumer, trip: "t-1")), 403, "PERMISSION_DENIED")
            expectError(try await server.json("GET", "/v1/providers/acme/vehicles/v-9/driverFeed"), 404, "NOT_FOUND")
            expectError(try await server.json("POST", "\(Self.vehiclePath)/driverFeed"), 405, "UNIMPLEMENTED")
            let (status, feed) = try await Self.feed(server, token: server.server)
            #expect(status == 200)

            let stream = try await server.openStream("\(Self.vehiclePath)/driverFeed:stream", token: Self.driver(server))
            defer { stream.close() }
            #expect(stream.status == 200)
            #expect(stream.headers["content-type"]?.hasPrefix("text/event-stream") == true)
            let first = try #require(try await stream.nextEventAsync())
            #expect(first.event == "feed")
            let opened = try JSONValue.parse(Array(first.data.utf8))
            #expect(first.id == String(opened["version"]?.int64Value ?? -1))
            #expect(opened["version"]?.int64Value ?? 0 >= feed["version"]?.int64Value ?? 0)
            try await Self.report(server, Self.p(52.5150, 13.4010))
            while true {
                let event = try #require(try await stream.nextEventAsync())
                let next = try JSONValue.parse(Array(event.data.utf8))
                #expect((next["version"]?.int64Value ?? 0) > (opened["version"]?.int64Value ?? 0))
                if next["currentStep"]?["distanceMeters"]?.int64Value == 272 { break }
            }
        }
    }

    @Test func everyDriverEndpointRejectsMalformedBodiesForeignTokensAndUnknownResourcesWithNothingWritten() async throws {
        try await TestServer.with { server in
            try await Self.start(server)
            try await server.createTrip("t-2")
            let driver = Self.driver(server)
            // (path, a valid body, the role that may call it)
            let endpoints: [(String, String, String)] = [
                ("\(Self.tripPath):planRoute", Self.planBody(), server.server),
                ("\(Self.tripPath):selectRoute", #"{"routeIndex":0}"#, server.server),
                ("\(Self.vehiclePath):reportRouteTokenExecution", #"{"routeTokenExecutionStatus":"TOKEN_SUCCESSFULLY_APPLIED"}"#, driver),
                ("\(Self.vehiclePath):continueToNextDestination", "{}", driver),
                ("\(Self.vehiclePath):offerTrip", #"{"tripId":"t-2","ttlSeconds":60}"#, server.server),
                ("\(Self.vehiclePath):acceptOffer", #"{"tripId":"t-2"}"#, driver),
                ("\(Self.vehiclePath):declineOffer", #"{"tripId":"t-2"}"#, driver),
            ]
            let before = try await server.eventCount()
            for (path, body, token) in endpoints {
                expectError(try await server.json("POST", path, "{\"tripId\":", token: token), 400, "INVALID_ARGUMENT", containing: "JSON")
                expectError(try await server.json("POST", path, #"{"unknownField":true}"#, token: token), 400, "INVALID_ARGUMENT")
                let text = try await server.request("POST", path, body: body, token: token, contentType: "text/plain")
                #expect(text.status == 415, "\(path): \(text.status) \(text.text)")
                expectError(try await server.json("POST", path, body, token: server.token(.consumer, trip: "t-1")), 403, "PERMISSION_DENIED")
                expectError(try await server.json("POST", path, body, token: server.token(.auditor)), 403, "PERMISSION_DENIED")
                expectError(try await server.json("POST", path, body, token: server.token(.server, provider: "other")), 403, "PERMISSION_DENIED")
                let unauthenticated = try await server.request("POST", path, body: body, token: nil)
                #expect(unauthenticated.status == 401, "\(path): \(unauthenticated.status)")
                let unknown = path.replacingOccurrences(of: "/trips/t-1:", with: "/trips/t-404:").replacingOccurrences(of: "/vehicles/v-1:", with: "/vehicles/v-404:")
                let unknownToken = token == driver ? Self.driver(server, "v-404") : token
                expectError(try await server.json("POST", unknown, body, token: unknownToken), 404, "NOT_FOUND")
            }
            #expect(try await server.eventCount() == before)
        }
    }
}
