import Geo
import Journey
import Testing

/// Vehicle events and commands with fixed values.
enum VehicleFixtures {
    static func registered(_ vehicleId: String = "v-1", state: VehicleState = .online, backToBack: Bool = true) -> Vehicle.Event {
        .registered(.init(
            vehicleId: vehicleId, vehicleState: state, supportedTripTypes: [.exclusive, .shared], maximumCapacity: 4,
            vehicleType: VehicleType(category: .auto), attributes: [], backToBackEnabled: backToBack, at: Fixtures.t0))
    }

    static func register(
        _ vehicleId: String = "v-1",
        state: VehicleState = .offline,
        types: [TripType] = [.exclusive],
        capacity: Int = 4,
        category: VehicleType.Category = .taxi,
        attributes: [Attribute] = []
    ) -> Vehicle.Command {
        .registerVehicle(.init(
            vehicleId: vehicleId, vehicleState: state, supportedTripTypes: types, maximumCapacity: capacity,
            vehicleType: VehicleType(category: category), attributes: attributes), at: Fixtures.t0)
    }

    static func location(_ lat: Double = 52.52, _ lng: Double = 13.40, device: Timestamp?) -> VehicleLocation {
        VehicleLocation(location: Fixtures.point(lat, lng), updateTime: device, latlngAccuracy: 5, heading: 90, speed: 10, locationSensor: .gps)
    }

    /// Events of a vehicle serving trip `t-1` (assigned through sync).
    static func withTrip(_ trip: Trip.State) throws -> [Vehicle.Event] {
        let base = [registered()]
        return base + (try Vehicle.decide(.syncTrip(trip, at: Fixtures.t(11)), state: givenVehicle(base)))
    }
}

@Suite("Vehicle: registration and state")
struct VehicleRegistrationTests {
    @Test func registerVehicleRecordsVehicleRegistered() throws {
        let attributes = [Attribute(key: "ev", value: .bool(true))]
        let events = try Vehicle.decide(VehicleFixtures.register(types: [.exclusive, .shared], attributes: attributes), state: Vehicle.State())
        #expect(events == [.registered(.init(
            vehicleId: "v-1", vehicleState: .offline, supportedTripTypes: [.exclusive, .shared], maximumCapacity: 4,
            vehicleType: VehicleType(category: .taxi), attributes: attributes, backToBackEnabled: false, at: Fixtures.t0))])
        let state = givenVehicle(events)
        #expect(state.exists && state.vehicleState == .offline && state.currentTrips.isEmpty)
    }

    @Test func registeringAnExistingVehicleThrowsAlreadyExists() {
        expectRejection(.alreadyExists) { try Vehicle.decide(VehicleFixtures.register(), state: givenVehicle([VehicleFixtures.registered()])) }
    }

    @Test(arguments: ["", String(repeating: "v", count: 65), "v/1", "v:1", "v?1", "v,1", "v#1"])
    func registeringWithAnInvalidIdThrowsInvalidArgument(id: String) {
        expectRejection(.invalidArgument) { try Vehicle.decide(VehicleFixtures.register(id), state: Vehicle.State()) }
    }

    @Test func registeringWithoutAStateThrowsInvalidArgument() {
        expectRejection(.invalidArgument) { try Vehicle.decide(VehicleFixtures.register(state: .unknown), state: Vehicle.State()) }
    }

    @Test func registeringWithoutValidTripTypesThrowsInvalidArgument() {
        expectRejection(.invalidArgument) { try Vehicle.decide(VehicleFixtures.register(types: []), state: Vehicle.State()) }
        expectRejection(.invalidArgument) { try Vehicle.decide(VehicleFixtures.register(types: [.unknown]), state: Vehicle.State()) }
        expectRejection(.invalidArgument) { try Vehicle.decide(VehicleFixtures.register(types: [.shared, .shared]), state: Vehicle.State()) }
    }

    @Test func registeringWithZeroCapacityThrowsInvalidArgument() {
        expectRejection(.invalidArgument) { try Vehicle.decide(VehicleFixtures.register(capacity: 0), state: Vehicle.State()) }
    }

    @Test func registeringWithoutAVehicleTypeThrowsInvalidArgument() {
        expectRejection(.invalidArgument) { try Vehicle.decide(VehicleFixtures.register(category: .unknown), state: Vehicle.State()) }
    }

    @Test func registeringWithMoreThanAHundredAttributesOrDuplicateKeysThrowsInvalidArgument() throws {
        let hundred = (0..<100).map { Attribute(key: "k\($0)", value: .string("v")) }
        _ = try Vehicle.decide(VehicleFixtures.register(attributes: hundred), state: Vehicle.State())
        expectRejection(.invalidArgument) {
            try Vehicle.decide(VehicleFixtures.register(attributes: hundred + [Attribute(key: "extra", value: .bool(false))]), state: Vehicle.State())
        }
        expectRejection(.invalidArgument) {
            try Vehicle.decide(VehicleFixtures.register(attributes: [Attribute(key: "k", value: .bool(false)), Attribute(key: "k", value: .bool(true))]), state: Vehicle.State())
        }
    }

    @Test func commandsOnAnUnregisteredVehicleThrowNotFound() {
        expectRejection(.notFound) { try Vehicle.decide(.setVehicleState(.online, at: Fixtures.t(1)), state: Vehicle.State()) }
    }

    @Test func setVehicleStateRecordsTheChangeAndIgnoresRepeats() throws {
        let state = givenVehicle([VehicleFixtures.registered(state: .offline)])
        #expect(try Vehicle.decide(.setVehicleState(.online, at: Fixtures.t(1)), state: state)
            == [.stateChanged(.init(vehicleId: "v-1", from: .offline, to: .online, at: Fixtures.t(1)))])
        #expect(try Vehicle.decide(.setVehicleState(.offline, at: Fixtures.t(1)), state: state) == [])
    }

    @Test func setVehicleStateToUnknownThrowsInvalidArgument() {
        expectRejection(.invalidArgument) { try Vehicle.decide(.setVehicleState(.unknown, at: Fixtures.t(1)), state: givenVehicle([VehicleFixtures.registered()])) }
    }

    @Test func navigationStatusChangesAreRecordedOnce() throws {
        let state = givenVehicle([VehicleFixtures.registered()])
        let events = try Vehicle.decide(.setNavigationStatus(.enrouteToDestination, at: Fixtures.t(1)), state: state)
        #expect(events == [.navigationStatusChanged(.init(vehicleId: "v-1", from: .unknown, to: .enrouteToDestination, at: Fixtures.t(1)))])
        #expect(try Vehicle.decide(.setNavigationStatus(.enrouteToDestination, at: Fixtures.t(2)), state: givenVehicle([VehicleFixtures.registered()] + events)) == [])
    }

    @Test func unknownNavigationStatusThrowsInvalidArgument() {
        expectRejection(.invalidArgument) { try Vehicle.decide(.setNavigationStatus(.unknown, at: Fixtures.t(1)), state: givenVehicle([VehicleFixtures.registered()])) }
    }
}

