import Geo
import JSON
import Journey
import ReadModels
import Testing

/// Deleted and re-created trips and vehicles, and UpdateVehicle facts, in the journey view.
@Suite("Journey view: deletion and re-creation")
struct JourneyViewLifecycleTests {
    typealias F = JourneyViewFixtures
    static let tripKey = "providers/acme/trips/t-1"

    /// v-1 carries t-1 to COMPLETE.
    static func completedWorld() throws -> JourneyViewWorld {
        var w = JourneyViewWorld()
        try w.register("v-1", at: F.t(0))
        try w.locate("v-1", F.depot, at: F.t(1))
        try w.create("t-1", at: F.t(2))
        try w.assign("t-1", to: "v-1", at: F.t(3))
        try w.status("t-1", .enrouteToPickup, at: F.t(4))
        try w.segment("v-1", F.path(F.depot, F.pickup), at: F.t(5))
        try w.locate("v-1", F.pickup, at: F.t(60))
        try w.status("t-1", .arrivedAtPickup, at: F.t(61))
        try w.status("t-1", .enrouteToDropoff, at: F.t(62))
        try w.locate("v-1", F.dropoff, at: F.t(200))
        try w.status("t-1", .complete, at: F.t(201))
        return w
    }

    /// `completedWorld`, UpdateVehicle on v-1, t-1 deleted and created again (SHARED, pickup
    /// moved, en route), t-2 created and deleted, v-2 registered, deleted and registered again.
    static func lifecycleJourney() throws -> JourneyViewWorld {
        var w = try completedWorld()
        try w.vehicle("v-1", .mergeAttributes([Attribute(key: "seats", value: .number(5))], at: F.t(210)), at: F.t(210))
        try w.vehicle("v-1", .updateCapabilities(maximumCapacity: 6, supportedTripTypes: nil, vehicleType: nil, at: F.t(211)), at: F.t(211))
        try w.vehicle("v-1", .setBackToBackEnabled(true, at: F.t(212)), at: F.t(212))
        try w.vehicle("v-1", .setLicensePlate(LicensePlate(countryCode: "DE", lastCharacter: "7"), at: F.t(213)), at: F.t(213))
        try w.trip("t-1", .deleteTrip(at: F.t(220)), at: F.t(220))
        try w.create("t-1", type: .shared, pickup: F.stop0, dropoff: F.stop1, at: F.t(230))
        try w.assign("t-1", to: "v-1", at: F.t(231))
        try w.trip("t-1", .setPickupPoint(TerminalLocation(point: F.otherPickup), at: F.t(232)), at: F.t(232))
        try w.status("t-1", .enrouteToPickup, at: F.t(233))
        try w.segment("v-1", F.path(F.dropoff, F.otherPickup), at: F.t(234))
        try w.locate("v-1", F.point(52.522, 13.44), at: F.t(240))
        try w.create("t-2", pickup: F.stop1, at: F.t(241))
        try w.trip("t-2", .deleteTrip(at: F.t(242)), at: F.t(242))
        try w.register("v-2", at: F.t(250))
        try w.locate("v-2", F.depot, at: F.t(251))
        try w.vehicle("v-2", .deleteVehicle(at: F.t(252)), at: F.t(252))
        try w.register("v-2", types: [.shared], at: F.t(253))
        try w.locate("v-1", F.point(52.524, 13.435), at: F.t(260))
        return w
    }

