import Geo
import JSON
import Journey
import ReadModels
import Testing

/// Scripted journeys, each step's view asserted as exact JSON (or exact selected fields).
///
/// Places: the depot, pickup, two intermediate stops and the dropoff lie on latitude 52.52,
/// 0.01° of longitude (677 m) apart; a second rider's stops lie on 52.53. Plans take 60 s per leg.
@Suite("Journey view golden journeys")
struct JourneyViewGoldenTests {
    typealias F = JourneyViewFixtures

    /// Expects the trip's view to be exactly `expected` (compact JSON).
    private func expectView(
        _ world: JourneyViewWorld, _ tripId: String, _ expected: KeyPath<Golden, String>, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let actual = world.text(tripId)
        if actual != Golden()[keyPath: expected] { print("GOLDEN-ACTUAL \(expected) \(actual)") }
        #expect(actual == Golden()[keyPath: expected], sourceLocation: sourceLocation)
    }

    @Test func exclusiveTripWithTwoIntermediateStopsShowsEachStepExactly() throws {
        var w = JourneyViewWorld()
        try w.register("v-1", at: F.t(0))
        try w.locate("v-1", F.depot, at: F.t(1))

        // Created: stops visible, no vehicle, no ETAs.
        try w.create("t-1", intermediates: [F.stop0, F.stop1], at: F.t(2))
        expectView(w, "t-1", \.exclusiveCreated)

        // Planned: the remaining route (pickup → dropoff) appears from the plan.
        try w.plan("t-1", F.plan(from: F.depot, through: [F.pickup, F.stop0, F.stop1, F.dropoff]), at: F.t(3))
        try w.assign("t-1", to: "v-1", at: F.t(4))
        try w.status("t-1", .enrouteToPickup, at: F.t(5))
        try w.segment("v-1", F.path(F.depot, F.pickup), traffic: [.init(startIndex: 1, endIndex: 3, speed: .slow)], at: F.t(6))
        try w.remaining("v-1", meters: 677, eta: F.t(100), at: F.t(6))
        expectView(w, "t-1", \.exclusiveEnrouteToPickup)

        // Arrived at the pickup: it is reached (distance 0, no ETA); later stops from the plan.
        try w.locate("v-1", F.pickup, at: F.t(90))
        try w.status("t-1", .arrivedAtPickup, at: F.t(95))
        expectView(w, "t-1", \.exclusiveArrivedAtPickup)

        // Heading for stop 0: the pickup is passed and hidden.
        try w.status("t-1", .enrouteToIntermediateDestination, index: 0, at: F.t(100))
        try w.segment("v-1", F.path(F.pickup, F.stop0), at: F.t(101))
        try w.remaining("v-1", meters: 677, eta: F.t(160), at: F.t(101))
        expectView(w, "t-1", \.exclusiveEnrouteToStop0)

        // Stop 1, then the dropoff: passed stops hide one by one.
        try w.locate("v-1", F.stop0, at: F.t(160))
        try w.status("t-1", .arrivedAtIntermediateDestination, index: 0, at: F.t(161))
        try w.status("t-1", .enrouteToIntermediateDestination, index: 1, at: F.t(170))
        let atStop1 = try #require(w.view("t-1"))
        #expect(atStop1.viewMarker("INTERMEDIATE_DESTINATION", index: 0)?["visible"] == false)
        #expect(atStop1.viewMarker("INTERMEDIATE_DESTINATION", index: 1)?["visible"] == true)
        #expect(atStop1[viewPath: "nextStop.type"] == "INTERMEDIATE_DESTINATION")
        #expect(atStop1[viewPath: "nextStop.index"] == 1)

        try w.locate("v-1", F.stop1, at: F.t(230))
        try w.status("t-1", .arrivedAtIntermediateDestination, index: 1, at: F.t(231))
        try w.status("t-1", .enrouteToDropoff, at: F.t(240))
        try w.segment("v-1", F.path(F.stop1, F.dropoff), at: F.t(241))
        try w.remaining("v-1", meters: 677, eta: F.t(300), at: F.t(241))
        expectView(w, "t-1", \.exclusiveEnrouteToDropoff)

        // Complete: every stop hidden, the vehicle and its route frozen and hidden.
        try w.locate("v-1", F.dropoff, at: F.t(300))
        try w.status("t-1", .complete, at: F.t(301))
        expectView(w, "t-1", \.exclusiveComplete)
    }

