import Geo
import Journey
import Testing

@Suite("Trip: create")
struct TripCreateTests {
    let t0 = Fixtures.t0

    @Test func createTripRecordsTripCreatedInStatusNew() throws {
        let command = Trip.Command.createTrip(.init(
            tripId: "t-1", tripType: .exclusive, pickup: Fixtures.pickup, dropoff: Fixtures.dropoff,
            intermediateDestinations: [Fixtures.stop1], numberOfPassengers: 2,
            attributes: [Attribute(key: "fare", value: .string("flat"))]), at: t0)
        let events = try Trip.decide(command, state: Trip.State())
        #expect(events == [.created(.init(
            tripId: "t-1", tripType: .exclusive, pickup: Fixtures.pickup, dropoff: Fixtures.dropoff,
            intermediateDestinations: [Fixtures.stop1], intermediateDestinationsVersion: t0, numberOfPassengers: 2,
            attributes: [Attribute(key: "fare", value: .string("flat"))], at: t0))])
        let state = givenTrip(events)
        #expect(state.status == .new)
        #expect(state.vehicleId == nil)
        #expect(state.remainingWaypoints.map(\.waypointType) == [.pickup, .intermediateDestination, .dropOff])
    }

    @Test func createTripWithoutDropoffIsAcceptedAndDropoffCanBeSetLater() throws {
        let events = try Trip.decide(.createTrip(.init(tripId: "t-1", tripType: .shared, pickup: Fixtures.pickup), at: t0), state: Trip.State())
        let state = givenTrip(events)
        #expect(state.dropoff == nil)
        #expect(state.remainingWaypoints.count == 1)
        let set = try Trip.decide(.setDropoffPoint(Fixtures.dropoff, at: Fixtures.t(5)), state: state)
        #expect(set == [.dropoffPointSet(.init(tripId: "t-1", dropoff: Fixtures.dropoff, at: Fixtures.t(5)))])
        #expect(givenTrip(events + set).remainingWaypoints.count == 2)
    }

    @Test func createTripWithExistingIdThrowsAlreadyExists() {
        let state = givenTrip([TripFixtures.created()])
        expectRejection(.alreadyExists) {
            try Trip.decide(.createTrip(.init(tripId: "t-1", tripType: .exclusive, pickup: Fixtures.pickup), at: t0), state: state)
        }
    }

    @Test(arguments: ["", String(repeating: "a", count: 65), "a/b", "a:b", "a?b", "a,b", "a#b"])
    func createTripWithInvalidIdThrowsInvalidArgument(id: String) {
        expectRejection(.invalidArgument) {
            try Trip.decide(.createTrip(.init(tripId: id, tripType: .exclusive, pickup: Fixtures.pickup), at: t0), state: Trip.State())
        }
    }

    @Test func createTripWithSixtyFourCharacterIdIsAccepted() throws {
        let id = String(repeating: "a", count: 64)
        let events = try Trip.decide(.createTrip(.init(tripId: id, tripType: .exclusive, pickup: Fixtures.pickup), at: t0), state: Trip.State())
        #expect(events.count == 1)
    }

    @Test func createTripWithoutTripTypeThrowsInvalidArgument() {
        expectRejection(.invalidArgument) {
            try Trip.decide(.createTrip(.init(tripId: "t-1", tripType: .unknown, pickup: Fixtures.pickup), at: t0), state: Trip.State())
        }
    }

    @Test func createTripWithoutPickupThrowsInvalidArgument() {
        expectRejection(.invalidArgument) {
            try Trip.decide(.createTrip(.init(tripId: "t-1", tripType: .exclusive, pickup: nil), at: t0), state: Trip.State())
        }
    }

    @Test func createTripWithTwentyFiveIntermediatesIsAcceptedAndTwentySixIsRejected() throws {
        let ok = Array(repeating: Fixtures.stop1, count: 25)
        _ = try Trip.decide(.createTrip(.init(tripId: "t-1", tripType: .exclusive, pickup: Fixtures.pickup, intermediateDestinations: ok), at: t0), state: Trip.State())
        expectRejection(.invalidArgument) {
            try Trip.decide(.createTrip(.init(tripId: "t-1", tripType: .exclusive, pickup: Fixtures.pickup, intermediateDestinations: ok + [Fixtures.stop2]), at: t0), state: Trip.State())
        }
    }

    @Test func createSharedTripWithIntermediatesThrowsInvalidArgument() {
        expectRejection(.invalidArgument) {
            try Trip.decide(.createTrip(.init(tripId: "t-1", tripType: .shared, pickup: Fixtures.pickup, intermediateDestinations: [Fixtures.stop1]), at: t0), state: Trip.State())
        }
    }

    @Test func createTripWithZeroPassengersThrowsInvalidArgument() {
        expectRejection(.invalidArgument) {
            try Trip.decide(.createTrip(.init(tripId: "t-1", tripType: .exclusive, pickup: Fixtures.pickup, numberOfPassengers: 0), at: t0), state: Trip.State())
        }
    }

    @Test func createTripWithDuplicateAttributeKeysThrowsInvalidArgument() {
        let attributes = [Attribute(key: "k", value: .bool(true)), Attribute(key: "k", value: .number(1))]
        expectRejection(.invalidArgument) {
            try Trip.decide(.createTrip(.init(tripId: "t-1", tripType: .exclusive, pickup: Fixtures.pickup, attributes: attributes), at: t0), state: Trip.State())
        }
    }

    @Test func commandOnMissingTripThrowsNotFound() {
        expectRejection(.notFound) { try Trip.decide(.cancelTrip(at: t0), state: Trip.State()) }
    }
}

