import Geo
import JSON
import Journey
import ReadModels
import Testing

/// Every `*Version` moves exactly when the data it covers changes, to that event's `recordedAt`.
@Suite struct FleetResourceVersionTests {
    static let tripKey = "providers/acme/trips/t-1"
    static let vehicleKey = "providers/acme/vehicles/v-1"
    static let versionFields = [
        "intermediateDestinationsVersion", "currentRouteSegmentVersion", "currentRouteSegmentTrafficVersion",
        "remainingWaypointsVersion", "remainingWaypointsRouteVersion",
    ]

    static func versions(_ document: JSONValue?, _ fields: [String] = versionFields) -> [String: String] {
        var result: [String: String] = [:]
        for field in fields { result[field] = document?[field]?.stringValue }
        return result
    }

    /// Folds `scenario`, then `more`, returning the store after the first part and after both.
    static func foldThen(_ scenario: FleetScenario, _ more: (inout FleetScenario) throws -> Void) throws
        -> (before: ProjectionStore<FleetResourceProjection>, after: ProjectionStore<FleetResourceProjection>, recorded: [Timestamp])
    {
        var s = scenario
        var store = ProjectionStore<FleetResourceProjection>()
        store.apply(s.envelopes)
        let before = store
        let count = s.envelopes.count
        try more(&s)
        store.apply(s.envelopes[count...])
        return (before, store, s.envelopes[count...].map(\.recordedAt))
    }