    @Test func sharedTripRiderSeesOnlyOwnStopsAndNoOtherTripId() throws {
        var w = JourneyViewWorld()
        try w.register("v-1", types: [.shared], at: F.t(0))
        try w.locate("v-1", F.depot, at: F.t(1))
        try w.create("t-a", type: .shared, at: F.t(2))
        try w.create("t-b", type: .shared, pickup: F.otherPickup, dropoff: F.otherDropoff, at: F.t(3))
        // Rider A's plan passes rider B's pickup; rider B's plan passes A's pickup and dropoff.
        try w.plan("t-a", F.plan(from: F.depot, through: [F.pickup, F.otherPickup, F.dropoff]), at: F.t(4))
        try w.plan("t-b", F.plan(from: F.depot, through: [F.pickup, F.otherPickup, F.dropoff, F.otherDropoff]), at: F.t(4))
        try w.assign("t-a", to: "v-1", at: F.t(5))
        try w.assign("t-b", to: "v-1", at: F.t(6))
        // Pool order: A pickup, B pickup, A dropoff, B dropoff.
        let waypoints = try #require(w.vehicles["v-1"]?.waypoints)
        try w.vehicle("v-1", .reorderWaypoints([waypoints[0], waypoints[2], waypoints[1], waypoints[3]], at: F.t(7)), at: F.t(7))
        try w.status("t-a", .enrouteToPickup, at: F.t(8))
        try w.status("t-b", .enrouteToPickup, at: F.t(8))
        try w.segment("v-1", F.path(F.depot, F.pickup), at: F.t(9))
        try w.remaining("v-1", meters: 677, eta: F.t(70), at: F.t(9))
        expectView(w, "t-a", \.sharedRiderAEnroute)
        expectView(w, "t-b", \.sharedRiderBEnroute)

        // A is picked up; the vehicle heads for B's pickup first: A's next stop is its dropoff,
        // reached through B's pickup, which A's view shows only as a point of its route.
        try w.locate("v-1", F.pickup, at: F.t(70))
        try w.status("t-a", .arrivedAtPickup, at: F.t(71))
        try w.status("t-a", .enrouteToDropoff, at: F.t(80))
        let pool = try #require(w.vehicles["v-1"]?.waypoints)
        try w.vehicle("v-1", .reorderWaypoints([pool[1], pool[0], pool[2]], at: F.t(80)), at: F.t(80))
        try w.segment("v-1", F.path(F.pickup, F.otherPickup), at: F.t(81))
        try w.remaining("v-1", meters: 1350, eta: F.t(150), at: F.t(81))
        expectView(w, "t-a", \.sharedRiderAViaOtherPickup)

        for trip in ["t-a", "t-b"] {
            let other = trip == "t-a" ? "t-b" : "t-a"
            let text = w.text(trip)
            #expect(!text.contains(other))
            #expect(!text.contains("v-1"))
            let markers = try #require(w.view(trip)?["markers"]?.arrayValue)
            #expect(markers.count == 3)
            let ownStops: Set<JSONValue> = trip == "t-a"
                ? [position(F.pickup), position(F.dropoff)] : [position(F.otherPickup), position(F.otherDropoff)]
            for marker in markers where marker["type"] != "TRIP_VEHICLE" {
                #expect(ownStops.contains(try #require(marker["position"])))
            }
        }
    }

    @Test func backToBackNextRiderSeesVehicleFinishingPreviousTripAnonymously() throws {
        var w = JourneyViewWorld()
        try w.register("v-1", backToBack: true, at: F.t(0))
        try w.locate("v-1", F.pickup, at: F.t(1))
        try w.create("t-1", pickup: F.pickup, dropoff: F.stop0, at: F.t(2))
        try w.assign("t-1", to: "v-1", at: F.t(3))
        try w.status("t-1", .enrouteToPickup, at: F.t(4))
        try w.status("t-1", .arrivedAtPickup, at: F.t(5))
        try w.status("t-1", .enrouteToDropoff, at: F.t(6))
        try w.segment("v-1", F.path(F.pickup, F.stop0), at: F.t(7))
        try w.remaining("v-1", meters: 677, eta: F.t(67), at: F.t(7))

        // t-2 is matched back to back: its pickup comes after t-1's dropoff.
        try w.create("t-2", pickup: F.stop1, dropoff: F.dropoff, at: F.t(10))
        try w.plan("t-2", F.plan(from: F.stop0, through: [F.stop1, F.dropoff]), at: F.t(11))
        try w.assign("t-2", to: "v-1", at: F.t(12))
        expectView(w, "t-2", \.backToBackSecondWhileFirstRuns)
        #expect(!w.text("t-2").contains("t-1"))

        // t-1 completes: its view freezes; t-2's active route now leads to its own pickup.
        try w.locate("v-1", F.stop0, at: F.t(60))
        try w.status("t-1", .complete, at: F.t(61))
        let frozen = w.text("t-1")
        try w.status("t-2", .enrouteToPickup, at: F.t(62))
        try w.segment("v-1", F.path(F.stop0, F.stop1), at: F.t(63))
        try w.remaining("v-1", meters: 677, eta: F.t(123), at: F.t(63))
        try w.locate("v-1", F.point(52.52, 13.425), at: F.t(90))
        #expect(w.text("t-1") == frozen)
        expectView(w, "t-2", \.backToBackSecondAfterFirst)
    }