@Suite("Trip: vehicle assignment")
struct TripAssignmentTests {
    let at = Fixtures.t(10)
    let created = givenTrip([TripFixtures.created()])

    @Test func assignVehicleRecordsAssignmentWithTheTripsWaypoints() throws {
        let events = try Trip.decide(.assignVehicle(vehicleId: "v-1", vehicle: TripFixtures.vehicle(), at: at), state: created)
        #expect(events == [.vehicleAssigned(.init(
            tripId: "t-1", vehicleId: "v-1", tripType: .exclusive, status: .new, numberOfPassengers: 1,
            waypoints: [
                TripWaypoint(tripId: "t-1", waypointType: .pickup, location: Fixtures.pickup),
                TripWaypoint(tripId: "t-1", waypointType: .dropOff, location: Fixtures.dropoff),
            ],
            backToBack: false, at: at))])
        #expect(givenTrip([TripFixtures.created()] + events).vehicleId == "v-1")
    }

    @Test func assigningTheSameVehicleAgainIsANoOp() throws {
        let state = givenTrip(TripFixtures.assignedTrip())
        #expect(try Trip.decide(.assignVehicle(vehicleId: "v-1", vehicle: TripFixtures.vehicle(), at: at), state: state) == [])
    }

    @Test func assigningAnotherVehicleWhileAssignedThrowsFailedPrecondition() {
        let state = givenTrip(TripFixtures.assignedTrip())
        expectRejection(.failedPrecondition) {
            try Trip.decide(.assignVehicle(vehicleId: "v-2", vehicle: TripFixtures.vehicle("v-2"), at: at), state: state)
        }
    }

    @Test func assigningAMissingVehicleThrowsNotFound() {
        expectRejection(.notFound) { try Trip.decide(.assignVehicle(vehicleId: "v-1", vehicle: nil, at: at), state: created) }
        expectRejection(.notFound) { try Trip.decide(.assignVehicle(vehicleId: "v-1", vehicle: Vehicle.State(), at: at), state: created) }
    }

    @Test func assigningWithAnInvalidVehicleIdThrowsInvalidArgument() {
        expectRejection(.invalidArgument) { try Trip.decide(.assignVehicle(vehicleId: "v/1", vehicle: nil, at: at), state: created) }
    }

    @Test func assigningAnOfflineVehicleThrowsFailedPrecondition() {
        expectRejection(.failedPrecondition) {
            try Trip.decide(.assignVehicle(vehicleId: "v-1", vehicle: TripFixtures.vehicle(state: .offline), at: at), state: created)
        }
    }

    @Test func assigningAVehicleThatDoesNotSupportTheTripTypeThrowsFailedPrecondition() {
        expectRejection(.failedPrecondition) {
            try Trip.decide(.assignVehicle(vehicleId: "v-1", vehicle: TripFixtures.vehicle(types: [.shared]), at: at), state: created)
        }
    }

    @Test func assigningAVehicleWithTooLittleCapacityThrowsFailedPrecondition() {
        let state = givenTrip([TripFixtures.created(passengers: 3)])
        expectRejection(.failedPrecondition) {
            try Trip.decide(.assignVehicle(vehicleId: "v-1", vehicle: TripFixtures.vehicle(capacity: 2), at: at), state: state)
        }
    }

    @Test func backToBackAssignmentNeedsBackToBackEnabled() throws {
        let busy = [Vehicle.CurrentTrip(tripId: "t-0", tripType: .exclusive, numberOfPassengers: 1)]
        expectRejection(.failedPrecondition) {
            try Trip.decide(.assignVehicle(vehicleId: "v-1", vehicle: TripFixtures.vehicle(backToBack: false, currentTrips: busy), at: at), state: created)
        }
        let events = try Trip.decide(.assignVehicle(vehicleId: "v-1", vehicle: TripFixtures.vehicle(backToBack: true, currentTrips: busy), at: at), state: created)
        guard case .vehicleAssigned(let assigned) = events.first else { Issue.record("expected an assignment"); return }
        #expect(assigned.backToBack)
    }

    @Test func backToBackAssignmentWithTwoCurrentTripsThrowsFailedPrecondition() {
        let busy = [
            Vehicle.CurrentTrip(tripId: "t-0", tripType: .exclusive, numberOfPassengers: 1),
            Vehicle.CurrentTrip(tripId: "t-9", tripType: .exclusive, numberOfPassengers: 1),
        ]
        expectRejection(.failedPrecondition) {
            try Trip.decide(.assignVehicle(vehicleId: "v-1", vehicle: TripFixtures.vehicle(backToBack: true, currentTrips: busy), at: at), state: created)
        }
    }

    @Test func pooledSharedTripsShareCapacity() throws {
        let shared = givenTrip([TripFixtures.created(type: .shared, passengers: 2)])
        let pool = [Vehicle.CurrentTrip(tripId: "t-0", tripType: .shared, numberOfPassengers: 2)]
        let events = try Trip.decide(.assignVehicle(vehicleId: "v-1", vehicle: TripFixtures.vehicle(capacity: 4, currentTrips: pool), at: at), state: shared)
        #expect(events.count == 1)
        expectRejection(.failedPrecondition) {
            try Trip.decide(.assignVehicle(vehicleId: "v-1", vehicle: TripFixtures.vehicle(capacity: 3, currentTrips: pool), at: at), state: shared)
        }
    }

    @Test func assigningATerminalTripThrowsFailedPrecondition() {
        let state = givenTrip([TripFixtures.created(), .canceled(.init(tripId: "t-1", from: .new, at: at))])
        expectRejection(.failedPrecondition) {
            try Trip.decide(.assignVehicle(vehicleId: "v-1", vehicle: TripFixtures.vehicle(), at: at), state: state)
        }
    }

    @Test func unassignVehicleRecordsUnassignment() throws {
        let state = givenTrip(TripFixtures.assignedTrip())
        let events = try Trip.decide(.unassignVehicle(at: Fixtures.t(20)), state: state)
        #expect(events == [.vehicleUnassigned(.init(tripId: "t-1", vehicleId: "v-1", status: .new, at: Fixtures.t(20)))])
        #expect(givenTrip(TripFixtures.assignedTrip() + events).vehicleId == nil)
    }

    @Test func unassignWithoutVehicleThrowsFailedPrecondition() {
        expectRejection(.failedPrecondition) { try Trip.decide(.unassignVehicle(at: at), state: created) }
    }
}

