import Geo
import JSON
import Journey
import ReadModels
import Testing

/// The driver feed: a scripted drive along a planned route with steps, re-planning after leaving
/// it, order messages, offers, and rebuilds.
@Suite struct DriverFeedProjectionTests {
    static let key = "providers/acme/vehicles/v-1"
    static func p(_ lat: Double, _ lng: Double) -> LatLng { LatLng(uncheckedLatitude: lat, longitude: lng) }
    /// v-1 starts at S; the road goes east to B, then north to C, where the pickup lies on the right.
    static let s = FleetScenario.start  // 52.5150, 13.4000
    static let b = p(52.5150, 13.4050)
    static let c = p(52.5200, 13.4050)
    static let pickup = TerminalLocation(point: p(52.5200, 13.4053))
    static let d = p(52.5300, 13.4050)
    static let dropoff = TerminalLocation(point: p(52.5300, 13.4047))

    static func step(_ maneuver: Maneuver, _ text: String, _ from: LatLng, _ to: LatLng, meters: Int, seconds: Int, lanes: Bool? = nil) -> RoutePlan.Step {
        RoutePlan.Step(maneuver: maneuver, instruction: text, distanceMeters: meters, durationSeconds: seconds,
                       encodedPolyline: Polyline.encode([from, to]), start: from, end: to, lanes: lanes)
    }

    static let plan = RoutePlan(
        destinations: [.init(point: pickup.point), .init(point: dropoff.point)],
        legs: [
            RoutePlan.Leg(encodedPolyline: Polyline.encode([s, b, c]), distanceMeters: 900, durationSeconds: 100, steps: [
                step(.depart, "Head east on Main Street", s, b, meters: 340, seconds: 40),
                step(.turnLeft, "Turn left onto Oak Street", b, c, meters: 560, seconds: 60, lanes: true),
            ]),
            RoutePlan.Leg(encodedPolyline: Polyline.encode([c, d]), distanceMeters: 1110, durationSeconds: 120, steps: [
                step(.depart, "Continue north on Oak Street", c, d, meters: 1110, seconds: 120),
            ]),
        ],
        routeToken: "token-1")

    /// v-1 at S with trip t-1 (pickup, one intermediate stop when asked, dropoff) assigned, planned and en route to the pickup.
    static func enroute(intermediates: [TerminalLocation] = []) throws -> FleetScenario {
        var sc = try FleetScenario.withVehicle()
        try sc.trip("t-1", .createTrip(.init(tripId: "t-1", tripType: .exclusive, pickup: pickup, dropoff: dropoff,
                                             intermediateDestinations: intermediates), at: FleetScenario.t(10)), at: 10)
        try sc.trip("t-1", .assignVehicle(vehicleId: "v-1", vehicle: sc.vehicles["v-1"], at: FleetScenario.t(20)), at: 20)
        if intermediates.isEmpty { try sc.trip("t-1", .planRoute(plan, at: FleetScenario.t(21)), at: 21) }
        try sc.trip("t-1", .updateTripStatus(.enrouteToPickup, at: FleetScenario.t(22)), at: 22)
        return sc
    }

    static func feed(_ sc: FleetScenario) -> JSONValue {
        var store = ProjectionStore<DriverFeedProjection>()
        store.apply(sc.envelopes)
        return store.document(DriverFeedProjection.feedsCollection, key) ?? .null
    }

    /// `[maneuver, instruction, distanceMeters, rounded value, unit, minutes]` of a step or stop.
    static func shown(_ value: JSONValue?) -> [String] {
        guard let value else { return [] }
        return [value["maneuver"]?.stringValue ?? "-", value["instruction"]?.stringValue ?? "-",
                String(value["distanceMeters"]?.int64Value ?? -1),
                value["rounded"]?["distance"]?["value"].map { $0.compactString } ?? "-",
                value["rounded"]?["distance"]?["unit"]?.stringValue ?? "-", String(value["rounded"]?["minutes"]?.int64Value ?? -1)]
    }

