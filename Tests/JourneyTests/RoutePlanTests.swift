import Geo
import Journey
import Testing

@Suite("Trip: route plans and route tokens")
struct RoutePlanTests {
    static let legA = Polyline.encode([Fixtures.point(52.52, 13.40), Fixtures.pickup.point])
    static let legB = Polyline.encode([Fixtures.pickup.point, Fixtures.stop1.point])
    static let legC = Polyline.encode([Fixtures.stop1.point, Fixtures.dropoff.point])

    static func plan(
        travelMode: TravelMode = .drive,
        destinations: [LatLng] = [Fixtures.pickup.point, Fixtures.stop1.point, Fixtures.dropoff.point],
        legs: [String] = [legA, legB, legC],
        token: String? = "opaque-token",
        preference: RoutingPreference = .trafficAware,
        options: RoutingOptions = RoutingOptions(avoidTolls: true, avoidHighways: true, avoidFerries: true, avoidTunnels: true, avoidVignettes: ["CH", "AT"])
    ) -> RoutePlan {
        RoutePlan(
            destinations: destinations.map { RoutePlan.Destination(point: $0) },
            legs: legs.map { RoutePlan.Leg(encodedPolyline: $0, distanceMeters: 700, durationSeconds: 90) },
            routeToken: token, travelMode: travelMode, routingPreference: preference,
            objectives: [.fuelEfficient], options: options, rerouteStrategy: RerouteStrategy(timeToleranceSeconds: 120))
    }

    /// An assigned EXCLUSIVE trip with one intermediate stop.
    static var trip: [Trip.Event] { TripFixtures.assignedTrip(intermediates: [Fixtures.stop1]) }

    @Test func planRouteRecordsTheValidatedPlan() throws {
        let plan = Self.plan()
        let events = try Trip.decide(.planRoute(plan, at: Fixtures.t(15)), state: givenTrip(Self.trip))
        #expect(events == [.routePlanned(.init(tripId: "t-1", vehicleId: "v-1", plan: plan, at: Fixtures.t(15)))])
        let state = givenTrip(Self.trip + events)
        #expect(state.routePlan == plan)
        #expect(state.activeDestinationIndex == 0)
    }

    @Test func unspecifiedTravelModeIsRecordedAsDrive() throws {
        let events = try Trip.decide(.planRoute(Self.plan(travelMode: .unspecified), at: Fixtures.t(15)), state: givenTrip(Self.trip))
        guard case .routePlanned(let planned) = events.first else { Issue.record("no plan"); return }
        #expect(planned.plan.travelMode == .drive)
    }

    @Test func twoWheelerIsSupported() throws {
        _ = try Trip.decide(.planRoute(Self.plan(travelMode: .twoWheeler), at: Fixtures.t(15)), state: givenTrip(Self.trip))
    }

    @Test(arguments: [TravelMode.bicycle, .walk, .transit])
    func otherTravelModesAreRejectedAsTravelModeUnsupported(mode: TravelMode) {
        expectRejection(.travelModeUnsupported) { try Trip.decide(.planRoute(Self.plan(travelMode: mode), at: Fixtures.t(15)), state: givenTrip(Self.trip)) }
        #expect(JourneyError.Code.travelModeUnsupported.statusName == "INVALID_ARGUMENT")
        #expect(JourneyError.Code.travelModeUnsupported.httpStatus == 400)
        #expect(JourneyError.Code.travelModeUnsupported.reason == "TRAVEL_MODE_UNSUPPORTED")
    }

    @Test func moreThanTwentyFiveIntermediateWaypointsThrowInvalidArgument() throws {
        // 25 intermediate stops between origin and final destination: 26 destinations are fine, 27 are not.
        let points = (0..<27).map { Fixtures.point(52.5, 13.4 + Double($0) / 1000) }
        let legs = Array(repeating: Self.legA, count: 27)
        expectRejection(.invalidArgument) {
            try Trip.decide(.planRoute(Self.plan(destinations: points, legs: legs), at: Fixtures.t(15)), state: givenTrip(Self.trip))
        }
        _ = try Trip.decide(.planRoute(Self.plan(destinations: Array(points.prefix(26)), legs: Array(legs.prefix(26))), at: Fixtures.t(15)), state: givenTrip(Self.trip))
    }