    @Test func deletingATripDeletesItsViewAndStateDocuments() throws {
        // given a completed trip, its documents written
        var w = try Self.completedWorld()
        _ = w.projection.drainChanges()
        #expect(w.view("t-1") != nil)
        // when it is deleted
        try w.trip("t-1", .deleteTrip(at: F.t(220)), at: F.t(220))
        // then its state and view documents are deleted and there is no view
        #expect(w.projection.drainChanges() == [
            DocumentChange(collection: "state", key: Self.tripKey, document: nil),
            DocumentChange(collection: "views", key: Self.tripKey, document: nil),
        ])
        #expect(w.view("t-1") == nil)
    }

    @Test func aRecreatedTripStartsANewViewAtVersionOneWithItsMovedPickup() throws {
        var w = try Self.completedWorld()
        #expect((w.view("t-1")?["version"]?.int64Value ?? 0) > 1)
        try w.trip("t-1", .deleteTrip(at: F.t(220)), at: F.t(220))
        // when the id is created again
        try w.create("t-1", type: .shared, pickup: F.stop0, dropoff: F.stop1, at: F.t(230))
        // then the view starts over
        let created = try #require(w.view("t-1"))
        #expect(created["version"] == 1)
        #expect(created["tripStatus"]?.stringValue == "NEW")
        #expect(created["updateTime"]?.stringValue == F.t(230).rfc3339)
        #expect(created.viewMarker("TRIP_VEHICLE")?["visible"] == false)
        // and a moved pickup moves the marker
        try w.trip("t-1", .setPickupPoint(TerminalLocation(point: F.otherPickup), at: F.t(232)), at: F.t(232))
        let moved = try #require(w.view("t-1"))
        #expect(moved["version"] == 2)
        #expect(moved.viewMarker("TRIP_PICKUP_POINT")?["position"]?.compactString == #"{"latitude":52.53,"longitude":13.415}"#)
    }

    @Test func vehicleUpdatesDoNotChangeTheViewsOfTheTripsItServes() throws {
        // given a trip en route with v-1
        var w = JourneyViewWorld()
        try w.register("v-1", at: F.t(0))
        try w.locate("v-1", F.depot, at: F.t(1))
        try w.create("t-1", at: F.t(2))
        try w.assign("t-1", to: "v-1", at: F.t(3))
        try w.status("t-1", .enrouteToPickup, at: F.t(4))
        let before = try #require(w.view("t-1"))
        _ = w.projection.drainChanges()
        // when the vehicle's attributes, capabilities, back-to-back flag and plate change
        try w.vehicle("v-1", .mergeAttributes([Attribute(key: "seats", value: .number(5))], at: F.t(10)), at: F.t(10))
        try w.vehicle("v-1", .updateCapabilities(maximumCapacity: 6, supportedTripTypes: nil, vehicleType: nil, at: F.t(11)), at: F.t(11))
        try w.vehicle("v-1", .setBackToBackEnabled(true, at: F.t(12)), at: F.t(12))
        try w.vehicle("v-1", .setLicensePlate(LicensePlate(countryCode: "DE"), at: F.t(13)), at: F.t(13))
        // then the rider's view is the same document (only internal state moved)
        #expect(w.view("t-1") == before)
        #expect(w.projection.drainChanges().allSatisfy { $0.collection == "state" })
    }

    @Test func deletingAVehicleDeletesItsStateDocument() throws {
        var w = JourneyViewWorld()
        try w.register("v-2", at: F.t(0))
        try w.locate("v-2", F.depot, at: F.t(1))
        _ = w.projection.drainChanges()
        try w.vehicle("v-2", .deleteVehicle(at: F.t(2)), at: F.t(2))
        #expect(w.projection.drainChanges() == [DocumentChange(collection: "state", key: "providers/acme/vehicles/v-2", document: nil)])
    }

    @Test func theRandomizedJourneysDeleteAndRecreateTripsAndVehicles() {
        var tripDeletions = 0, tripRecreations = 0, vehicleDeletions = 0, vehicleRecreations = 0, pickupMoves = 0
        for seed in 1...8 as ClosedRange<UInt64> {
            var deletedTrips: Set<String> = [], deletedVehicles: Set<String> = []
            for envelope in JourneyViewProjectionTests.randomJourney(seed: seed).log {
                switch envelope.event {
                case .trip(_, let id, .deleted): tripDeletions += 1; deletedTrips.insert(id)
                case .trip(_, let id, .created): if deletedTrips.contains(id) { tripRecreations += 1 }
                case .trip(_, _, .pickupPointSet): pickupMoves += 1
                case .vehicle(_, let id, .deleted): vehicleDeletions += 1; deletedVehicles.insert(id)
                case .vehicle(_, let id, .registered): if deletedVehicles.contains(id) { vehicleRecreations += 1 }
                default: break
                }
            }
        }
        #expect(tripDeletions > 0 && tripRecreations > 0 && pickupMoves > 0)
        #expect(vehicleDeletions > 0 && vehicleRecreations > 0)
    }

    @Test func theLifecycleJourneyEndsWithOneViewPerLivingTrip() throws {
        let w = try Self.lifecycleJourney()
        #expect(w.view("t-1")?["tripStatus"]?.stringValue == "ENROUTE_TO_PICKUP")
        #expect(w.view("t-1")?.viewMarker("TRIP_VEHICLE")?["visible"] == true)
        #expect(w.view("t-2") == nil)
    }
}
