import JSON
import Journey
import ReadModels
import Testing

extension FleetScenario {
    /// `completed`, then UpdateVehicle on v-1 (merged attributes, capabilities, back-to-back,
    /// license plate) and `t-1` deleted.
    static func completedUpdatedAndDeleted() throws -> FleetScenario {
        var s = try completed()
        try s.vehicle("v-1", .mergeAttributes([Attribute(key: "seats", value: .number(5)), Attribute(key: "color", value: .string("red"))], at: t(490)), at: 490)
        try s.vehicle("v-1", .updateCapabilities(maximumCapacity: 6, supportedTripTypes: [.shared], vehicleType: VehicleType(category: .taxi), at: t(491)), at: 491)
        try s.vehicle("v-1", .setBackToBackEnabled(true, at: t(492)), at: 492)
        try s.vehicle("v-1", .setLicensePlate(LicensePlate(countryCode: "DE", lastCharacter: "7"), at: t(493)), at: 493)
        try s.trip("t-1", .deleteTrip(at: t(500)), at: 500)
        return s
    }

    /// `completedUpdatedAndDeleted`, then a new lifecycle of `t-1` (SHARED, assigned to v-1, its
    /// pickup moved, en route), trip `t-2` created and deleted, and `v-2` registered, deleted
    /// and registered again.
    static func lifecycles() throws -> FleetScenario {
        var s = try completedUpdatedAndDeleted()
        try s.trip("t-1", .createTrip(.init(tripId: "t-1", tripType: .shared, pickup: stop2, dropoff: pickup), at: t(510)), at: 510)
        try s.trip("t-1", .assignVehicle(vehicleId: "v-1", vehicle: s.vehicles["v-1"], at: t(511)), at: 511)
        try s.trip("t-1", .setPickupPoint(stop1, at: t(512)), at: 512)
        try s.trip("t-1", .updateTripStatus(.enrouteToPickup, at: t(513)), at: 513)
        try s.report("v-1", stop2.point, at: 520)
        try s.trip("t-2", .createTrip(.init(tripId: "t-2", tripType: .exclusive, pickup: dropoff), at: t(521)), at: 521)
        try s.trip("t-2", .deleteTrip(at: t(522)), at: 522)
        try s.vehicle("v-2", .registerVehicle(.init(
            vehicleId: "v-2", vehicleState: .online, supportedTripTypes: [.exclusive], maximumCapacity: 2,
            vehicleType: VehicleType(category: .bicycle), attributes: [Attribute(key: "old", value: .bool(true))],
            licensePlate: LicensePlate(countryCode: "FR", lastCharacter: "-1")), at: t(530)), at: 530)
        try s.report("v-2", dropoff.point, at: 531)
        try s.vehicle("v-2", .deleteVehicle(at: t(532)), at: 532)
        try s.vehicle("v-2", .registerVehicle(.init(
            vehicleId: "v-2", vehicleState: .offline, supportedTripTypes: [.shared], maximumCapacity: 3,
            vehicleType: VehicleType(category: .auto)), at: t(533)), at: 533)
        return s
    }
}

/// Deletion, re-creation and the UpdateVehicle fields in `FleetResourceProjection`.
@Suite struct FleetResourceLifecycleTests {
    static let tripKey = FleetResourceProjectionTests.tripKey
    static let vehicleKey = FleetResourceProjectionTests.vehicleKey
    static let vehicle2Key = "providers/acme/vehicles/v-2"