    @Test func aScriptedDriveShowsTheNextManeuverWithRoundedDistancesAtEachReport() throws {
        var sc = try Self.enroute()
        // 1. 68 m into "Head east": the next maneuver is the left turn, 272 m ahead.
        try sc.report("v-1", Self.p(52.5150, 13.4010), at: 30)
        var feed = Self.feed(sc)
        #expect(feed["vehicle"]?.stringValue == Self.key)
        #expect(feed["tripId"]?.stringValue == "t-1")
        #expect(Self.shown(feed["currentStep"]) == ["TURN_LEFT", "Turn left onto Oak Street", "272", "250", "m", "1"])
        #expect(feed["currentStep"]?["lanes"]?.boolValue == true)
        #expect(feed["currentStep"]?["durationSeconds"]?.int64Value == 32)
        #expect(Self.shown(feed["nextStep"]) == ["DESTINATION_RIGHT", "Your destination is on your right", "0", "0", "m", "0"])
        #expect(Self.shown(feed["nextStop"]).suffix(4) == ["832", "850", "m", "2"])
        #expect(feed["nextStop"]?["waypointType"]?.stringValue == "PICKUP_WAYPOINT_TYPE")
        #expect(Self.shown(feed["tripRemaining"]).suffix(4) == ["1942", "1.9", "km", "4"])
        let firstVersion = feed["version"]?.int64Value ?? 0

        // 2. 34 m before the turn: "30 m", and never "0 min" while moving.
        try sc.report("v-1", Self.p(52.5150, 13.4045), at: 40)
        feed = Self.feed(sc)
        #expect(Self.shown(feed["currentStep"]) == ["TURN_LEFT", "Turn left onto Oak Street", "34", "30", "m", "1"])
        #expect((feed["version"]?.int64Value ?? 0) > firstVersion)

        // 3. On Oak Street, 60 % along: the destination is next, on the right.
        try sc.report("v-1", Self.p(52.5180, 13.4050), at: 80)
        feed = Self.feed(sc)
        #expect(Self.shown(feed["currentStep"]) == ["DESTINATION_RIGHT", "Your destination is on your right", "224", "200", "m", "1"])
        #expect(feed["nextStep"] == nil)
        #expect(Self.shown(feed["tripRemaining"]).suffix(4) == ["1334", "1.3", "km", "2"])
    }

    @Test func leavingTheRouteThenANewPlanShowsTheNewPlansSteps() throws {
        var sc = try Self.enroute()
        try sc.vehicle("v-1", .followRoute(tripId: "t-1", encodedPath: Self.plan.legs[0].encodedPolyline, at: FleetScenario.t(23)), at: 23)
        // Off route: 700 m east of the planned road; the feed still measures against the plan.
        let off = Self.p(52.5150, 13.4150)
        for (i, second) in [30.0, 35, 40].enumerated() { try sc.report("v-1", Self.p(52.5150 + Double(i) / 10_000, 13.4150), at: second) }
        #expect(sc.vehicles["v-1"]?.isOffRoute == true)
        // Rerouted: a new plan from where the car is.
        var replanned = Self.plan
        replanned.legs[0] = RoutePlan.Leg(encodedPolyline: Polyline.encode([off, Self.p(52.5200, 13.4150), Self.c]), distanceMeters: 1230, durationSeconds: 150, steps: [
            Self.step(.depart, "Head north on Elm Street", off, Self.p(52.5200, 13.4150), meters: 556, seconds: 70),
            Self.step(.turnLeft, "Turn left onto Birch Road", Self.p(52.5200, 13.4150), Self.c, meters: 680, seconds: 80),
        ])
        replanned.routeToken = "token-2"
        try sc.trip("t-1", .planRoute(replanned, at: FleetScenario.t(45)), at: 45)
        try sc.report("v-1", Self.p(52.5175, 13.4150), at: 50)
        let feed = Self.feed(sc)
        #expect(Self.shown(feed["currentStep"]) == ["TURN_LEFT", "Turn left onto Birch Road", "278", "300", "m", "1"])
        // Travelling west on Birch Road, the pickup (east of C... north of it) lies ahead-right of the road's end.
        #expect(feed["nextStep"]?["maneuver"]?.stringValue?.hasPrefix("DESTINATION") == true)
    }