@Suite("Vehicle: location reports")
struct VehicleLocationTests {
    let registered = givenVehicle([VehicleFixtures.registered()])

    @Test func reportLocationStampsServerTimeAndKeepsDeviceTime() throws {
        let at = Fixtures.t(100)
        let sent = VehicleFixtures.location(device: Fixtures.t(98))
        let events = try Vehicle.decide(.reportLocation(sent, at: at), state: registered)
        var stored = sent
        stored.serverTime = at
        #expect(events == [.locationReported(.init(vehicleId: "v-1", location: stored, currentTripIds: [], offRouteReportCount: 0, at: at))])
        #expect(givenVehicle([VehicleFixtures.registered()] + events).lastLocation == stored)
    }

    @Test func aMissingDeviceTimeDefaultsToServerTime() throws {
        let events = try Vehicle.decide(.reportLocation(VehicleFixtures.location(device: nil), at: Fixtures.t(100)), state: registered)
        guard case .locationReported(let reported) = events.first else { Issue.record("not reported"); return }
        #expect(reported.location.updateTime == Fixtures.t(100))
        #expect(reported.location.serverTime == Fixtures.t(100))
    }

    @Test func fleetEngineLocationSensorIsRejected() {
        var location = VehicleFixtures.location(device: Fixtures.t(99))
        location.locationSensor = .fleetEngineLocation
        expectRejection(.invalidArgument) { try Vehicle.decide(.reportLocation(location, at: Fixtures.t(100)), state: registered) }
    }

    @Test(arguments: [360.0, -1, .nan, 720])
    func headingOutsideZeroTo360IsRejected(heading: Double) {
        var location = VehicleFixtures.location(device: Fixtures.t(99))
        location.heading = heading
        expectRejection(.invalidArgument) { try Vehicle.decide(.reportLocation(location, at: Fixtures.t(100)), state: registered) }
    }