@Suite("Trip: status transitions")
struct TripStatusTests {
    @Test func happyPathWithAnIntermediateStopEndsInTripCompleted() throws {
        var events = TripFixtures.assignedTrip(intermediates: [Fixtures.stop1])
        let version = givenTrip(events).intermediateDestinationsVersion
        let steps: [(Trip.Command, Trip.Event)] = [
            (.updateTripStatus(.enrouteToPickup, at: Fixtures.t(20)), TripFixtures.status(.new, .enrouteToPickup, at: Fixtures.t(20))),
            (.updateTripStatus(.arrivedAtPickup, at: Fixtures.t(30)), TripFixtures.status(.enrouteToPickup, .arrivedAtPickup, at: Fixtures.t(30))),
            (.updateTripStatus(.enrouteToIntermediateDestination, intermediateDestinationIndex: 0, intermediateDestinationsVersion: version, at: Fixtures.t(40)),
             TripFixtures.status(.arrivedAtPickup, .enrouteToIntermediateDestination, index: 0, at: Fixtures.t(40))),
            (.updateTripStatus(.arrivedAtIntermediateDestination, intermediateDestinationIndex: 0, at: Fixtures.t(50)),
             TripFixtures.status(.enrouteToIntermediateDestination, .arrivedAtIntermediateDestination, index: 0, at: Fixtures.t(50))),
            (.updateTripStatus(.enrouteToDropoff, at: Fixtures.t(60)), TripFixtures.status(.arrivedAtIntermediateDestination, .enrouteToDropoff, at: Fixtures.t(60))),
            (.updateTripStatus(.complete, at: Fixtures.t(70)), .completed(.init(tripId: "t-1", vehicleId: "v-1", from: .enrouteToDropoff, at: Fixtures.t(70)))),
        ]
        for (command, expected) in steps {
            let produced = try Trip.decide(command, state: givenTrip(events))
            #expect(produced == [expected])
            events += produced
        }
        let final = givenTrip(events)
        #expect(final.status == .complete)
        #expect(final.remainingWaypoints.isEmpty)
    }

    @Test func forwardSkipFromNewToEnrouteToDropoffIsAllowed() throws {
        let events = try Trip.decide(.updateTripStatus(.enrouteToDropoff, at: Fixtures.t(20)), state: givenTrip(TripFixtures.assignedTrip()))
        #expect(events == [TripFixtures.status(.new, .enrouteToDropoff, at: Fixtures.t(20))])
    }