    @Test func orderStatusChangesBecomeMessages() throws {
        var sc = try Self.enroute(intermediates: [TerminalLocation(point: Self.d)])
        try sc.trip("t-1", .updateTripStatus(.arrivedAtPickup, at: FleetScenario.t(60)), at: 60)
        try sc.trip("t-1", .continueToNextDestination(at: FleetScenario.t(70)), at: 70)
        try sc.trip("t-1", .updateTripStatus(.arrivedAtIntermediateDestination, intermediateDestinationIndex: 0, at: FleetScenario.t(170)), at: 170)
        try sc.trip("t-1", .cancelTrip(at: FleetScenario.t(180)), at: 180)
        let texts = Self.feed(sc)["messages"]?.arrayValue?.compactMap { $0["text"]?.stringValue }
        #expect(texts == ["New trip assigned", "Arrived at pickup", "Rider picked up", "Stop 2 of 3 reached", "Trip canceled"])
        // A canceled trip shows no guidance.
        #expect(Self.feed(sc)["currentStep"] == nil)
    }

    @Test func afterContinuingTheFeedGuidesAlongTheNextLeg() throws {
        var sc = try Self.enroute()
        try sc.report("v-1", Self.c, at: 50)
        try sc.trip("t-1", .updateTripStatus(.arrivedAtPickup, at: FleetScenario.t(60)), at: 60)
        var feed = Self.feed(sc)
        #expect(Self.shown(feed["nextStop"]).suffix(4) == ["0", "0", "m", "0"])
        try sc.trip("t-1", .continueToNextDestination(at: FleetScenario.t(70)), at: 70)
        try sc.report("v-1", Self.p(52.5250, 13.4050), at: 100)
        feed = Self.feed(sc)
        #expect(feed["nextStop"]?["waypointType"]?.stringValue == "DROP_OFF_WAYPOINT_TYPE")
        #expect(feed["nextStop"]?["destinationIndex"]?.int64Value == 1)
        #expect(Self.shown(feed["currentStep"]) == ["DESTINATION_LEFT", "Your destination is on your left", "555", "550", "m", "1"])
    }

    @Test func offersAppearWithTheirExpiryAndLeaveWhenAnswered() throws {
        var sc = try FleetScenario.withVehicle()
        try sc.trip("t-9", .createTrip(.init(tripId: "t-9", tripType: .exclusive, pickup: Self.pickup), at: FleetScenario.t(10)), at: 10)
        try sc.vehicle("v-1", .offerTrip(tripId: "t-9", trip: sc.trips["t-9"], expiresAt: FleetScenario.t(70), at: FleetScenario.t(11)), at: 11)
        var feed = Self.feed(sc)
        #expect(feed["offers"]?.arrayValue?.map { $0["tripId"]?.stringValue } == ["t-9"])
        #expect(feed["offers"]?.arrayValue?.first?["expireTime"]?.stringValue == FleetScenario.t(70).rfc3339)
        try sc.vehicle("v-1", .answerOffer(tripId: "t-9", accept: false, at: FleetScenario.t(12)), at: 12)
        feed = Self.feed(sc)
        #expect(feed["offers"]?.arrayValue?.isEmpty == true)
        #expect(feed["messages"]?.arrayValue?.compactMap { $0["text"]?.stringValue } == ["New trip offer", "Offer declined"])
    }

