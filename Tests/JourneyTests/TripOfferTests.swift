import Journey
import Testing

@Suite("Vehicle: trip offers")
struct TripOfferTests {
    static let vehicle = TripFixtures.vehicle()
    static var trip: Trip.State { givenTrip([TripFixtures.created()]) }

    static func offered(expiresAt: Timestamp = Fixtures.t(60)) throws -> Vehicle.State {
        let events = try Vehicle.decide(.offerTrip(tripId: "t-1", trip: trip, expiresAt: expiresAt, at: Fixtures.t(20)), state: vehicle)
        return events.reduce(vehicle, Vehicle.evolve)
    }

    @Test func anOfferIsRecordedWithItsExpiry() throws {
        let events = try Vehicle.decide(.offerTrip(tripId: "t-1", trip: Self.trip, expiresAt: Fixtures.t(60), at: Fixtures.t(20)), state: Self.vehicle)
        #expect(events == [.tripOffered(.init(vehicleId: "v-1", tripId: "t-1", expiresAt: Fixtures.t(60), at: Fixtures.t(20)))])
        #expect(try Self.offered().offers == [Vehicle.TripOffer(tripId: "t-1", expiresAt: Fixtures.t(60), offeredAt: Fixtures.t(20))])
    }

    @Test func offeringATripAgainReplacesTheOffer() throws {
        let state = try Self.offered()
        let again = try Vehicle.decide(.offerTrip(tripId: "t-1", trip: Self.trip, expiresAt: Fixtures.t(90), at: Fixtures.t(30)), state: state)
        #expect(again.reduce(state, Vehicle.evolve).offers.map(\.expiresAt) == [Fixtures.t(90)])
    }

    @Test func onlyExistingUnassignedOpenTripsCanBeOffered() {
        expectRejection(.notFound) { try Vehicle.decide(.offerTrip(tripId: "t-1", trip: nil, expiresAt: Fixtures.t(60), at: Fixtures.t(20)), state: Self.vehicle) }
        let assigned = givenTrip(TripFixtures.assignedTrip())
        expectRejection(.failedPrecondition) { try Vehicle.decide(.offerTrip(tripId: "t-1", trip: assigned, expiresAt: Fixtures.t(60), at: Fixtures.t(20)), state: Self.vehicle) }
        let canceled = givenTrip([TripFixtures.created(), .canceled(.init(tripId: "t-1", from: .new, at: Fixtures.t(5)))])
        expectRejection(.failedPrecondition) { try Vehicle.decide(.offerTrip(tripId: "t-1", trip: canceled, expiresAt: Fixtures.t(60), at: Fixtures.t(20)), state: Self.vehicle) }
    }

    @Test func anOfferMustExpireInTheFutureAndGoToAnOnlineVehicle() {
        expectRejection(.invalidArgument) { try Vehicle.decide(.offerTrip(tripId: "t-1", trip: Self.trip, expiresAt: Fixtures.t(20), at: Fixtures.t(20)), state: Self.vehicle) }
        let offline = TripFixtures.vehicle(state: .offline)
        expectRejection(.failedPrecondition) { try Vehicle.decide(.offerTrip(tripId: "t-1", trip: Self.trip, expiresAt: Fixtures.t(60), at: Fixtures.t(20)), state: offline) }
    }

    @Test func acceptingBeforeExpiryIsRecordedAndRemovesTheOffer() throws {
        let state = try Self.offered()
        let events = try Vehicle.decide(.answerOffer(tripId: "t-1", accept: true, at: Fixtures.t(59)), state: state)
        #expect(events == [.tripOfferAnswered(.init(vehicleId: "v-1", tripId: "t-1", accepted: true, expired: false, at: Fixtures.t(59)))])
        #expect(events.reduce(state, Vehicle.evolve).offers.isEmpty)
    }

    @Test func anExpiredOfferCannotBeAcceptedButCanBeDeclined() throws {
        let state = try Self.offered()
        expectRejection(.failedPrecondition) { try Vehicle.decide(.answerOffer(tripId: "t-1", accept: true, at: Fixtures.t(60)), state: state) }
        let declined = try Vehicle.decide(.answerOffer(tripId: "t-1", accept: false, at: Fixtures.t(61)), state: state)
        #expect(declined == [.tripOfferAnswered(.init(vehicleId: "v-1", tripId: "t-1", accepted: false, expired: true, at: Fixtures.t(61)))])
    }

    @Test func answeringWithoutAnOfferIsNotFound() {
        expectRejection(.notFound) { try Vehicle.decide(.answerOffer(tripId: "t-1", accept: true, at: Fixtures.t(30)), state: Self.vehicle) }
    }

    @Test func offerEventsRoundTripThroughTheirStoredJSON() throws {
        for event in [Vehicle.Event.tripOffered(.init(vehicleId: "v-1", tripId: "t-1", expiresAt: Fixtures.t(60), at: Fixtures.t(20))),
                      .tripOfferAnswered(.init(vehicleId: "v-1", tripId: "t-1", accepted: true, at: Fixtures.t(30)))] {
            #expect(try Vehicle.Event.decode(type: event.type, data: try event.encodePayload()) == event)
        }
    }
}