    /// Moves back or sideways; the same status is a no-op instead (`theStatusTheTripAlreadyHasIsANoOp`).
    static let backwardMoves: [(TripStatus, TripStatus)] = [
        (.enrouteToPickup, .new),
        (.arrivedAtPickup, .enrouteToPickup),
        (.arrivedAtPickup, .new),
        (.enrouteToDropoff, .arrivedAtPickup),
        (.enrouteToDropoff, .enrouteToPickup),
        (.enrouteToDropoff, .enrouteToIntermediateDestination),
        (.enrouteToIntermediateDestination, .enrouteToPickup),
        (.arrivedAtIntermediateDestination, .arrivedAtPickup),
        (.arrivedAtPickup, .complete),
    ]

    @Test(arguments: TripStatusTests.backwardMoves)
    func backwardOrIllegalMoveThrowsFailedPrecondition(from: TripStatus, to: TripStatus) {
        var state = givenTrip(TripFixtures.assignedTrip(intermediates: [Fixtures.stop1, Fixtures.stop2]))
        state.status = from
        expectRejection(.failedPrecondition) {
            try Trip.decide(.updateTripStatus(to, intermediateDestinationIndex: 1, intermediateDestinationsVersion: state.intermediateDestinationsVersion, at: Fixtures.t(20)), state: state)
        }
    }

    @Test(arguments: [TripStatus.complete, .canceled], [TripStatus.new, .enrouteToPickup, .enrouteToDropoff, .complete, .canceled])
    func leavingATerminalStatusThrowsFailedPrecondition(terminal: TripStatus, to: TripStatus) throws {
        guard to != terminal else { return }  // the same status is a no-op (below)
        var state = givenTrip(TripFixtures.assignedTrip())
        state.status = terminal
        expectRejection(.failedPrecondition) { try Trip.decide(.updateTripStatus(to, at: Fixtures.t(20)), state: state) }
    }

    @Test(arguments: [TripStatus.new, .enrouteToPickup, .arrivedAtPickup, .enrouteToDropoff, .complete, .canceled])
    func theStatusTheTripAlreadyHasIsANoOp(status: TripStatus) throws {
        var state = givenTrip(TripFixtures.assignedTrip())
        state.status = status
        #expect(try Trip.decide(.updateTripStatus(status, at: Fixtures.t(20)), state: state) == [])
    }

    @Test func theSameIntermediateStatusAtAnotherStopIsJudgedAsAMove() throws {
        var state = givenTrip(TripFixtures.assignedTrip(intermediates: [Fixtures.stop1, Fixtures.stop2]))
        state.status = .arrivedAtIntermediateDestination
        state.intermediateDestinationIndex = 1
        #expect(try Trip.decide(.updateTripStatus(.arrivedAtIntermediateDestination, intermediateDestinationIndex: 1, at: Fixtures.t(20)), state: state) == [])
        expectRejection(.failedPrecondition) {
            try Trip.decide(.updateTripStatus(.arrivedAtIntermediateDestination, intermediateDestinationIndex: 0, at: Fixtures.t(20)), state: state)
        }
    }

    @Test func unknownStatusThrowsInvalidArgument() {
        expectRejection(.invalidArgument) {
            try Trip.decide(.updateTripStatus(.unknown, at: Fixtures.t(20)), state: givenTrip(TripFixtures.assignedTrip()))
        }
    }

    @Test func movingWithoutAVehicleThrowsFailedPrecondition() {
        expectRejection(.failedPrecondition) {
            try Trip.decide(.updateTripStatus(.enrouteToPickup, at: Fixtures.t(20)), state: givenTrip([TripFixtures.created()]))
        }
    }

    @Test func cancelingThroughStatusRecordsTripCanceledEvenWithoutVehicle() throws {
        let events = try Trip.decide(.updateTripStatus(.canceled, at: Fixtures.t(20)), state: givenTrip([TripFixtures.created()]))
        #expect(events == [.canceled(.init(tripId: "t-1", vehicleId: nil, from: .new, at: Fixtures.t(20)))])
    }

    @Test func intermediateStatusOnATripWithoutIntermediatesThrowsFailedPrecondition() {
        var state = givenTrip(TripFixtures.assignedTrip())
        state.status = .arrivedAtPickup
        expectRejection(.failedPrecondition) {
            try Trip.decide(.updateTripStatus(.enrouteToIntermediateDestination, intermediateDestinationIndex: 0, intermediateDestinationsVersion: state.intermediateDestinationsVersion, at: Fixtures.t(20)), state: state)
        }
    }

    @Test func intermediateIndexOutOfRangeThrowsInvalidArgument() {
        var state = givenTrip(TripFixtures.assignedTrip(intermediates: [Fixtures.stop1]))
        state.status = .arrivedAtPickup
        expectRejection(.invalidArgument) {
            try Trip.decide(.updateTripStatus(.enrouteToIntermediateDestination, intermediateDestinationIndex: 1, intermediateDestinationsVersion: state.intermediateDestinationsVersion, at: Fixtures.t(20)), state: state)
        }
    }

