import JSON
import Journey
import ReadModels
import Testing

/// GetTrip / GetVehicle responses made from one stored document.
@Suite struct FleetResourceViewsTests {
    static func enrouteDocuments() throws -> (trip: JSONValue, vehicle: JSONValue) {
        var store = ProjectionStore<FleetResourceProjection>()
        store.apply(try FleetScenario.enrouteToPickup().envelopes)
        return (try #require(store.document("trips", "providers/acme/trips/t-1")),
                try #require(store.document("vehicles", "providers/acme/vehicles/v-1")))
    }

    @Test func sdkViewIsTheDocumentWithoutVehicleWaypointsPlusViewAndRemainingTime() throws {
        let (trip, _) = try Self.enrouteDocuments()
        // when the SDK view is asked for 100 s before the ETA
        let view = FleetResourceViews.sdkTrip(trip, now: FleetScenario.t(36))
        let object = try #require(view.objectValue)
        let stored = try #require(trip.objectValue)
        // then it is the stored document minus vehicleWaypoints, plus the two request-time fields
        #expect(object["vehicleWaypoints"] == nil)
        #expect(object["view"] == "SDK")
        #expect(object["remainingTimeToFirstWaypoint"] == "100s")
        #expect(object.keys.filter { $0 != "view" && $0 != "remainingTimeToFirstWaypoint" } == stored.keys.filter { $0 != "vehicleWaypoints" })
        let keys = object.keys
        #expect(keys.firstIndex(of: "remainingTimeToFirstWaypoint") == keys.firstIndex(of: "etaToFirstWaypoint").map { $0 + 1 })
        #expect(keys.suffix(2) == ["view", "attributes"])
    }

    @Test func sdkViewLeavesOutSubFieldsUnchangedSinceTheGivenVersions() throws {
        let (trip, _) = try Self.enrouteDocuments()
        let segmentVersion = try #require(trip["currentRouteSegmentVersion"]?.stringValue.flatMap { Timestamp(rfc3339: $0) })
        // when the caller already has the current segment, traffic and waypoint routes
        let unchanged = FleetResourceViews.sdkTrip(trip, since: .init(
            currentRouteSegmentVersion: segmentVersion, currentRouteSegmentTrafficVersion: segmentVersion,
            remainingWaypointsRouteVersion: segmentVersion))
        // then those are left out but the waypoints themselves (with ETAs) are not
        #expect(unchanged["currentRouteSegment"] == nil)
        #expect(unchanged["route"] == nil)
        #expect(unchanged["currentRouteSegmentTraffic"] == nil)
        #expect(unchanged["remainingWaypoints"]?[0]?["pathToWaypoint"] == nil)
        #expect(unchanged["remainingWaypoints"]?[0]?["eta"] != nil)
        // and a caller one microsecond behind gets them (exclusive minimum)
        let behind = FleetResourceViews.sdkTrip(trip, since: .init(currentRouteSegmentVersion: segmentVersion.adding(microseconds: -1)))
        #expect(behind["currentRouteSegment"] == trip["currentRouteSegment"])
    }

    @Test func journeySharingViewHasOnlyWhitelistedFieldsAndNoEncodedPaths() throws {
        let (trip, _) = try Self.enrouteDocuments()
        let view = try #require(FleetResourceViews.journeySharingTrip(trip).objectValue)
        #expect(Set(view.keys).subtracting(["view"]).isSubset(of: FleetResourceViews.journeySharingTripFields))
        #expect(view["view"] == "JOURNEY_SHARING_V1S")
        for key in ["currentRouteSegment", "etaToFirstWaypoint", "remainingDistanceMeters", "currentRouteSegmentVersion", "vehicleWaypoints", "attributes"] {
            #expect(view[key] == nil, "\(key) must not be in JOURNEY_SHARING_V1S")
        }
        let first = try #require(view["remainingWaypoints"]?[0])
        #expect(first["encodedPathToWaypoint"] == nil)
        #expect(first["trafficToWaypoint"]?["encodedPathToWaypoint"] == nil)
        #expect(first["trafficToWaypoint"]?["speedReadingInterval"] != nil)
        #expect(first["pathToWaypoint"] == trip["remainingWaypoints"]?[0]?["pathToWaypoint"])
    }

    @Test func vehicleResponseDropsInputOnlyFieldsAndUnchangedWaypoints() throws {
        let (_, vehicle) = try Self.enrouteDocuments()
        #expect(vehicle["remainingTimeSeconds"] != nil)
        let waypointsVersion = try #require(vehicle["waypointsVersion"]?.stringValue.flatMap { Timestamp(rfc3339: $0) })
        let response = FleetResourceViews.vehicle(vehicle, since: .init(waypointsVersion: waypointsVersion))
        #expect(response["remainingTimeSeconds"] == nil)
        #expect(response["currentRouteSegmentTraffic"] == nil)
        #expect(response["waypoints"] == nil)
        #expect(response["currentRouteSegment"] == vehicle["currentRouteSegment"])
    }

    @Test func coordinatesAreRoundedToTenMillionthsAndWrittenExactly() {
        #expect(FleetResourceJSON.coordinate(52.52).numberValue?.lexeme == "52.52")
        #expect(FleetResourceJSON.coordinate(13.123456789).numberValue?.lexeme == "13.1234568")
        #expect(FleetResourceJSON.coordinate(-0.00000004).numberValue?.lexeme == "0")
        #expect(FleetResourceJSON.coordinate(-122.00000006).numberValue?.lexeme == "-122.0000001")
        #expect(FleetResourceJSON.duration(microseconds: 12_500_000) == "12.5s")
    }
}