    @Test func cancellationMidRouteHidesEverythingAndFreezesTheView() throws {
        var w = JourneyViewWorld()
        try w.register("v-1", at: F.t(0))
        try w.locate("v-1", F.depot, at: F.t(1))
        try w.create("t-1", at: F.t(2))
        try w.assign("t-1", to: "v-1", at: F.t(3))
        try w.status("t-1", .enrouteToPickup, at: F.t(4))
        try w.segment("v-1", F.path(F.depot, F.pickup), at: F.t(5))
        try w.locate("v-1", F.point(52.52, 13.405), at: F.t(30))

        try w.trip("t-1", .cancelTrip(at: F.t(31)), at: F.t(31))
        expectView(w, "t-1", \.canceledMidRoute)

        // The vehicle drives on; the canceled rider sees none of it.
        try w.locate("v-1", F.pickup, at: F.t(60))
        try w.segment("v-1", F.path(F.pickup, F.dropoff), at: F.t(61))
        expectView(w, "t-1", \.canceledMidRoute)
    }

    @Test func offRouteKeepsTheLastOnRouteTrimAndRerouteReplacesTheActiveRoute() throws {
        var w = JourneyViewWorld()
        try w.register("v-1", at: F.t(0))
        try w.locate("v-1", F.depot, at: F.t(1))
        try w.create("t-1", at: F.t(2))
        try w.assign("t-1", to: "v-1", at: F.t(3))
        try w.status("t-1", .enrouteToPickup, at: F.t(4))
        let planned = F.path(F.depot, F.pickup)
        try w.vehicle("v-1", .followRoute(tripId: "t-1", encodedPath: planned, at: F.t(5)), at: F.t(5))
        try w.segment("v-1", planned, at: F.t(5))
        try w.locate("v-1", F.point(52.52, 13.4025), at: F.t(20))
        let onRoute = try #require(w.view("t-1")?.viewPolyline("ACTIVE_ROUTE")?["encodedPath"])

        // Three reports 220 m north of the route: off route; the active route stays as it was.
        for (i, lng) in [13.403, 13.404, 13.405].enumerated() {
            try w.locate("v-1", F.point(52.522, lng), at: F.t(30 + 10 * Double(i)))
        }
        #expect(w.log.contains { if case .vehicle(_, _, .wentOffRoute) = $0.event { true } else { false } })
        #expect(w.view("t-1")?.viewPolyline("ACTIVE_ROUTE")?["encodedPath"] == onRoute)
        #expect(w.view("t-1")?.viewMarker("TRIP_VEHICLE")?[viewPath: "position.latitude"] == 52.522)

        // The driver's new segment from where it is: rerouted, and the active route follows it.
        try w.segment("v-1", F.path(F.point(52.522, 13.405), F.point(52.522, 13.41), F.pickup), at: F.t(51))
        #expect(w.log.contains { if case .vehicle(_, _, .rerouted) = $0.event { true } else { false } })
        expectView(w, "t-1", \.rerouted)
    }

    private func position(_ point: LatLng) -> JSONValue {
        .object(JSONObject([("latitude", .number(JSONNumber(point.latitude)!)), ("longitude", .number(JSONNumber(point.longitude)!))]))
    }
}