    @Test func enrouteToIntermediateWithoutVersionThrowsInvalidArgument() {
        var state = givenTrip(TripFixtures.assignedTrip(intermediates: [Fixtures.stop1]))
        state.status = .arrivedAtPickup
        expectRejection(.invalidArgument) {
            try Trip.decide(.updateTripStatus(.enrouteToIntermediateDestination, intermediateDestinationIndex: 0, at: Fixtures.t(20)), state: state)
        }
    }

    @Test func enrouteToIntermediateWithStaleVersionThrowsAborted() {
        var state = givenTrip(TripFixtures.assignedTrip(intermediates: [Fixtures.stop1]))
        state.status = .arrivedAtPickup
        expectRejection(.aborted) {
            try Trip.decide(.updateTripStatus(.enrouteToIntermediateDestination, intermediateDestinationIndex: 0, intermediateDestinationsVersion: Fixtures.t(-1), at: Fixtures.t(20)), state: state)
        }
    }

    @Test func intermediateIndexMovingBackwardAfterArrivalThrowsFailedPrecondition() {
        var state = givenTrip(TripFixtures.assignedTrip(intermediates: [Fixtures.stop1, Fixtures.stop2]))
        state.status = .arrivedAtIntermediateDestination
        state.intermediateDestinationIndex = 1
        expectRejection(.failedPrecondition) {
            try Trip.decide(.updateTripStatus(.enrouteToIntermediateDestination, intermediateDestinationIndex: 0, intermediateDestinationsVersion: state.intermediateDestinationsVersion, at: Fixtures.t(20)), state: state)
        }
    }

    @Test func arrivalAtAnEarlierIntermediateThanTheOneEnrouteToThrowsFailedPrecondition() {
        var state = givenTrip(TripFixtures.assignedTrip(intermediates: [Fixtures.stop1, Fixtures.stop2]))
        state.status = .enrouteToIntermediateDestination
        state.intermediateDestinationIndex = 1
        expectRejection(.failedPrecondition) {
            try Trip.decide(.updateTripStatus(.arrivedAtIntermediateDestination, intermediateDestinationIndex: 0, at: Fixtures.t(20)), state: state)
        }
    }
}