    @Test func aPlanWithoutDestinationsThrowsInvalidArgument() {
        expectRejection(.invalidArgument) {
            try Trip.decide(.planRoute(Self.plan(destinations: [], legs: []), at: Fixtures.t(15)), state: givenTrip(Self.trip))
        }
    }

    @Test func viaWaypointsThrowInvalidArgument() {
        var plan = Self.plan()
        plan.destinations[1].via = true
        expectRejection(.invalidArgument) { try Trip.decide(.planRoute(plan, at: Fixtures.t(15)), state: givenTrip(Self.trip)) }
    }

    @Test func legCountMustMatchDestinations() {
        expectRejection(.invalidArgument) {
            try Trip.decide(.planRoute(Self.plan(legs: [Self.legA, Self.legB]), at: Fixtures.t(15)), state: givenTrip(Self.trip))
        }
    }

    @Test func anUndecodableLegPolylineThrowsInvalidArgument() {
        expectRejection(.invalidArgument) {
            try Trip.decide(.planRoute(Self.plan(legs: [Self.legA, Self.legB, "_p~iF~ps|U_"]), at: Fixtures.t(15)), state: givenTrip(Self.trip))
        }
    }

    @Test func aRouteTokenNeedsATrafficAwarePreference() throws {
        expectRejection(.invalidArgument) {
            try Trip.decide(.planRoute(Self.plan(preference: .trafficUnaware), at: Fixtures.t(15)), state: givenTrip(Self.trip))
        }
        _ = try Trip.decide(.planRoute(Self.plan(token: nil, preference: .trafficUnaware), at: Fixtures.t(15)), state: givenTrip(Self.trip))
    }

    @Test func vignettesMustBeRegionCodes() {
        expectRejection(.invalidArgument) {
            try Trip.decide(.planRoute(Self.plan(options: RoutingOptions(avoidVignettes: ["Switzerland"])), at: Fixtures.t(15)), state: givenTrip(Self.trip))
        }
    }

    @Test func planningATerminalTripThrowsFailedPrecondition() {
        var state = givenTrip(Self.trip)
        state.status = .canceled
        expectRejection(.failedPrecondition) { try Trip.decide(.planRoute(Self.plan(), at: Fixtures.t(15)), state: state) }
    }

    @Test func aNewPlanReplacesEarlierDestinations() throws {
        var events = Self.trip + [.routePlanned(.init(tripId: "t-1", vehicleId: "v-1", plan: Self.plan(), at: Fixtures.t(15)))]
        events += [TripFixtures.status(.new, .arrivedAtPickup, at: Fixtures.t(20))]
        events += try Trip.decide(.continueToNextDestination(at: Fixtures.t(30)), state: givenTrip(events))
        events += [.routeTokenExecutionReported(.init(tripId: "t-1", status: .tokenSuccessfullyApplied, tokenApplied: true, reported: nil, effective: Self.plan().requestedParameters, at: Fixtures.t(31)))]
        #expect(givenTrip(events).activeDestinationIndex == 1)
        let replacement = Self.plan(destinations: [Fixtures.dropoff.point], legs: [Self.legC])
        events += try Trip.decide(.planRoute(replacement, at: Fixtures.t(40)), state: givenTrip(events))
        let state = givenTrip(events)
        #expect(state.routePlan?.destinations.map(\.point) == [Fixtures.dropoff.point])
        #expect(state.activeDestinationIndex == 0)
        #expect(state.routeTokenExecution == nil)
    }