    @Test func headingJustBelow360IsAccepted() throws {
        var location = VehicleFixtures.location(device: Fixtures.t(99))
        location.heading = 359.9
        #expect(try Vehicle.decide(.reportLocation(location, at: Fixtures.t(100)), state: registered).count == 1)
    }

    @Test func negativeAccuracyOrSpeedIsRejected() {
        var a = VehicleFixtures.location(device: Fixtures.t(99))
        a.latlngAccuracy = -1
        expectRejection(.invalidArgument) { try Vehicle.decide(.reportLocation(a, at: Fixtures.t(100)), state: registered) }
        var s = VehicleFixtures.location(device: Fixtures.t(99))
        s.speed = -3
        expectRejection(.invalidArgument) { try Vehicle.decide(.reportLocation(s, at: Fixtures.t(100)), state: registered) }
    }

    @Test func aReportWithNoLocationAtAllIsRejected() {
        expectRejection(.invalidArgument) { try Vehicle.decide(.reportLocation(nil, pastLocations: [], at: Fixtures.t(100)), state: registered) }
    }

    @Test func anOlderReportIsRecordedAsStaleAndDoesNotMoveTheVehicleBack() throws {
        let first = try Vehicle.decide(.reportLocation(VehicleFixtures.location(52.53, 13.41, device: Fixtures.t(100)), at: Fixtures.t(101)), state: registered)
        let state = givenVehicle([VehicleFixtures.registered()] + first)
        let late = VehicleFixtures.location(52.52, 13.40, device: Fixtures.t(90))
        let events = try Vehicle.decide(.reportLocation(late, at: Fixtures.t(102)), state: state)
        var stored = late
        stored.serverTime = Fixtures.t(102)
        #expect(events == [.staleLocationRecorded(.init(vehicleId: "v-1", location: stored, lastAcceptedUpdateTime: Fixtures.t(100), at: Fixtures.t(102)))])
        #expect(givenVehicle([VehicleFixtures.registered()] + first + events).lastLocation == state.lastLocation)
    }

    @Test func aDeviceTimeMoreThanFiveMinutesAheadIsRejected() throws {
        expectRejection(.invalidArgument) {
            try Vehicle.decide(.reportLocation(VehicleFixtures.location(device: Fixtures.t(400.001)), at: Fixtures.t(100)), state: registered)
        }
        #expect(try Vehicle.decide(.reportLocation(VehicleFixtures.location(device: Fixtures.t(400)), at: Fixtures.t(100)), state: registered).count == 1)
    }

    @Test func anOfflineBacklogIsRecordedInDeviceTimeOrderWithoutMovingTheVehicle() throws {
        let first = try Vehicle.decide(.reportLocation(VehicleFixtures.location(52.60, 13.50, device: Fixtures.t(500)), at: Fixtures.t(500)), state: registered)
        let state = givenVehicle([VehicleFixtures.registered()] + first)
        let backlog = [
            VehicleFixtures.location(52.53, 13.43, device: Fixtures.t(30)),
            VehicleFixtures.location(52.51, 13.41, device: Fixtures.t(10)),
            VehicleFixtures.location(52.52, 13.42, device: Fixtures.t(20)),
        ]
        let events = try Vehicle.decide(.reportLocation(nil, pastLocations: backlog, at: Fixtures.t(600)), state: state)
        guard case .locationHistoryRecorded(let history) = events.first, events.count == 1 else { Issue.record("expected one history event, got \(events)"); return }
        #expect(history.locations.map(\.updateTime) == [Fixtures.t(10), Fixtures.t(20), Fixtures.t(30)])
        #expect(history.locations.allSatisfy { $0.serverTime == Fixtures.t(600) })
        #expect(givenVehicle([VehicleFixtures.registered()] + first + events).lastLocation == state.lastLocation)
    }

    @Test func aBacklogWithALiveLocationRecordsBoth() throws {
        let backlog = [VehicleFixtures.location(52.51, 13.41, device: Fixtures.t(10))]
        let events = try Vehicle.decide(.reportLocation(VehicleFixtures.location(device: Fixtures.t(60)), pastLocations: backlog, at: Fixtures.t(60)), state: registered)
        #expect(events.map(\.type) == [Vehicle.Event.vehicleLocationHistoryRecorded, Vehicle.Event.vehicleLocationReported])
    }