@Suite("Trip: intermediate destinations, actual points, cancel, attributes")
struct TripDetailTests {
    @Test func changingIntermediatesBumpsTheVersion() throws {
        let state = givenTrip(TripFixtures.assignedTrip(intermediates: [Fixtures.stop1]))
        let events = try Trip.decide(.setIntermediateDestinations([Fixtures.stop1, Fixtures.stop2], at: Fixtures.t(30)), state: state)
        #expect(events == [.intermediateDestinationsChanged(.init(
            tripId: "t-1", intermediateDestinations: [Fixtures.stop1, Fixtures.stop2], intermediateDestinationsVersion: Fixtures.t(30), at: Fixtures.t(30)))])
        #expect(givenTrip(TripFixtures.assignedTrip(intermediates: [Fixtures.stop1]) + events).intermediateDestinationsVersion == Fixtures.t(30))
    }

    @Test func changingIntermediatesAtTheSameInstantStillMovesTheVersionForward() throws {
        let state = givenTrip([TripFixtures.created(intermediates: [Fixtures.stop1])])
        let events = try Trip.decide(.setIntermediateDestinations([Fixtures.stop2], at: Fixtures.t0), state: state)
        guard case .intermediateDestinationsChanged(let changed) = events.first else { Issue.record("no change"); return }
        #expect(changed.intermediateDestinationsVersion == Fixtures.t0.adding(microseconds: 1))
    }

    @Test func aVersionReadBeforeAChangeIsStaleAfterIt() throws {
        var events = TripFixtures.assignedTrip(intermediates: [Fixtures.stop1])
        let cached = givenTrip(events).intermediateDestinationsVersion
        events += [TripFixtures.status(.new, .arrivedAtPickup, at: Fixtures.t(20))]
        events += try Trip.decide(.setIntermediateDestinations([Fixtures.stop2], at: Fixtures.t(30)), state: givenTrip(events))
        let state = givenTrip(events)
        expectRejection(.aborted) {
            try Trip.decide(.updateTripStatus(.enrouteToIntermediateDestination, intermediateDestinationIndex: 0, intermediateDestinationsVersion: cached, at: Fixtures.t(40)), state: state)
        }
    }

    @Test func intermediatesOnASharedTripThrowInvalidArgument() {
        let state = givenTrip([TripFixtures.created(type: .shared)])
        expectRejection(.invalidArgument) { try Trip.decide(.setIntermediateDestinations([Fixtures.stop1], at: Fixtures.t(5)), state: state) }
    }

    @Test func moreThanTwentyFiveIntermediatesThrowInvalidArgument() {
        let state = givenTrip([TripFixtures.created()])
        expectRejection(.invalidArgument) {
            try Trip.decide(.setIntermediateDestinations(Array(repeating: Fixtures.stop1, count: 26), at: Fixtures.t(5)), state: state)
        }
    }

    @Test func droppingTheStopAtTheCurrentIndexThrowsFailedPrecondition() {
        var state = givenTrip(TripFixtures.assignedTrip(intermediates: [Fixtures.stop1, Fixtures.stop2]))
        state.status = .enrouteToIntermediateDestination
        state.intermediateDestinationIndex = 1
        expectRejection(.failedPrecondition) { try Trip.decide(.setIntermediateDestinations([Fixtures.stop1], at: Fixtures.t(5)), state: state) }
    }

    @Test func changingIntermediatesOfACompletedTripThrowsFailedPrecondition() {
        var state = givenTrip(TripFixtures.assignedTrip())
        state.status = .complete
        expectRejection(.failedPrecondition) { try Trip.decide(.setIntermediateDestinations([Fixtures.stop1], at: Fixtures.t(5)), state: state) }
        expectRejection(.failedPrecondition) { try Trip.decide(.setDropoffPoint(Fixtures.stop1, at: Fixtures.t(5)), state: state) }
    }

    @Test func actualPointsAreRecordedPerStop() throws {
        var events = TripFixtures.assignedTrip(intermediates: [Fixtures.stop1])
        let stops: [(Trip.ActualStop, Int?)] = [(.pickupArrival, nil), (.pickup, nil), (.intermediateDestinationArrival, 0), (.intermediateDestination, 0), (.dropoff, nil)]
        for (i, (stop, index)) in stops.enumerated() {
            let location = StopLocation(point: Fixtures.point(52.5, 13.4 + Double(i) / 100), timestamp: Fixtures.t(Double(i)))
            let produced = try Trip.decide(.recordActualLocation(stop, intermediateDestinationIndex: index, location, at: Fixtures.t(100)), state: givenTrip(events))
            #expect(produced == [.actualLocationRecorded(.init(tripId: "t-1", stop: stop, intermediateDestinationIndex: index, location: location, at: Fixtures.t(100)))])
            events += produced
        }
        let state = givenTrip(events)
        #expect(state.actualPickupArrivalPoint?.timestamp == Fixtures.t(0))
        #expect(state.actualPickupPoint?.timestamp == Fixtures.t(1))
        #expect(state.actualIntermediateDestinationArrivalPoints[0]?.timestamp == Fixtures.t(2))
        #expect(state.actualIntermediateDestinations[0]?.timestamp == Fixtures.t(3))
        #expect(state.actualDropoffPoint?.timestamp == Fixtures.t(4))
    }

    @Test func actualIntermediatePointNeedsAValidIndex() {
        let state = givenTrip(TripFixtures.assignedTrip(intermediates: [Fixtures.stop1]))
        let location = StopLocation(point: Fixtures.stop1.point)
        expectRejection(.invalidArgument) { try Trip.decide(.recordActualLocation(.intermediateDestination, location, at: Fixtures.t(5)), state: state) }
        expectRejection(.invalidArgument) { try Trip.decide(.recordActualLocation(.intermediateDestination, intermediateDestinationIndex: 1, location, at: Fixtures.t(5)), state: state) }
        expectRejection(.invalidArgument) { try Trip.decide(.recordActualLocation(.pickup, intermediateDestinationIndex: 0, location, at: Fixtures.t(5)), state: state) }
    }

    @Test func actualPointOnACanceledTripThrowsFailedPrecondition() {
        let state = givenTrip([TripFixtures.created(), .canceled(.init(tripId: "t-1", from: .new, at: Fixtures.t(1)))])
        expectRejection(.failedPrecondition) {
            try Trip.decide(.recordActualLocation(.pickup, StopLocation(point: Fixtures.pickup.point), at: Fixtures.t(5)), state: state)
        }
    }

    @Test func cancelRecordsTripCanceledWithTheVehicle() throws {
        let events = try Trip.decide(.cancelTrip(at: Fixtures.t(20)), state: givenTrip(TripFixtures.assignedTrip()))
        #expect(events == [.canceled(.init(tripId: "t-1", vehicleId: "v-1", from: .new, at: Fixtures.t(20)))])
        #expect(givenTrip(TripFixtures.assignedTrip() + events).remainingWaypoints.isEmpty)
    }

    @Test func cancelingATerminalTripThrowsFailedPrecondition() {
        for terminal in [TripStatus.complete, .canceled] {
            var state = givenTrip(TripFixtures.assignedTrip())
            state.status = terminal
            expectRejection(.failedPrecondition) { try Trip.decide(.cancelTrip(at: Fixtures.t(20)), state: state) }
        }
    }

    @Test func setAttributesReplacesTheList() throws {
        let attributes = [Attribute(key: "tier", value: .string("gold")), Attribute(key: "pets", value: .bool(true))]
        let events = try Trip.decide(.setAttributes(attributes, at: Fixtures.t(5)), state: givenTrip([TripFixtures.created()]))
        #expect(events == [.attributesSet(.init(tripId: "t-1", attributes: attributes, at: Fixtures.t(5)))])
        #expect(givenTrip([TripFixtures.created()] + events).attributes == attributes)
    }

    @Test func setAttributesWithTooManyOrBadKeysThrowsInvalidArgument() {
        let state = givenTrip([TripFixtures.created()])
        let many = (0...100).map { Attribute(key: "k\($0)", value: .number(Double($0))) }
        expectRejection(.invalidArgument) { try Trip.decide(.setAttributes(many, at: Fixtures.t(5)), state: state) }
        expectRejection(.invalidArgument) { try Trip.decide(.setAttributes([Attribute(key: "a:b", value: .bool(true))], at: Fixtures.t(5)), state: state) }
        let long = Attribute(key: "k", value: .string(String(repeating: "x", count: 255)))
        expectRejection(.invalidArgument) { try Trip.decide(.setAttributes([long], at: Fixtures.t(5)), state: state) }
    }
}