    @Test func appliedTokenKeepsTheResolvedParameters() throws {
        let events = Self.trip + [.routePlanned(.init(tripId: "t-1", plan: Self.plan(), at: Fixtures.t(15)))]
        let resolved = ResolvedRoutingParameters(
            travelMode: .drive, options: RoutingOptions(avoidTolls: true, avoidTunnels: true, avoidVignettes: ["CH"]),
            rerouteStrategy: RerouteStrategy(timeToleranceSeconds: 60))
        let produced = try Trip.decide(.reportRouteTokenExecution(.tokenSuccessfullyApplied, resolved: resolved, at: Fixtures.t(16)), state: givenTrip(events))
        #expect(produced == [.routeTokenExecutionReported(.init(
            tripId: "t-1", status: .tokenSuccessfullyApplied, tokenApplied: true, reported: resolved, effective: resolved, at: Fixtures.t(16)))])
        #expect(givenTrip(events + produced).routeTokenExecution == RouteTokenExecution(status: .tokenSuccessfullyApplied, effectiveParameters: resolved))
    }

    @Test(arguments: [RouteTokenExecutionStatus.tokenIgnoredMalformed, .tokenIgnoredOther, .tokenAppliedWithLocationMismatch, .noTokenProvided])
    func aTokenNotAppliedKeepsOnlyTravelModeAndBasicAvoidances(status: RouteTokenExecutionStatus) throws {
        let events = Self.trip + [.routePlanned(.init(tripId: "t-1", plan: Self.plan(travelMode: .twoWheeler), at: Fixtures.t(15)))]
        let produced = try Trip.decide(.reportRouteTokenExecution(status, resolved: nil, at: Fixtures.t(16)), state: givenTrip(events))
        let kept = ResolvedRoutingParameters(
            travelMode: .twoWheeler, options: RoutingOptions(avoidTolls: true, avoidHighways: true, avoidFerries: true),
            rerouteStrategy: .default)
        #expect(produced == [.routeTokenExecutionReported(.init(
            tripId: "t-1", status: status, tokenApplied: false, reported: nil, effective: kept, at: Fixtures.t(16)))])
    }

    @Test func aTokenNotAppliedWithReportedParametersKeepsTheirBasicPart() throws {
        let events = Self.trip + [.routePlanned(.init(tripId: "t-1", plan: Self.plan(), at: Fixtures.t(15)))]
        let reported = ResolvedRoutingParameters(
            travelMode: .drive, options: RoutingOptions(avoidFerries: true, avoidTunnels: true, avoidVignettes: ["AT"]),
            rerouteStrategy: RerouteStrategy(timeToleranceSeconds: 30))
        let produced = try Trip.decide(.reportRouteTokenExecution(.tokenIgnoredOther, resolved: reported, at: Fixtures.t(16)), state: givenTrip(events))
        guard case .routeTokenExecutionReported(let report) = produced.first else { Issue.record("no report"); return }
        #expect(report.effective == ResolvedRoutingParameters(travelMode: .drive, options: RoutingOptions(avoidFerries: true), rerouteStrategy: .default))
        #expect(report.reported == reported)
    }

    @Test func tokenExecutionWithoutAPlanThrowsFailedPrecondition() {
        expectRejection(.failedPrecondition) {
            try Trip.decide(.reportRouteTokenExecution(.tokenSuccessfullyApplied, resolved: nil, at: Fixtures.t(16)), state: givenTrip(Self.trip))
        }
    }

    @Test func tokenExecutionWithUnknownStatusThrowsInvalidArgument() {
        let events = Self.trip + [.routePlanned(.init(tripId: "t-1", plan: Self.plan(), at: Fixtures.t(15)))]
        expectRejection(.invalidArgument) {
            try Trip.decide(.reportRouteTokenExecution(.unknown, resolved: nil, at: Fixtures.t(16)), state: givenTrip(events))
        }
    }

    @Test func tokenExecutionResolvedToWalkingThrowsTravelModeUnsupported() {
        let events = Self.trip + [.routePlanned(.init(tripId: "t-1", plan: Self.plan(), at: Fixtures.t(15)))]
        expectRejection(.travelModeUnsupported) {
            try Trip.decide(.reportRouteTokenExecution(.tokenSuccessfullyApplied, resolved: ResolvedRoutingParameters(travelMode: .walk), at: Fixtures.t(16)), state: givenTrip(events))
        }
    }

    @Test func arrivalAloneDoesNotAdvanceThePlan() throws {
        var events = Self.trip + [.routePlanned(.init(tripId: "t-1", plan: Self.plan(), at: Fixtures.t(15)))]
        events += [TripFixtures.status(.new, .enrouteToPickup, at: Fixtures.t(16))]
        let arrival = try Trip.decide(.updateTripStatus(.arrivedAtPickup, at: Fixtures.t(20)), state: givenTrip(events))
        #expect(arrival == [TripFixtures.status(.enrouteToPickup, .arrivedAtPickup, at: Fixtures.t(20))])
        #expect(givenTrip(events + arrival).activeDestinationIndex == 0)
    }

    @Test func continueBeforeArrivalThrowsFailedPrecondition() {
        var events = Self.trip + [.routePlanned(.init(tripId: "t-1", plan: Self.plan(), at: Fixtures.t(15)))]
        events += [TripFixtures.status(.new, .enrouteToPickup, at: Fixtures.t(16))]
        expectRejection(.failedPrecondition) { try Trip.decide(.continueToNextDestination(at: Fixtures.t(20)), state: givenTrip(events)) }
    }

    @Test func continueOnATerminalTripThrowsFailedPrecondition() {
        var state = givenTrip(Self.trip)
        state.status = .complete
        expectRejection(.failedPrecondition) { try Trip.decide(.continueToNextDestination(at: Fixtures.t(20)), state: state) }
    }

    @Test func continueAfterArrivalHeadsForTheNextStopAndAdvancesThePlan() throws {
        var events = Self.trip + [.routePlanned(.init(tripId: "t-1", vehicleId: "v-1", plan: Self.plan(), at: Fixtures.t(15)))]
        events += [TripFixtures.status(.new, .arrivedAtPickup, at: Fixtures.t(20))]
        let first = try Trip.decide(.continueToNextDestination(at: Fixtures.t(30)), state: givenTrip(events))
        #expect(first == [
            TripFixtures.status(.arrivedAtPickup, .enrouteToIntermediateDestination, index: 0, at: Fixtures.t(30)),
            .routeDestinationAdvanced(.init(tripId: "t-1", destinationIndex: 1, destination: Fixtures.stop1.point, encodedPolyline: Self.legB, at: Fixtures.t(30))),
        ])
        events += first
        events += try Trip.decide(.updateTripStatus(.arrivedAtIntermediateDestination, intermediateDestinationIndex: 0, at: Fixtures.t(40)), state: givenTrip(events))
        let second = try Trip.decide(.continueToNextDestination(at: Fixtures.t(50)), state: givenTrip(events))
        #expect(second == [
            TripFixtures.status(.arrivedAtIntermediateDestination, .enrouteToDropoff, at: Fixtures.t(50)),
            .routeDestinationAdvanced(.init(tripId: "t-1", destinationIndex: 2, destination: Fixtures.dropoff.point, encodedPolyline: Self.legC, at: Fixtures.t(50))),
        ])
        #expect(givenTrip(events + second).activeDestinationIndex == 2)
    }

    @Test func continueWithoutAPlanOnlyChangesStatus() throws {
        let events = TripFixtures.assignedTrip(intermediates: [Fixtures.stop1, Fixtures.stop2]) + [
            TripFixtures.status(.new, .enrouteToIntermediateDestination, index: 0, at: Fixtures.t(20)),
            TripFixtures.status(.enrouteToIntermediateDestination, .arrivedAtIntermediateDestination, index: 0, at: Fixtures.t(30)),
        ]
        let produced = try Trip.decide(.continueToNextDestination(at: Fixtures.t(40)), state: givenTrip(events))
        #expect(produced == [TripFixtures.status(.arrivedAtIntermediateDestination, .enrouteToIntermediateDestination, index: 1, at: Fixtures.t(40))])
    }
}