    @Test func aBacklogEntryFromTheFarFutureIsRejected() {
        let backlog = [VehicleFixtures.location(device: Fixtures.t(10_000))]
        expectRejection(.invalidArgument) { try Vehicle.decide(.reportLocation(nil, pastLocations: backlog, at: Fixtures.t(60)), state: registered) }
    }
}

@Suite("Vehicle: route segment, ETA")
struct VehicleRouteSegmentTests {
    let registered = givenVehicle([VehicleFixtures.registered()])

    @Test func routeSegmentUpdatedCarriesPathTrafficAndEndPoint() throws {
        let traffic = [TrafficSpeedInterval(startIndex: 0, endIndex: 1, speed: .normal), TrafficSpeedInterval(startIndex: 1, endIndex: 3, speed: .trafficJam)]
        let end = TripWaypoint(tripId: "t-1", waypointType: .pickup, location: Fixtures.pickup)
        let events = try Vehicle.decide(.updateRouteSegment(encodedPath: Fixtures.eastPolyline, traffic: traffic, endPoint: end, at: Fixtures.t(5)), state: registered)
        #expect(events == [.routeSegmentUpdated(.init(
            vehicleId: "v-1", encodedPath: Fixtures.eastPolyline, traffic: traffic, endPoint: end, currentTripIds: [], at: Fixtures.t(5)))])
        #expect(givenVehicle([VehicleFixtures.registered()] + events).currentRouteSegmentVersion == Fixtures.t(5))
    }

    @Test func anUndecodableRouteSegmentIsRejected() {
        expectRejection(.invalidArgument) { try Vehicle.decide(.updateRouteSegment(encodedPath: "_p~iF~ps|U_", at: Fixtures.t(5)), state: registered) }
    }

    @Test func aRouteSegmentMayHoldAtMostTheLimitsPoints() throws {
        func path(_ count: Int) -> String {
            Polyline.encode((0..<count).map { Fixtures.point(52.5 + Double($0) * 0.00001, 13.4) })
        }
        let accepted = try Vehicle.decide(.updateRouteSegment(encodedPath: path(PathLimit.maximumPoints), at: Fixtures.t(5)), state: registered)
        #expect(accepted.count == 1)
        do {
            _ = try Vehicle.decide(.updateRouteSegment(encodedPath: path(PathLimit.maximumPoints + 1), at: Fixtures.t(5)), state: registered)
            Issue.record("a segment past the limit was accepted")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("at most 10000 points (got 10001)"), "\(error.message)")
        }
    }

    @Test func trafficOutsideThePathOrOverlappingIsRejected() {
        let outside = [TrafficSpeedInterval(startIndex: 0, endIndex: 4, speed: .slow)]
        expectRejection(.invalidArgument) { try Vehicle.decide(.updateRouteSegment(encodedPath: Fixtures.eastPolyline, traffic: outside, at: Fixtures.t(5)), state: registered) }
        let overlapping = [TrafficSpeedInterval(startIndex: 0, endIndex: 2, speed: .slow), TrafficSpeedInterval(startIndex: 1, endIndex: 3, speed: .normal)]
        expectRejection(.invalidArgument) { try Vehicle.decide(.updateRouteSegment(encodedPath: Fixtures.eastPolyline, traffic: overlapping, at: Fixtures.t(5)), state: registered) }
    }

    @Test func remainingTimeWinsOverAnEtaInTheSameReport() throws {
        let events = try Vehicle.decide(.reportRemainingRoute(remainingDistanceMeters: 1200, etaToFirstWaypoint: Fixtures.t(9999), remainingTimeSeconds: 180, at: Fixtures.t(100)), state: registered)
        #expect(events == [.remainingRouteReported(.init(
            vehicleId: "v-1", remainingDistanceMeters: 1200, etaToFirstWaypoint: Fixtures.t(280), remainingTimeSeconds: 180, currentTripIds: [], at: Fixtures.t(100)))])
    }

    @Test func anEtaAloneIsKept() throws {
        let events = try Vehicle.decide(.reportRemainingRoute(remainingDistanceMeters: nil, etaToFirstWaypoint: Fixtures.t(400), remainingTimeSeconds: nil, at: Fixtures.t(100)), state: registered)
        guard case .remainingRouteReported(let r) = events.first else { Issue.record("no report"); return }
        #expect(r.etaToFirstWaypoint == Fixtures.t(400))
    }

    @Test func anEmptyOrNegativeRemainingReportIsRejected() {
        expectRejection(.invalidArgument) { try Vehicle.decide(.reportRemainingRoute(remainingDistanceMeters: nil, etaToFirstWaypoint: nil, remainingTimeSeconds: nil, at: Fixtures.t(1)), state: registered) }
        expectRejection(.invalidArgument) { try Vehicle.decide(.reportRemainingRoute(remainingDistanceMeters: -1, etaToFirstWaypoint: nil, remainingTimeSeconds: nil, at: Fixtures.t(1)), state: registered) }
        expectRejection(.invalidArgument) { try Vehicle.decide(.reportRemainingRoute(remainingDistanceMeters: nil, etaToFirstWaypoint: nil, remainingTimeSeconds: -5, at: Fixtures.t(1)), state: registered) }
    }
}