@Suite("Trip: pickup point")
struct TripPickupPointTests {
    static let moved = TerminalLocation(point: Fixtures.point(52.5210, 13.4060))

    /// A trip assigned to v-1, moved on to `status` (NEW stays as created).
    static func trip(in status: TripStatus) -> [Trip.Event] {
        var events = TripFixtures.assignedTrip()
        if status != .new { events.append(TripFixtures.status(.new, status, at: Fixtures.t(20))) }
        return events
    }

    @Test(arguments: [TripStatus.new, .enrouteToPickup, .arrivedAtPickup])
    func settingThePickupPointBeforeThePickupRecordsTripPickupPointSet(status: TripStatus) throws {
        // given a trip not yet picked up
        let events = Self.trip(in: status)
        // when the pickup moves
        let produced = try Trip.decide(.setPickupPoint(Self.moved, at: Fixtures.t(30)), state: givenTrip(events))
        // then the new point is recorded and is the first remaining waypoint
        #expect(produced == [.pickupPointSet(.init(tripId: "t-1", pickup: Self.moved, at: Fixtures.t(30)))])
        let state = givenTrip(events + produced)
        #expect(state.pickup == Self.moved)
        #expect(state.remainingWaypoints.first == TripWaypoint(tripId: "t-1", waypointType: .pickup, location: Self.moved))
    }

    @Test func settingTheSamePickupPointAgainYieldsNoEvents() throws {
        #expect(try Trip.decide(.setPickupPoint(Fixtures.pickup, at: Fixtures.t(30)), state: givenTrip(Self.trip(in: .new))) == [])
    }

    @Test(arguments: [TripStatus.enrouteToDropoff, .enrouteToIntermediateDestination, .arrivedAtIntermediateDestination, .complete, .canceled])
    func settingThePickupPointAfterThePickupFailsWithFailedPrecondition(status: TripStatus) {
        var state = givenTrip(TripFixtures.assignedTrip(intermediates: [Fixtures.stop1]))
        state.status = status
        expectRejection(.failedPrecondition, mentioning: ["pickupPoint", "before the pickup", "t-1", status.rawValue]) {
            try Trip.decide(.setPickupPoint(Self.moved, at: Fixtures.t(30)), state: state)
        }
    }

    @Test func settingThePickupPointOfAnUnknownTripFailsWithNotFound() {
        expectRejection(.notFound, mentioning: ["trip"]) { try Trip.decide(.setPickupPoint(Self.moved, at: Fixtures.t(30)), state: Trip.State()) }
    }

    @Test func theVehicleFollowsAMovedPickupOnSync() throws {
        // given a vehicle serving t-1 (pickup, then dropoff)
        var tripEvents = Self.trip(in: .enrouteToPickup)
        let vehicleEvents = try VehicleFixtures.withTrip(givenTrip(tripEvents))
        // when the pickup moves and the vehicle syncs the trip
        tripEvents += try Trip.decide(.setPickupPoint(Self.moved, at: Fixtures.t(30)), state: givenTrip(tripEvents))
        let synced = try Vehicle.decide(.syncTrip(givenTrip(tripEvents), at: Fixtures.t(30)), state: givenVehicle(vehicleEvents))
        // then its waypoints lead to the new pickup
        #expect(synced == [.tripWaypointsUpdated(.init(
            vehicleId: "v-1", tripId: "t-1", tripStatus: .enrouteToPickup,
            waypoints: [TripWaypoint(tripId: "t-1", waypointType: .pickup, location: Self.moved),
                        TripWaypoint(tripId: "t-1", waypointType: .dropOff, location: Fixtures.dropoff)],
            at: Fixtures.t(30)))])
    }
}

@Suite("Trip: delete")
struct TripDeleteTests {
    @Test func deletingAnUnassignedNewTripRecordsTripDeleted() throws {
        let events = try Trip.decide(.deleteTrip(at: Fixtures.t(5)), state: givenTrip([TripFixtures.created()]))
        #expect(events == [.deleted(.init(tripId: "t-1", vehicleId: nil, status: .new, at: Fixtures.t(5)))])
        #expect(!givenTrip([TripFixtures.created()] + events).exists)
    }