    @Test func aRebuildInOneBatchEqualsTheLiveModelBuiltInBatchesWithRestarts() throws {
        var sc = try Self.enroute()
        try sc.report("v-1", Self.p(52.5150, 13.4010), at: 30)
        try sc.trip("t-1", .updateTripStatus(.arrivedAtPickup, at: FleetScenario.t(60)), at: 60)
        try sc.trip("t-1", .continueToNextDestination(at: FleetScenario.t(70)), at: 70)
        try sc.report("v-1", Self.p(52.5250, 13.4050), at: 100)
        var rebuilt = ProjectionStore<DriverFeedProjection>()
        rebuilt.apply(sc.envelopes)
        var live = ProjectionStore<DriverFeedProjection>()
        for chunk in stride(from: 0, to: sc.envelopes.count, by: 3) {
            live.apply(sc.envelopes[chunk..<min(chunk + 3, sc.envelopes.count)])
            var restarted = DriverFeedProjection()
            restarted.load(live.stored)
            #expect(restarted == live.projection)
            live.projection = restarted
        }
        #expect(live.documents == rebuilt.documents)
        #expect(rebuilt.document(DriverFeedProjection.feedsCollection, Self.key)?["currentStep"] != nil)
    }
}

extension DriverFeedProjectionTests {
    @Test func locationReportsOfAVehicleWithoutAPlannedTripWriteNothing() throws {
        var sc = try FleetScenario.withVehicle()
        var store = ProjectionStore<DriverFeedProjection>()
        store.apply(sc.envelopes)
        let before = store.document(DriverFeedProjection.feedsCollection, Self.key)
        try sc.report("v-1", Self.p(52.5151, 13.4001), at: 5)
        try sc.report("v-1", Self.p(52.5152, 13.4002), at: 6)
        store.apply(sc.envelopes.suffix(2))
        #expect(store.lastBatch.isEmpty)
        #expect(store.document(DriverFeedProjection.feedsCollection, Self.key) == before)
    }
}

extension DriverFeedProjectionTests {
    @Test func batchesEndingAtEverySplitPointGiveTheDocumentsOfOneBatch() throws {
        var sc = try Self.enroute()
        try sc.report("v-1", Self.p(52.5150, 13.4010), at: 30)
        try sc.trip("t-1", .updateTripStatus(.arrivedAtPickup, at: FleetScenario.t(60)), at: 60)
        try sc.trip("t-1", .continueToNextDestination(at: FleetScenario.t(70)), at: 70)
        try sc.report("v-1", Self.p(52.5250, 13.4050), at: 100)
        try sc.trip("t-1", .updateTripStatus(.complete, at: FleetScenario.t(200)), at: 200)
        try sc.trip("t-1", .deleteTrip(at: FleetScenario.t(210)), at: 210)
        try sc.trip("t-9", .createTrip(.init(tripId: "t-9", tripType: .exclusive, pickup: Self.pickup), at: FleetScenario.t(220)), at: 220)
        try sc.vehicle("v-1", .offerTrip(tripId: "t-9", trip: sc.trips["t-9"], expiresAt: FleetScenario.t(300), at: FleetScenario.t(221)), at: 221)
        var whole = ProjectionStore<DriverFeedProjection>()
        whole.apply(sc.envelopes)
        for split in 0...sc.envelopes.count {
            var live = ProjectionStore<DriverFeedProjection>()
            live.apply(sc.envelopes.prefix(split))
            var restarted = DriverFeedProjection()
            restarted.load(live.stored)
            live.projection = restarted
            live.apply(sc.envelopes.dropFirst(split))
            #expect(live.documents == whole.documents, "split at \(split)")
        }
        // The deleted trip is gone from the feed, the offer is shown.
        let feed = whole.document(DriverFeedProjection.feedsCollection, Self.key)
        #expect(feed?["tripId"] == nil)
        #expect(feed?["offers"]?.arrayValue?.count == 1)
    }
}