    @Test func deletingATripDeletesItsTripAndTripStateDocuments() throws {
        // given a completed trip
        var store = ProjectionStore<FleetResourceProjection>()
        let scenario = try FleetScenario.completedUpdatedAndDeleted()
        store.apply(scenario.envelopes.dropLast())
        #expect(store.document("trips", Self.tripKey) != nil && store.document("trip_states", Self.tripKey) != nil)
        // when it is deleted
        store.apply(scenario.envelopes.suffix(1))
        // then both of its documents are deleted, and nothing else is written
        #expect(store.lastBatch == [
            DocumentChange(collection: "trip_states", key: Self.tripKey, document: nil),
            DocumentChange(collection: "trips", key: Self.tripKey, document: nil),
        ])
        #expect(store.document("trips", Self.tripKey) == nil && store.document("trip_states", Self.tripKey) == nil)
        #expect(store.document("vehicles", Self.vehicleKey) != nil)
    }

    @Test func vehicleDocumentShowsMergedAttributesCapabilitiesBackToBackAndLicensePlate() throws {
        let store = FleetResourceProjectionTests.fold(try FleetScenario.completedUpdatedAndDeleted())
        // merged attributes keep "color" in place with its new value and append "seats";
        // licensePlate follows vehicleType (proto fields 9, 10)
        try FleetResourceProjectionTests.expectGolden(store.document("vehicles", Self.vehicleKey), #"""
        {
          "name": "providers/acme/vehicles/v-1",
          "vehicleState": "ONLINE",
          "supportedTripTypes": ["SHARED"],
          "lastLocation": {
            "location": {"latitude":52.54,"longitude":13.425},
            "latlngAccuracy": 4.5,
            "heading": 45,
            "speed": 8.25,
            "updateTime": "2026-03-01T08:07:59.000000Z",
            "serverTime": "2026-03-01T08:08:00.000000Z",
            "locationSensor": "GPS"
          },
          "maximumCapacity": 6,
          "attributes": [
            {"key":"color","value":"red","stringValue":"red"},
            {"key":"seats","numberValue":5.0}
          ],
          "vehicleType": {"category":"TAXI"},
          "licensePlate": {"countryCode":"DE","lastCharacter":"7"},
          "currentRouteSegment": "wyo_I_expAsNsNsNsN",
          "currentRouteSegmentTraffic": {
            "trafficRendering": {
              "roadStretch": [
                {"style":"SLOWER_TRAFFIC","offsetMeters":325,"lengthMeters":326}
              ]
            }
          },
          "currentRouteSegmentVersion": "2026-03-01T08:00:25.001000Z",
          "remainingDistanceMeters": 650,
          "etaToFirstWaypoint": "2026-03-01T08:02:16.000000Z",
          "remainingTimeSeconds": 110,
          "waypointsVersion": "2026-03-01T08:08:01.002000Z",
          "backToBackEnabled": true
        }
        """#)
        // Written straight to bytes: they must already be canonical, members in key order.
        let written = try #require(store.lastBatch.first { $0.collection == "vehicles" && $0.key == Self.vehicleKey }?.canonicalBytes)
        #expect(written == (try JSONValue.parse(written)).canonicalBytes(), "\(String(decoding: written, as: UTF8.self))")
    }

    @Test func replacingAttributesShowsOnlyTheNewListAndAClearedPlateIsLeftOut() throws {
        var s = try FleetScenario.completedUpdatedAndDeleted()
        try s.vehicle("v-1", .setAttributes([Attribute(key: "ev", value: .bool(true))], at: FleetScenario.t(600)), at: 600)
        try s.vehicle("v-1", .setLicensePlate(nil, at: FleetScenario.t(601)), at: 601)
        let vehicle = try #require(FleetResourceProjectionTests.fold(s).document("vehicles", Self.vehicleKey))
        #expect(vehicle["attributes"]?.canonicalString == #"[{"boolValue":true,"key":"ev"}]"#, "as stored: canonical")
        #expect(vehicle["licensePlate"] == nil)
    }

    @Test func aRecreatedTripRendersAfresh() throws {
        let store = FleetResourceProjectionTests.fold(try FleetScenario.lifecycles())
        let trip = try #require(store.document("trips", Self.tripKey))
        // nothing of the first lifecycle shows: no actual points, no intermediate stops, no old
        // versions; the moved pickup leads the remaining waypoints
        #expect(trip["tripType"]?.stringValue == "SHARED")
        #expect(trip["tripStatus"]?.stringValue == "ENROUTE_TO_PICKUP")
        #expect(trip["pickupPoint"]?.compactString == #"{"point":{"latitude":52.525,"longitude":13.41}}"#)
        #expect(trip["actualPickupPoint"] == nil && trip["intermediateDestinations"] == nil && trip["attributes"] == nil)
        #expect(trip["intermediateDestinationsVersion"]?.stringValue == "2026-03-01T08:08:30.000000Z")
        #expect(trip["numberOfPassengers"] == 1)
        let waypoints = try #require(trip["remainingWaypoints"]?.arrayValue)
        #expect(waypoints.map { $0["waypointType"]?.stringValue } == ["PICKUP_WAYPOINT_TYPE", "DROP_OFF_WAYPOINT_TYPE"])
        #expect(waypoints.first?["location"]?.compactString == #"{"point":{"latitude":52.525,"longitude":13.41}}"#)
        for version in ["currentRouteSegmentVersion", "currentRouteSegmentTrafficVersion", "remainingWaypointsVersion", "remainingWaypointsRouteVersion"] {
            if let stamp = trip[version]?.stringValue {
                #expect(stamp >= "2026-03-01T08:08:30", "\(version) \(stamp) comes from the first lifecycle")
            }
        }
        // and the vehicle serves the new lifecycle, with the moved pickup
        let vehicle = try #require(store.document("vehicles", Self.vehicleKey))
        #expect(vehicle["currentTrips"]?.compactString == #"["t-1"]"#)
        #expect(vehicle["waypoints"]?[0]?["location"]?.compactString == #"{"point":{"latitude":52.525,"longitude":13.41}}"#)
        // t-2 was created and deleted: nothing of it is stored
        #expect(store.document("trips", "providers/acme/trips/t-2") == nil && store.document("trip_states", "providers/acme/trips/t-2") == nil)
    }

    @Test func deletingAVehicleDeletesItsDocumentsAndARegisteredAgainVehicleRendersAfresh() throws {
        let scenario = try FleetScenario.lifecycles()
        var store = ProjectionStore<FleetResourceProjection>()
        store.apply(scenario.envelopes.dropLast())
        // when VehicleDeleted has been applied
        #expect(store.lastBatch.contains(DocumentChange(collection: "vehicles", key: Self.vehicle2Key, document: nil)))
        #expect(store.lastBatch.contains(DocumentChange(collection: "vehicle_states", key: Self.vehicle2Key, document: nil)))
        #expect(store.document("vehicles", Self.vehicle2Key) == nil)
        // then the vehicle registered again has nothing of the first one (no location, plate or attributes)
        store.apply(scenario.envelopes.suffix(1))
        try FleetResourceProjectionTests.expectGolden(store.document("vehicles", Self.vehicle2Key), #"""
        {
          "name": "providers/acme/vehicles/v-2",
          "vehicleState": "OFFLINE",
          "supportedTripTypes": ["SHARED"],
          "maximumCapacity": 3,
          "vehicleType": {"category":"AUTO"}
        }
        """#)
    }

    @Test func deletingAnUnrelatedVehicleLeavesTripDocumentsAlone() throws {
        let scenario = try FleetScenario.lifecycles()
        var store = ProjectionStore<FleetResourceProjection>()
        let deletion = try #require(scenario.envelopes.lastIndex { if case .vehicle(_, "v-2", .deleted) = $0.event { true } else { false } })
        store.apply(scenario.envelopes[..<deletion])
        store.apply(scenario.envelopes[deletion...deletion])
        #expect(Set(store.lastBatch.map(\.collection)) == ["vehicles", "vehicle_states"])
    }

    @Test func loadThenContinueEqualsApplyAllAtEverySplitPointAcrossDeletionsAndRecreations() throws {
        let envelopes = try FleetScenario.lifecycles().envelopes
        var all = ProjectionStore<FleetResourceProjection>()
        all.apply(envelopes)
        for split in 1..<envelopes.count {
            var first = ProjectionStore<FleetResourceProjection>()
            first.apply(envelopes[..<split])
            var restarted = ProjectionStore<FleetResourceProjection>()
            restarted.projection.load(first.stored.reversed())
            restarted.documents = first.documents
            #expect(restarted.projection == first.projection, "state differs after load at split \(split)")
            restarted.apply(envelopes[split...])
            #expect(restarted.documents == all.documents, "documents differ at split \(split)")
            #expect(restarted.projection == all.projection, "state differs at split \(split)")
        }
    }
}