    @Test func deletingATripWhoseVehicleWasUnassignedIsAllowed() throws {
        let events = TripFixtures.assignedTrip() + [.vehicleUnassigned(.init(tripId: "t-1", vehicleId: "v-1", status: .new, at: Fixtures.t(15)))]
        #expect(try Trip.decide(.deleteTrip(at: Fixtures.t(20)), state: givenTrip(events))
            == [.deleted(.init(tripId: "t-1", vehicleId: nil, status: .new, at: Fixtures.t(20)))])
    }

    @Test func deletingACompletedOrCanceledTripRecordsItsLastVehicle() throws {
        let completed = TripFixtures.assignedTrip() + [
            TripFixtures.status(.new, .enrouteToDropoff, at: Fixtures.t(20)),
            .completed(.init(tripId: "t-1", vehicleId: "v-1", from: .enrouteToDropoff, at: Fixtures.t(30))),
        ]
        #expect(try Trip.decide(.deleteTrip(at: Fixtures.t(40)), state: givenTrip(completed))
            == [.deleted(.init(tripId: "t-1", vehicleId: "v-1", status: .complete, at: Fixtures.t(40)))])
        let canceled = TripFixtures.assignedTrip() + [.canceled(.init(tripId: "t-1", vehicleId: "v-1", from: .new, at: Fixtures.t(20)))]
        #expect(try Trip.decide(.deleteTrip(at: Fixtures.t(40)), state: givenTrip(canceled))
            == [.deleted(.init(tripId: "t-1", vehicleId: "v-1", status: .canceled, at: Fixtures.t(40)))])
    }

    @Test(arguments: [TripStatus.new, .enrouteToPickup, .arrivedAtPickup, .enrouteToDropoff])
    func deletingAnAssignedActiveTripFailsWithFailedPrecondition(status: TripStatus) {
        var state = givenTrip(TripFixtures.assignedTrip())
        state.status = status
        expectRejection(.failedPrecondition, mentioning: ["complete or cancel it first", "t-1", status.rawValue, "v-1"]) {
            try Trip.decide(.deleteTrip(at: Fixtures.t(40)), state: state)
        }
    }

    @Test func deletingAnUnknownTripFailsWithNotFound() {
        expectRejection(.notFound, mentioning: ["not found"]) { try Trip.decide(.deleteTrip(at: Fixtures.t(5)), state: Trip.State()) }
    }

    @Test func deletingADeletedTripAgainFailsWithNotFoundNamingIt() {
        let state = givenTrip([TripFixtures.created(), .deleted(.init(tripId: "t-1", status: .new, at: Fixtures.t(5)))])
        expectRejection(.notFound, mentioning: ["t-1", "not found"]) { try Trip.decide(.deleteTrip(at: Fixtures.t(6)), state: state) }
        expectRejection(.notFound, mentioning: ["t-1"]) { try Trip.decide(.cancelTrip(at: Fixtures.t(6)), state: state) }
    }

    @Test func tripDeletedResetsTheStateKeepingOnlyTheTripId() {
        let state = givenTrip(TripFixtures.assignedTrip(intermediates: [Fixtures.stop1]) + [
            .canceled(.init(tripId: "t-1", vehicleId: "v-1", from: .new, at: Fixtures.t(20))),
            .deleted(.init(tripId: "t-1", vehicleId: "v-1", status: .canceled, at: Fixtures.t(30))),
        ])
        var expected = Trip.State()
        expected.tripId = "t-1"
        #expect(state == expected)
    }

    @Test func aDeletedTripCanBeCreatedAgainOnTheSameStream() throws {
        // given a trip that was canceled and deleted
        let history = TripFixtures.assignedTrip(intermediates: [Fixtures.stop1]) + [
            .canceled(.init(tripId: "t-1", vehicleId: "v-1", from: .new, at: Fixtures.t(20))),
            .deleted(.init(tripId: "t-1", vehicleId: "v-1", status: .canceled, at: Fixtures.t(30))),
        ]
        // when the same id is created again
        let create = Trip.Command.createTrip(.init(tripId: "t-1", tripType: .shared, pickup: Fixtures.stop2, numberOfPassengers: 2), at: Fixtures.t(40))
        let produced = try Trip.decide(create, state: givenTrip(history))
        // then a new lifecycle starts with nothing of the old one
        #expect(produced == [.created(.init(
            tripId: "t-1", tripType: .shared, pickup: Fixtures.stop2, intermediateDestinations: [],
            intermediateDestinationsVersion: Fixtures.t(40), numberOfPassengers: 2, attributes: [], at: Fixtures.t(40)))])
        #expect(givenTrip(history + produced) == givenTrip(produced))
    }
}