    @Test func locationReportChangesLastLocationButNoVersion() throws {
        // given a trip en route to pickup
        let (before, after, _) = try Self.foldThen(try FleetScenario.enrouteToPickup()) { s in
            // when the vehicle reports a new position
            try s.report("v-1", FleetScenario.point(52.5170, 13.4020), at: 40)
        }
        let old = before.document("trips", Self.tripKey)
        let new = after.document("trips", Self.tripKey)
        // then lastLocation moved, and no version did (trip or vehicle)
        #expect(old?["lastLocation"] != new?["lastLocation"])
        #expect(Self.versions(old) == Self.versions(new))
        let vehicleFields = ["currentRouteSegmentVersion", "waypointsVersion"]
        #expect(Self.versions(before.document("vehicles", Self.vehicleKey), vehicleFields)
            == Self.versions(after.document("vehicles", Self.vehicleKey), vehicleFields))
    }

    @Test func reReportingTheSameSegmentBumpsNoVersionAndNewTrafficBumpsOnlyTheTrafficVersion() throws {
        let path = Polyline.encode([FleetScenario.start, FleetScenario.point(52.5175, 13.4025), FleetScenario.pickup.point])
        let (before, after, recorded) = try Self.foldThen(try FleetScenario.enrouteToPickup()) { s in
            // when the same path is reported again with the same traffic
            try s.vehicle("v-1", .updateRouteSegment(
                encodedPath: path,
                traffic: [TrafficSpeedInterval(startIndex: 0, endIndex: 1, speed: .normal), TrafficSpeedInterval(startIndex: 1, endIndex: 2, speed: .slow)],
                at: FleetScenario.t(41)), at: 41)
            // and then with a jam on the second stretch
            try s.vehicle("v-1", .updateRouteSegment(
                encodedPath: path, traffic: [TrafficSpeedInterval(startIndex: 1, endIndex: 2, speed: .trafficJam)],
                at: FleetScenario.t(42)), at: 42)
        }
        let old = Self.versions(before.document("trips", Self.tripKey))
        let new = Self.versions(after.document("trips", Self.tripKey))
        // then only the traffic version moved, to the second report's recordedAt
        #expect(new["currentRouteSegmentTrafficVersion"] == recorded[1].rfc3339)
        var expected = old
        expected["currentRouteSegmentTrafficVersion"] = recorded[1].rfc3339
        // the first waypoint's trafficToWaypoint changed too, which is per-waypoint route data
        expected["remainingWaypointsRouteVersion"] = recorded[1].rfc3339
        #expect(new == expected)
        // and the vehicle's segment version did not move (same path)
        #expect(before.document("vehicles", Self.vehicleKey)?["currentRouteSegmentVersion"]
            == after.document("vehicles", Self.vehicleKey)?["currentRouteSegmentVersion"])
    }

    @Test func passingAStopBumpsWaypointAndSegmentVersionsAtTheVehicleSync() throws {
        var s = try FleetScenario.enrouteToPickup()
        try s.trip("t-1", .updateTripStatus(.arrivedAtPickup, at: FleetScenario.t(61)), at: 61)
        let (before, after, recorded) = try Self.foldThen(s) { s in
            // when the vehicle leaves the pickup (trip event, then the vehicle's waypoint sync)
            try s.trip("t-1", .continueToNextDestination(at: FleetScenario.t(70)), at: 70)
        }
        let old = Self.versions(before.document("trips", Self.tripKey))
        let new = Self.versions(after.document("trips", Self.tripKey))
        let sync = try #require(recorded.last)
        // then the remaining waypoints, their routes and the (now stale) segment changed at the sync
        #expect(new["remainingWaypointsVersion"] == sync.rfc3339)
        #expect(new["remainingWaypointsRouteVersion"] == sync.rfc3339)
        #expect(new["currentRouteSegmentVersion"] == sync.rfc3339)
        #expect(new["currentRouteSegmentTrafficVersion"] == sync.rfc3339)
        // and the intermediate destinations did not change, so neither did their version
        #expect(new["intermediateDestinationsVersion"] == old["intermediateDestinationsVersion"])
        #expect(after.document("trips", Self.tripKey)?["currentRouteSegment"] == nil)
        #expect(after.document("vehicles", Self.vehicleKey)?["waypointsVersion"]?.stringValue == sync.rfc3339)
    }

    @Test func changingIntermediateDestinationsCopiesTheDomainVersionForEchoingBack() throws {
        let (_, after, recorded) = try Self.foldThen(try FleetScenario.enrouteToPickup()) { s in
            try s.trip("t-1", .setIntermediateDestinations([FleetScenario.stop2], at: FleetScenario.t(50)), at: 50)
        }
        let trip = after.document("trips", Self.tripKey)
        // then the version is the command time the domain checks against, not the recorded time
        #expect(trip?["intermediateDestinationsVersion"]?.stringValue == FleetScenario.t(50).rfc3339)
        #expect(trip?["intermediateDestinationsVersion"]?.stringValue != recorded[0].rfc3339)
        // and the shorter stop list changed the remaining waypoints at the vehicle sync
        #expect(trip?["remainingWaypointsVersion"]?.stringValue == recorded.last?.rfc3339)
        #expect(trip?["remainingWaypoints"]?.arrayValue?.count == 3)
    }

    @Test func unchangedDocumentsAreNotWrittenAgain() throws {
        let (_, after, _) = try Self.foldThen(try FleetScenario.enrouteToPickup()) { s in
            // when the vehicle repeats its state and a stale report arrives
            try s.vehicle("v-1", .setVehicleState(.online, at: FleetScenario.t(40)), at: 40)
            let stale = VehicleLocation(location: FleetScenario.start, updateTime: FleetScenario.t(2))
            try s.vehicle("v-1", .reportLocation(stale, at: FleetScenario.t(41)), at: 41)
        }
        // then nothing changed, so nothing is written
        #expect(after.lastBatch.isEmpty)
    }

    @Test func pooledTripSeesOtherTripsStopsOnlyUpToItsOwnDropoff() throws {
        var s = try FleetScenario.withVehicle()
        for (id, at) in [("t-1", 10.0), ("t-2", 11.0)] {
            try s.trip(id, .createTrip(.init(tripId: id, tripType: .shared, pickup: FleetScenario.pickup, dropoff: FleetScenario.dropoff), at: FleetScenario.t(at)), at: at)
        }
        try s.trip("t-1", .assignVehicle(vehicleId: "v-1", vehicle: s.vehicles["v-1"], at: FleetScenario.t(20)), at: 20)
        try s.trip("t-2", .assignVehicle(vehicleId: "v-1", vehicle: s.vehicles["v-1"], at: FleetScenario.t(21)), at: 21)
        var store = ProjectionStore<FleetResourceProjection>()
        store.apply(s.envelopes)
        func stops(_ trip: String) -> [String] {
            (store.document("trips", "providers/acme/trips/\(trip)")?["remainingWaypoints"]?.arrayValue ?? []).map {
                "\($0["tripId"]?.stringValue ?? "?"):\($0["waypointType"]?.stringValue ?? "?")"
            }
        }
        // then t-1 ends at its own dropoff and t-2 sees t-1's stops first (appended order)
        #expect(stops("t-1") == ["t-1:PICKUP_WAYPOINT_TYPE", "t-1:DROP_OFF_WAYPOINT_TYPE"])
        #expect(stops("t-2") == ["t-1:PICKUP_WAYPOINT_TYPE", "t-1:DROP_OFF_WAYPOINT_TYPE", "t-2:PICKUP_WAYPOINT_TYPE", "t-2:DROP_OFF_WAYPOINT_TYPE"])
        #expect(store.document("vehicles", Self.vehicleKey)?["currentTrips"] == ["t-1", "t-2"])
    }
}