@Suite("Vehicle: trips and waypoints")
struct VehicleWaypointTests {
    static func trip(_ id: String, type: TripType = .exclusive, intermediates: [TerminalLocation] = [], vehicle: String = "v-1") -> Trip.State {
        let created = TripFixtures.created(id, type: type, intermediates: intermediates)
        return givenTrip([created, TripFixtures.assigned(givenTrip([created]), vehicleId: vehicle)])
    }

    static func wp(_ trip: String, _ type: WaypointType, _ location: TerminalLocation) -> TripWaypoint {
        TripWaypoint(tripId: trip, waypointType: type, location: location)
    }

    @Test func syncingAnAssignedTripAppendsItsWaypoints() throws {
        let trip = Self.trip("t-1", intermediates: [Fixtures.stop1])
        let events = try Vehicle.decide(.syncTrip(trip, at: Fixtures.t(11)), state: givenVehicle([VehicleFixtures.registered()]))
        #expect(events == [.tripAssigned(.init(
            vehicleId: "v-1", tripId: "t-1", tripType: .exclusive, numberOfPassengers: 1,
            waypoints: [Self.wp("t-1", .pickup, Fixtures.pickup), Self.wp("t-1", .intermediateDestination, Fixtures.stop1), Self.wp("t-1", .dropOff, Fixtures.dropoff)],
            at: Fixtures.t(11)))])
        #expect(givenVehicle([VehicleFixtures.registered()] + events).currentTripIds == ["t-1"])
    }

    @Test func aBackToBackTripsWaypointsComeAfterTheCurrentTrips() throws {
        var events = try VehicleFixtures.withTrip(Self.trip("t-1"))
        events += try Vehicle.decide(.syncTrip(Self.trip("t-2"), at: Fixtures.t(12)), state: givenVehicle(events))
        #expect(givenVehicle(events).waypoints.map(\.tripId) == ["t-1", "t-1", "t-2", "t-2"])
    }

    @Test func progressRemovesReachedWaypointsAndCompletionReleasesTheTrip() throws {
        var tripEvents = [TripFixtures.created(intermediates: [Fixtures.stop1])]
        tripEvents.append(TripFixtures.assigned(givenTrip(tripEvents)))
        var events = try VehicleFixtures.withTrip(givenTrip(tripEvents))
        tripEvents.append(TripFixtures.status(.new, .arrivedAtPickup, at: Fixtures.t(20)))
        #expect(try Vehicle.decide(.syncTrip(givenTrip(tripEvents), at: Fixtures.t(20)), state: givenVehicle(events)) == [])
        tripEvents.append(TripFixtures.status(.arrivedAtPickup, .enrouteToIntermediateDestination, index: 0, at: Fixtures.t(30)))
        let progressed = try Vehicle.decide(.syncTrip(givenTrip(tripEvents), at: Fixtures.t(30)), state: givenVehicle(events))
        #expect(progressed == [.tripWaypointsUpdated(.init(
            vehicleId: "v-1", tripId: "t-1", tripStatus: .enrouteToIntermediateDestination,
            waypoints: [Self.wp("t-1", .intermediateDestination, Fixtures.stop1), Self.wp("t-1", .dropOff, Fixtures.dropoff)], at: Fixtures.t(30)))])
        events += progressed
        tripEvents.append(.completed(.init(tripId: "t-1", vehicleId: "v-1", from: .enrouteToIntermediateDestination, at: Fixtures.t(40))))
        let released = try Vehicle.decide(.syncTrip(givenTrip(tripEvents), at: Fixtures.t(40)), state: givenVehicle(events))
        #expect(released == [.tripReleased(.init(vehicleId: "v-1", tripId: "t-1", reason: .completed, waypoints: [], at: Fixtures.t(40)))])
        #expect(givenVehicle(events + released).currentTrips.isEmpty)
    }

    @Test func unassignmentAndCancelationReleaseWithTheirReason() throws {
        let events = try VehicleFixtures.withTrip(Self.trip("t-1"))
        var unassigned = Self.trip("t-1")
        unassigned.vehicleId = nil
        guard case .tripReleased(let r1) = try Vehicle.decide(.syncTrip(unassigned, at: Fixtures.t(20)), state: givenVehicle(events)).first else { Issue.record("no release"); return }
        #expect(r1.reason == .unassigned)
        var canceled = Self.trip("t-1")
        canceled.status = .canceled
        guard case .tripReleased(let r2) = try Vehicle.decide(.syncTrip(canceled, at: Fixtures.t(20)), state: givenVehicle(events)).first else { Issue.record("no release"); return }
        #expect(r2.reason == .canceled)
    }

    @Test func syncingATripOfAnotherVehicleDoesNothing() throws {
        #expect(try Vehicle.decide(.syncTrip(Self.trip("t-1", vehicle: "v-2"), at: Fixtures.t(11)), state: givenVehicle([VehicleFixtures.registered()])) == [])
    }

    @Test func syncingAMissingTripThrowsNotFound() {
        expectRejection(.notFound) { try Vehicle.decide(.syncTrip(Trip.State(), at: Fixtures.t(11)), state: givenVehicle([VehicleFixtures.registered()])) }
    }

    @Test func reorderingToAPermutationRecordsTheNewOrder() throws {
        var events = try VehicleFixtures.withTrip(Self.trip("t-1", type: .shared))
        events += try Vehicle.decide(.syncTrip(Self.trip("t-2", type: .shared), at: Fixtures.t(12)), state: givenVehicle(events))
        let order = [Self.wp("t-1", .pickup, Fixtures.pickup), Self.wp("t-2", .pickup, Fixtures.pickup), Self.wp("t-1", .dropOff, Fixtures.dropoff), Self.wp("t-2", .dropOff, Fixtures.dropoff)]
        let produced = try Vehicle.decide(.reorderWaypoints(order, at: Fixtures.t(13)), state: givenVehicle(events))
        #expect(produced == [.waypointsReordered(.init(vehicleId: "v-1", waypoints: order, at: Fixtures.t(13)))])
        #expect(try Vehicle.decide(.reorderWaypoints(order, at: Fixtures.t(14)), state: givenVehicle(events + produced)) == [])
    }

    @Test func reorderingToSomethingOtherThanAPermutationIsRejected() throws {
        let state = givenVehicle(try VehicleFixtures.withTrip(Self.trip("t-1")))
        expectRejection(.invalidArgument) { try Vehicle.decide(.reorderWaypoints([Self.wp("t-1", .pickup, Fixtures.pickup)], at: Fixtures.t(13)), state: state) }
        expectRejection(.invalidArgument) {
            try Vehicle.decide(.reorderWaypoints(state.waypoints + [Self.wp("t-9", .pickup, Fixtures.pickup)], at: Fixtures.t(13)), state: state)
        }
    }

    @Test func reorderingADropoffBeforeItsPickupIsRejected() throws {
        let state = givenVehicle(try VehicleFixtures.withTrip(Self.trip("t-1")))
        expectRejection(.invalidArgument) { try Vehicle.decide(.reorderWaypoints(state.waypoints.reversed(), at: Fixtures.t(13)), state: state) }
    }

    @Test func interleavingAnExclusiveTripIsRejected() throws {
        var events = try VehicleFixtures.withTrip(Self.trip("t-1"))
        events += try Vehicle.decide(.syncTrip(Self.trip("t-2"), at: Fixtures.t(12)), state: givenVehicle(events))
        let order = [Self.wp("t-1", .pickup, Fixtures.pickup), Self.wp("t-2", .pickup, Fixtures.pickup), Self.wp("t-1", .dropOff, Fixtures.dropoff), Self.wp("t-2", .dropOff, Fixtures.dropoff)]
        expectRejection(.invalidArgument) { try Vehicle.decide(.reorderWaypoints(order, at: Fixtures.t(13)), state: givenVehicle(events)) }
    }
}