/// The expected views, compact JSON.
private struct Golden {
    let exclusiveCreated = #"{"name":"providers/acme/trips/t-1","version":1,"tripStatus":"NEW","updateTime":"2026-03-01T08:00:02.000000Z","markers":[{"type":"TRIP_PICKUP_POINT","position":{"latitude":52.52,"longitude":13.41},"visible":true,"eta":null,"remainingDistanceMeters":null},{"type":"INTERMEDIATE_DESTINATION","index":0,"position":{"latitude":52.52,"longitude":13.42},"visible":true,"eta":null,"remainingDistanceMeters":null},{"type":"INTERMEDIATE_DESTINATION","index":1,"position":{"latitude":52.52,"longitude":13.43},"visible":true,"eta":null,"remainingDistanceMeters":null},{"type":"TRIP_DROPOFF_POINT","position":{"latitude":52.52,"longitude":13.44},"visible":true,"eta":null,"remainingDistanceMeters":null},{"type":"TRIP_VEHICLE","position":null,"heading":null,"visible":false,"locationUpdateTime":null,"stale":null,"staleTime":null}],"polylines":[],"nextStop":{"type":"PICKUP","index":null,"eta":null,"remainingDistanceMeters":null},"dropoffEta":null,"remainingDistanceToDropoffMeters":null,"styleVersion":0}"#
    let exclusiveEnrouteToPickup = #"{"name":"providers/acme/trips/t-1","version":6,"tripStatus":"ENROUTE_TO_PICKUP","updateTime":"2026-03-01T08:00:06.000000Z","markers":[{"type":"TRIP_PICKUP_POINT","position":{"latitude":52.52,"longitude":13.41},"visible":true,"eta":"2026-03-01T08:01:40.000000Z","remainingDistanceMeters":677},{"type":"INTERMEDIATE_DESTINATION","index":0,"position":{"latitude":52.52,"longitude":13.42},"visible":true,"eta":"2026-03-01T08:02:40.000000Z","remainingDistanceMeters":1354},{"type":"INTERMEDIATE_DESTINATION","index":1,"position":{"latitude":52.52,"longitude":13.43},"visible":true,"eta":"2026-03-01T08:03:40.000000Z","remainingDistanceMeters":2031},{"type":"TRIP_DROPOFF_POINT","position":{"latitude":52.52,"longitude":13.44},"visible":true,"eta":"2026-03-01T08:04:40.000000Z","remainingDistanceMeters":2708},{"type":"TRIP_VEHICLE","position":{"latitude":52.52,"longitude":13.4},"heading":90,"visible":true,"locationUpdateTime":"2026-03-01T08:00:01.000000Z","stale":false,"staleTime":"2026-03-01T08:01:01.000000Z"}],"polylines":[{"type":"ACTIVE_ROUTE","encodedPath":"_yp_I_expA?sN?sN?sN?sN","visible":true,"trafficIntervals":[{"startIndex":0,"endIndex":1,"speed":"NO_DATA"},{"startIndex":1,"endIndex":3,"speed":"SLOW"},{"startIndex":3,"endIndex":4,"speed":"NO_DATA"}]},{"type":"REMAINING_ROUTE","encodedPath":"_yp_IoczpA?sN?sN?sN?sN?sN?sN?sN?sN?sN?sN?sN?sN","visible":true,"trafficIntervals":[{"startIndex":0,"endIndex":12,"speed":"NO_DATA"}]}],"nextStop":{"type":"PICKUP","index":null,"eta":"2026-03-01T08:01:40.000000Z","remainingDistanceMeters":677},"dropoffEta":"2026-03-01T08:04:40.000000Z","remainingDistanceToDropoffMeters":2708,"styleVersion":0}"#
    let exclusiveArrivedAtPickup = #"{"name":"providers/acme/trips/t-1","version":8,"tripStatus":"ARRIVED_AT_PICKUP","updateTime":"2026-03-01T08:01:35.000000Z","markers":[{"type":"TRIP_PICKUP_POINT","position":{"latitude":52.52,"longitude":13.41},"visible":true,"eta":null,"remainingDistanceMeters":0},{"type":"INTERMEDIATE_DESTINATION","index":0,"position":{"latitude":52.52,"longitude":13.42},"visible":true,"eta":"2026-03-01T08:02:35.000000Z","remainingDistanceMeters":677},{"type":"INTERMEDIATE_DESTINATION","index":1,"position":{"latitude":52.52,"longitude":13.43},"visible":true,"eta":"2026-03-01T08:03:35.000000Z","remainingDistanceMeters":1354},{"type":"TRIP_DROPOFF_POINT","position":{"latitude":52.52,"longitude":13.44},"visible":true,"eta":"2026-03-01T08:04:35.000000Z","remainingDistanceMeters":2031},{"type":"TRIP_VEHICLE","position":{"latitude":52.52,"longitude":13.41},"heading":90,"visible":true,"locationUpdateTime":"2026-03-01T08:01:30.000000Z","stale":false,"staleTime":"2026-03-01T08:02:30.000000Z"}],"polylines":[{"type":"ACTIVE_ROUTE","encodedPath":"_yp_IoczpA","visible":true,"trafficIntervals":[]},{"type":"REMAINING_ROUTE","encodedPath":"_yp_IoczpA?sN?sN?sN?sN?sN?sN?sN?sN?sN?sN?sN?sN","visible":true,"trafficIntervals":[{"startIndex":0,"endIndex":12,"speed":"NO_DATA"}]}],"nextStop":{"type":"PICKUP","index":null,"eta":null,"remainingDistanceMeters":0},"dropoffEta":"2026-03-01T08:04:35.000000Z","remainingDistanceToDropoffMeters":2031,"styleVersion":0}"#
    let exclusiveEnrouteToStop0 = #"{"name":"providers/acme/trips/t-1","version":11,"tripStatus":"ENROUTE_TO_INTERMEDIATE_DESTINATION","updateTime":"2026-03-01T08:01:41.000000Z","markers":[{"type":"TRIP_PICKUP_POINT","position":{"latitude":52.52,"longitude":13.41},"visible":false,"eta":null,"remainingDistanceMeters":null},{"type":"INTERMEDIATE_DESTINATION","index":0,"position":{"latitude":52.52,"longitude":13.42},"visible":true,"eta":"2026-03-01T08:02:40.000000Z","remainingDistanceMeters":677},{"type":"INTERMEDIATE_DESTINATION","index":1,"position":{"latitude":52.52,"longitude":13.43},"visible":true,"eta":"2026-03-01T08:03:40.000000Z","remainingDistanceMeters":1354},{"type":"TRIP_DROPOFF_POINT","position":{"latitude":52.52,"longitude":13.44},"visible":true,"eta":"2026-03-01T08:04:40.000000Z","remainingDistanceMeters":2031},{"type":"TRIP_VEHICLE","position":{"latitude":52.52,"longitude":13.41},"heading":90,"visible":true,"locationUpdateTime":"2026-03-01T08:01:30.000000Z","stale":false,"staleTime":"2026-03-01T08:02:30.000000Z"}],"polylines":[{"type":"ACTIVE_ROUTE","encodedPath":"_yp_IoczpA?sN?sN?sN?sN","visible":true,"trafficIntervals":[{"startIndex":0,"endIndex":4,"speed":"NO_DATA"}]},{"type":"REMAINING_ROUTE","encodedPath":"_yp_I_b|pA?sN?sN?sN?sN?sN?sN?sN?sN","visible":true,"trafficIntervals":[{"startIndex":0,"endIndex":8,"speed":"NO_DATA"}]}],"nextStop":{"type":"INTERMEDIATE_DESTINATION","index":0,"eta":"2026-03-01T08:02:40.000000Z","remainingDistanceMeters":677},"dropoffEta":"2026-03-01T08:04:40.000000Z","remainingDistanceToDropoffMeters":2031,"styleVersion":0}"#
    let exclusiveEnrouteToDropoff = #"{"name":"providers/acme/trips/t-1","version":18,"tripStatus":"ENROUTE_TO_DROPOFF","updateTime":"2026-03-01T08:04:01.000000Z","markers":[{"type":"TRIP_PICKUP_POINT","position":{"latitude":52.52,"longitude":13.41},"visible":false,"eta":null,"remainingDistanceMeters":null},{"type":"INTERMEDIATE_DESTINATION","index":0,"position":{"latitude":52.52,"longitude":13.42},"visible":false,"eta":null,"remainingDistanceMeters":null},{"type":"INTERMEDIATE_DESTINATION","index":1,"position":{"latitude":52.52,"longitude":13.43},"visible":false,"eta":null,"remainingDistanceMeters":null},{"type":"TRIP_DROPOFF_POINT","position":{"latitude":52.52,"longitude":13.44},"visible":true,"eta":"2026-03-01T08:05:00.000000Z","remainingDistanceMeters":677},{"type":"TRIP_VEHICLE","position":{"latitude":52.52,"longitude":13.43},"heading":90,"visible":true,"locationUpdateTime":"2026-03-01T08:03:50.000000Z","stale":false,"staleTime":"2026-03-01T08:04:50.000000Z"}],"polylines":[{"type":"ACTIVE_ROUTE","encodedPath":"_yp_Io`~pA?sN?sN?sN?sN","visible":true,"trafficIntervals":[{"startIndex":0,"endIndex":4,"speed":"NO_DATA"}]}],"nextStop":{"type":"DROPOFF","index":null,"eta":"2026-03-01T08:05:00.000000Z","remainingDistanceMeters":677},"dropoffEta":"2026-03-01T08:05:00.000000Z","remainingDistanceToDropoffMeters":677,"styleVersion":0}"#
    let exclusiveComplete = #"{"name":"providers/acme/trips/t-1","version":20,"tripStatus":"COMPLETE","updateTime":"2026-03-01T08:05:01.000000Z","markers":[{"type":"TRIP_PICKUP_POINT","position":{"latitude":52.52,"longitude":13.41},"visible":false,"eta":null,"remainingDistanceMeters":null},{"type":"INTERMEDIATE_DESTINATION","index":0,"position":{"latitude":52.52,"longitude":13.42},"visible":false,"eta":null,"remainingDistanceMeters":null},{"type":"INTERMEDIATE_DESTINATION","index":1,"position":{"latitude":52.52,"longitude":13.43},"visible":false,"eta":null,"remainingDistanceMeters":null},{"type":"TRIP_DROPOFF_POINT","position":{"latitude":52.52,"longitude":13.44},"visible":false,"eta":null,"remainingDistanceMeters":null},{"type":"TRIP_VEHICLE","position":{"latitude":52.52,"longitude":13.44},"heading":90,"visible":false,"locationUpdateTime":"2026-03-01T08:05:00.000000Z","stale":false,"staleTime":"2026-03-01T08:06:00.000000Z"}],"polylines":[{"type":"ACTIVE_ROUTE","encodedPath":"_yp_I__`qA","visible":false,"trafficIntervals":[]}],"nextStop":null,"dropoffEta":null,"remainingDistanceToDropoffMeters":null,"styleVersion":0}"#
    let sharedRiderAEnroute = #"{"name":"providers/acme/trips/t-a","version":7,"tripStatus":"ENROUTE_TO_PICKUP","updateTime":"2026-03-01T08:00:09.000000Z","markers":[{"type":"TRIP_PICKUP_POINT","position":{"latitude":52.52,"longitude":13.41},"visible":true,"eta":"2026-03-01T08:01:10.000000Z","remainingDistanceMeters":677},{"type":"TRIP_DROPOFF_POINT","position":{"latitude":52.52,"longitude":13.44},"visible":true,"eta":"2026-03-01T08:03:10.000000Z","remainingDistanceMeters":3863},{"type":"TRIP_VEHICLE","position":{"latitude":52.52,"longitude":13.4},"heading":90,"visible":true,"locationUpdateTime":"2026-03-01T08:00:01.000000Z","stale":false,"staleTime":"2026-03-01T08:01:01.000000Z"}],"polylines":[{"type":"ACTIVE_ROUTE","encodedPath":"_yp_I_expA?sN?sN?sN?sN","visible":true,"trafficIntervals":[{"startIndex":0,"endIndex":4,"speed":"NO_DATA"}]},{"type":"REMAINING_ROUTE","encodedPath":"_yp_IoczpA}GmC}GoC}GmC{GoC}GmC}GoC}GmCdD_LfDaLdD_LdD_LfDaLdD_LdD_LfDaLdD_LdD_LfDaLdD_L","visible":true,"trafficIntervals":[{"startIndex":0,"endIndex":19,"speed":"NO_DATA"}]}],"nextStop":{"type":"PICKUP","index":null,"eta":"2026-03-01T08:01:10.000000Z","remainingDistanceMeters":677},"dropoffEta":"2026-03-01T08:03:10.000000Z","remainingDistanceToDropoffMeters":3863,"styleVersion":0}"#
    let sharedRiderBEnroute = #"{"name":"providers/acme/trips/t-b","version":7,"tripStatus":"ENROUTE_TO_PICKUP","updateTime":"2026-03-01T08:00:09.000000Z","markers":[{"type":"TRIP_PICKUP_POINT","position":{"latitude":52.53,"longitude":13.415},"visible":true,"eta":"2026-03-01T08:02:10.000000Z","remainingDistanceMeters":1839},{"type":"TRIP_DROPOFF_POINT","position":{"latitude":52.53,"longitude":13.445},"visible":true,"eta":"2026-03-01T08:04:10.000000Z","remainingDistanceMeters":5025},{"type":"TRIP_VEHICLE","position":{"latitude":52.52,"longitude":13.4},"heading":90,"visible":true,"locationUpdateTime":"2026-03-01T08:00:01.000000Z","stale":false,"staleTime":"2026-03-01T08:01:01.000000Z"}],"polylines":[{"type":"ACTIVE_ROUTE","encodedPath":"_yp_I_expA?sN?sN?sN?sN","visible":true,"trafficIntervals":[{"startIndex":0,"endIndex":4,"speed":"NO_DATA"}]},{"type":"REMAINING_ROUTE","encodedPath":"owr_Iwb{pAdD_LfDaLdD_LdD_LfDaLdD_LdD_LfDaLdD_LdD_LfDaLdD_L}GmC}GoC}GmC{GoC}GmC}GoC}GmC","visible":true,"trafficIntervals":[{"startIndex":0,"endIndex":19,"speed":"NO_DATA"}]}],"nextStop":{"type":"PICKUP","index":null,"eta":"2026-03-01T08:02:10.000000Z","remainingDistanceMeters":1839},"dropoffEta":"2026-03-01T08:04:10.000000Z","remainingDistanceToDropoffMeters":5025,"styleVersion":0}"#
    let sharedRiderAViaOtherPickup = #"{"name":"providers/acme/trips/t-a","version":13,"tripStatus":"ENROUTE_TO_DROPOFF","updateTime":"2026-03-01T08:01:21.000000Z","markers":[{"type":"TRIP_PICKUP_POINT","position":{"latitude":52.52,"longitude":13.41},"visible":false,"eta":null,"remainingDistanceMeters":null},{"type":"TRIP_DROPOFF_POINT","position":{"latitude":52.52,"longitude":13.44},"visible":true,"eta":"2026-03-01T08:03:30.000000Z","remainingDistanceMeters":3186},{"type":"TRIP_VEHICLE","position":{"latitude":52.52,"longitude":13.41},"heading":90,"visible":true,"locationUpdateTime":"2026-03-01T08:01:10.000000Z","stale":false,"staleTime":"2026-03-01T08:02:10.000000Z"}],"polylines":[{"type":"ACTIVE_ROUTE","encodedPath":"_yp_IoczpA}GmC}GoC}GmC{GoC}GmC}GoC}GmC","visible":true,"trafficIntervals":[{"startIndex":0,"endIndex":7,"speed":"NO_DATA"}]}],"nextStop":{"type":"DROPOFF","index":null,"eta":"2026-03-01T08:03:30.000000Z","remainingDistanceMeters":3186},"dropoffEta":"2026-03-01T08:03:30.000000Z","remainingDistanceToDropoffMeters":3186,"styleVersion":0}"#
    let backToBackSecondWhileFirstRuns = #"{"name":"providers/acme/trips/t-2","version":4,"tripStatus":"NEW","updateTime":"2026-03-01T08:00:12.000000Z","markers":[{"type":"TRIP_PICKUP_POINT","position":{"latitude":52.52,"longitude":13.43},"visible":true,"eta":"2026-03-01T08:02:07.000000Z","remainingDistanceMeters":1354},{"type":"TRIP_DROPOFF_POINT","position":{"latitude":52.52,"longitude":13.44},"visible":true,"eta":"2026-03-01T08:03:07.000000Z","remainingDistanceMeters":2031},{"type":"TRIP_VEHICLE","position":{"latitude":52.52,"longitude":13.41},"heading":90,"visible":true,"locationUpdateTime":"2026-03-01T08:00:01.000000Z","stale":false,"staleTime":"2026-03-01T08:01:01.000000Z"}],"polylines":[{"type":"ACTIVE_ROUTE","encodedPath":"_yp_IoczpA?sN?sN?sN?sN","visible":true,"trafficIntervals":[{"startIndex":0,"endIndex":4,"speed":"NO_DATA"}]},{"type":"REMAINING_ROUTE","encodedPath":"_yp_Io`~pA?sN?sN?sN?sN","visible":true,"trafficIntervals":[{"startIndex":0,"endIndex":4,"speed":"NO_DATA"}]}],"nextStop":{"type":"PICKUP","index":null,"eta":"2026-03-01T08:02:07.000000Z","remainingDistanceMeters":1354},"dropoffEta":"2026-03-01T08:03:07.000000Z","remainingDistanceToDropoffMeters":2031,"styleVersion":0}"#
    let backToBackSecondAfterFirst = #"{"name":"providers/acme/trips/t-2","version":10,"tripStatus":"ENROUTE_TO_PICKUP","updateTime":"2026-03-01T08:01:30.000000Z","markers":[{"type":"TRIP_PICKUP_POINT","position":{"latitude":52.52,"longitude":13.43},"visible":true,"eta":"2026-03-01T08:02:03.000000Z","remainingDistanceMeters":338},{"type":"TRIP_DROPOFF_POINT","position":{"latitude":52.52,"longitude":13.44},"visible":true,"eta":"2026-03-01T08:03:03.000000Z","remainingDistanceMeters":1015},{"type":"TRIP_VEHICLE","position":{"latitude":52.52,"longitude":13.425},"heading":90,"visible":true,"locationUpdateTime":"2026-03-01T08:01:30.000000Z","stale":false,"staleTime":"2026-03-01T08:02:30.000000Z"}],"polylines":[{"type":"ACTIVE_ROUTE","encodedPath":"_yp_Iga}pA?sN?sN","visible":true,"trafficIntervals":[{"startIndex":0,"endIndex":2,"speed":"NO_DATA"}]},{"type":"REMAINING_ROUTE","encodedPath":"_yp_Io`~pA?sN?sN?sN?sN","visible":true,"trafficIntervals":[{"startIndex":0,"endIndex":4,"speed":"NO_DATA"}]}],"nextStop":{"type":"PICKUP","index":null,"eta":"2026-03-01T08:02:03.000000Z","remainingDistanceMeters":338},"dropoffEta":"2026-03-01T08:03:03.000000Z","remainingDistanceToDropoffMeters":1015,"styleVersion":0}"#
    let canceledMidRoute = #"{"name":"providers/acme/trips/t-1","version":6,"tripStatus":"CANCELED","updateTime":"2026-03-01T08:00:31.000000Z","markers":[{"type":"TRIP_PICKUP_POINT","position":{"latitude":52.52,"longitude":13.41},"visible":false,"eta":null,"remainingDistanceMeters":null},{"type":"TRIP_DROPOFF_POINT","position":{"latitude":52.52,"longitude":13.44},"visible":false,"eta":null,"remainingDistanceMeters":null},{"type":"TRIP_VEHICLE","position":{"latitude":52.52,"longitude":13.405},"heading":90,"visible":false,"locationUpdateTime":"2026-03-01T08:00:30.000000Z","stale":false,"staleTime":"2026-03-01T08:01:30.000000Z"}],"polylines":[{"type":"ACTIVE_ROUTE","encodedPath":"_yp_IgdypA?sN?sN","visible":false,"trafficIntervals":[{"startIndex":0,"endIndex":2,"speed":"NO_DATA"}]}],"nextStop":null,"dropoffEta":null,"remainingDistanceToDropoffMeters":null,"styleVersion":0}"#
    let rerouted = #"{"name":"providers/acme/trips/t-1","version":9,"tripStatus":"ENROUTE_TO_PICKUP","updateTime":"2026-03-01T08:00:51.000000Z","markers":[{"type":"TRIP_PICKUP_POINT","position":{"latitude":52.52,"longitude":13.41},"visible":true,"eta":"2026-03-01T08:01:42.000000Z","remainingDistanceMeters":561},{"type":"TRIP_DROPOFF_POINT","position":{"latitude":52.52,"longitude":13.44},"visible":true,"eta":null,"remainingDistanceMeters":null},{"type":"TRIP_VEHICLE","position":{"latitude":52.522,"longitude":13.405},"heading":90,"visible":true,"locationUpdateTime":"2026-03-01T08:00:50.000000Z","stale":false,"staleTime":"2026-03-01T08:01:50.000000Z"}],"polylines":[{"type":"ACTIVE_ROUTE","encodedPath":"oeq_IgdypA?sN?sNnK?","visible":true,"trafficIntervals":[{"startIndex":0,"endIndex":3,"speed":"NO_DATA"}]}],"nextStop":{"type":"PICKUP","index":null,"eta":"2026-03-01T08:01:42.000000Z","remainingDistanceMeters":561},"dropoffEta":null,"remainingDistanceToDropoffMeters":null,"styleVersion":0}"#
}
