import Foundation
import Geo
import Journey
import Testing

@Suite("Trip: steps, traffic, alternatives and route selection")
struct RouteStepsTests {
    static let a = Fixtures.point(52.5200, 13.4000)
    static let b = Fixtures.point(52.5200, 13.4050)
    static let c = Fixtures.point(52.5250, 13.4050)

    static func step(_ maneuver: Maneuver, _ from: LatLng, _ to: LatLng, meters: Int = 340, seconds: Int = 40) -> RoutePlan.Step {
        RoutePlan.Step(maneuver: maneuver, instruction: "\(maneuver.rawValue) here", distanceMeters: meters, durationSeconds: seconds,
                       encodedPolyline: Polyline.encode([from, to]), start: from, end: to, lanes: maneuver == .turnLeft ? true : nil)
    }

    static func leg(_ token: String = "x") -> RoutePlan.Leg {
        RoutePlan.Leg(encodedPolyline: Polyline.encode([a, b, c]), distanceMeters: 900, durationSeconds: 100, staticDurationSeconds: 90,
                      startLocation: a, endLocation: c, steps: [step(.depart, a, b), step(.turnLeft, b, c, meters: 560, seconds: 60)],
                      speedIntervals: [TrafficSpeedInterval(startIndex: 0, endIndex: 2, speed: .slow)])
    }

    /// A one-stop plan (the pickup) with `routes` alternatives, route 0 in force.
    static func plan(routes count: Int = 3, token: String? = "token-0") -> RoutePlan {
        let routes = (0..<count).map { i in
            RoutePlan.Route(routeToken: token.map { _ in "token-\(i)" },
                            legs: [RoutePlan.Leg(encodedPolyline: Polyline.encode([a, Fixtures.point(52.52 + Double(i) / 1000, 13.402), Fixtures.pickup.point]),
                                                 distanceMeters: 800 + 100 * i, durationSeconds: 100 + 10 * i)])
        }
        return RoutePlan(destinations: [.init(point: Fixtures.pickup.point)], legs: routes[0].legs, routeToken: routes[0].routeToken,
                         routes: count > 1 ? routes : nil)
    }

    static var trip: [Trip.Event] { TripFixtures.assignedTrip() + [TripFixtures.status(.new, .enrouteToPickup, at: Fixtures.t(12))] }

    @Test func aPlanKeepsItsStepsAndTrafficIntervals() throws {
        let plan = RoutePlan(destinations: [.init(point: Self.c)], legs: [Self.leg()], routeToken: "t")
        let events = try Trip.decide(.planRoute(plan, at: Fixtures.t(15)), state: givenTrip(Self.trip))
        let state = givenTrip(Self.trip + events)
        #expect(state.routePlan?.legs[0].steps?.map { $0.maneuver } == [Maneuver.depart, .turnLeft])
        #expect(state.routePlan?.legs[0].steps?[1].lanes == true)
        #expect(state.routePlan?.legs[0].speedIntervals == [TrafficSpeedInterval(startIndex: 0, endIndex: 2, speed: .slow)])
        // The stored payload reads back to the same plan.
        let decoded = try Trip.Event.decode(type: events[0].type, data: try events[0].encodePayload())
        #expect(decoded == events[0])
    }

    @Test func aStepWithABrokenPolylineIsRejected() {
        var leg = Self.leg()
        leg.steps![1].encodedPolyline = "@"
        expectRejection(.invalidArgument) {
            try Trip.decide(.planRoute(RoutePlan(destinations: [.init(point: Self.c)], legs: [leg]), at: Fixtures.t(15)), state: givenTrip(Self.trip))
        }
    }

    @Test func aSpeedIntervalBeyondTheLegPolylineIsRejected() {
        var leg = Self.leg()
        leg.speedIntervals = [TrafficSpeedInterval(startIndex: 0, endIndex: 3, speed: .normal)]  // the leg has 3 points: indices 0...2
        expectRejection(.invalidArgument) {
            try Trip.decide(.planRoute(RoutePlan(destinations: [.init(point: Self.c)], legs: [leg]), at: Fixtures.t(15)), state: givenTrip(Self.trip))
        }
    }

    @Test func aNegativeStepDistanceIsRejected() {
        var leg = Self.leg()
        leg.steps![0].distanceMeters = -1
        expectRejection(.invalidArgument) {
            try Trip.decide(.planRoute(RoutePlan(destinations: [.init(point: Self.c)], legs: [leg]), at: Fixtures.t(15)), state: givenTrip(Self.trip))
        }
    }

    @Test func aRouteTokenNeedsATrafficAwarePreferenceOnEveryAlternative() {
        var plan = Self.plan()
        plan.routingPreference = .trafficUnaware
        plan.routeToken = nil
        plan.routes![0].routeToken = nil
        plan.legs = plan.routes![0].legs
        expectRejection(.invalidArgument) { try Trip.decide(.planRoute(plan, at: Fixtures.t(15)), state: givenTrip(Self.trip)) }
    }

    @Test func selectingAnAlternativeBeforeGuidanceSwitchesLegsAndToken() throws {
        var events = Self.trip
        events += try Trip.decide(.planRoute(Self.plan(), at: Fixtures.t(15)), state: givenTrip(events))
        let selected = try Trip.decide(.selectRoute(index: 2, at: Fixtures.t(16)), state: givenTrip(events))
        #expect(selected == [.routeSelected(.init(tripId: "t-1", vehicleId: "v-1", routeIndex: 2, routeToken: "token-2", at: Fixtures.t(16)))])
        let state = givenTrip(events + selected)
        #expect(state.routePlan?.routeToken == "token-2")
        #expect(state.routePlan?.legs == Self.plan().routes![2].legs)
        #expect(state.routePlan?.routeIndex == 2)
        // Choosing the route in force again changes nothing.
        #expect(try Trip.decide(.selectRoute(index: 2, at: Fixtures.t(17)), state: state).isEmpty)
    }

    @Test func theChoiceIsFixedOnceGuidanceStartedUntilANewPlan() throws {
        var events = Self.trip
        events += try Trip.decide(.planRoute(Self.plan(), at: Fixtures.t(15)), state: givenTrip(events))
        events += try Trip.decide(.reportRouteTokenExecution(.tokenSuccessfullyApplied, resolved: nil, routeStatus: .ok, at: Fixtures.t(16)), state: givenTrip(events))
        #expect(givenTrip(events).guidanceStarted)
        expectRejection(.failedPrecondition) { try Trip.decide(.selectRoute(index: 1, at: Fixtures.t(17)), state: givenTrip(events)) }
        // A new plan starts a new choice.
        events += try Trip.decide(.planRoute(Self.plan(), at: Fixtures.t(18)), state: givenTrip(events))
        #expect(!givenTrip(events).guidanceStarted)
        #expect(try Trip.decide(.selectRoute(index: 1, at: Fixtures.t(19)), state: givenTrip(events)).count == 1)
    }

    @Test func aRouteErrorFromNavigationDoesNotStartGuidance() throws {
        var events = Self.trip
        events += try Trip.decide(.planRoute(Self.plan(), at: Fixtures.t(15)), state: givenTrip(events))
        let report = try Trip.decide(.reportRouteTokenExecution(.tokenIgnoredOther, resolved: nil, routeStatus: .noRouteFound, at: Fixtures.t(16)), state: givenTrip(events))
        guard case .routeTokenExecutionReported(let reported) = report.first else { Issue.record("no report"); return }
        #expect(reported.routeStatus == .noRouteFound)
        events += report
        #expect(!givenTrip(events).guidanceStarted)
        #expect(try Trip.decide(.selectRoute(index: 1, at: Fixtures.t(17)), state: givenTrip(events)).count == 1)
    }

    @Test func selectRouteOutOfRangeOrWithoutAPlanIsRejected() throws {
        expectRejection(.failedPrecondition) { try Trip.decide(.selectRoute(index: 0, at: Fixtures.t(15)), state: givenTrip(Self.trip)) }
        var events = Self.trip
        events += try Trip.decide(.planRoute(Self.plan(), at: Fixtures.t(15)), state: givenTrip(events))
        expectRejection(.invalidArgument) { try Trip.decide(.selectRoute(index: 3, at: Fixtures.t(16)), state: givenTrip(events)) }
        expectRejection(.invalidArgument) { try Trip.decide(.selectRoute(index: -1, at: Fixtures.t(16)), state: givenTrip(events)) }
    }

    @Test func aPlanWhoseLegsAreNotThoseOfTheChosenRouteIsRejected() {
        var plan = Self.plan()
        plan.selectedRouteIndex = 1  // legs and token still those of route 0
        expectRejection(.invalidArgument) { try Trip.decide(.planRoute(plan, at: Fixtures.t(15)), state: givenTrip(Self.trip)) }
    }

    @Test func aRoutePlannedPayloadWrittenBeforeStepsAndAlternativesStillDecodes() throws {
        // The shape stored before legs had steps and plans had alternatives.
        let stored = #"{"at":"2026-03-01T08:00:15.000000Z","plan":{"destinations":[{"point":{"latitude":52.52,"longitude":13.405},"via":false}],"legs":[{"distanceMeters":700,"durationSeconds":90,"encodedPolyline":"_seK_gxpA?_ibE"}],"objectives":[],"options":{"avoidFerries":false,"avoidHighways":false,"avoidTolls":false,"avoidTunnels":false,"avoidVignettes":[]},"rerouteStrategy":{},"routeToken":"tok","routingPreference":"TRAFFIC_AWARE","travelMode":"DRIVE"},"tripId":"t-1","vehicleId":"v-1"}"#
        let event = try Trip.Event.decode(type: Trip.Event.tripRoutePlanned, data: Data(stored.utf8))
        guard case .routePlanned(let planned) = event else { Issue.record("not a plan"); return }
        #expect(planned.plan.legs[0].steps == nil)
        #expect(planned.plan.routes == nil)
        #expect(planned.plan.routeIndex == 0)
        #expect(planned.plan.routeCount == 1)
        let oldReport = #"{"at":"2026-03-01T08:00:16.000000Z","effective":{"options":{"avoidFerries":false,"avoidHighways":false,"avoidTolls":false,"avoidTunnels":false,"avoidVignettes":[]},"rerouteStrategy":{},"travelMode":"DRIVE"},"status":"TOKEN_SUCCESSFULLY_APPLIED","tokenApplied":true,"tripId":"t-1"}"#
        let report = try Trip.Event.decode(type: Trip.Event.tripRouteTokenExecutionReported, data: Data(oldReport.utf8))
        guard case .routeTokenExecutionReported(let r) = report else { Issue.record("not a report"); return }
        #expect(r.routeStatus == nil)
        // An old report (no route status) counts as guidance started.
        #expect(givenTrip(Self.trip + [event, report]).guidanceStarted)
    }

    @Test func continueAfterTheVehicleArrivedRecordsTheArrivalThenDeparts() throws {
        let events = TripFixtures.assignedTrip(intermediates: [Fixtures.stop1]) + [TripFixtures.status(.new, .enrouteToPickup, at: Fixtures.t(12))]
        expectRejection(.failedPrecondition) { try Trip.decide(.continueToNextDestination(vehicleArrived: false, at: Fixtures.t(20)), state: givenTrip(events)) }
        let produced = try Trip.decide(.continueToNextDestination(vehicleArrived: true, at: Fixtures.t(20)), state: givenTrip(events))
        #expect(produced == [
            TripFixtures.status(.enrouteToPickup, .arrivedAtPickup, at: Fixtures.t(20)),
            TripFixtures.status(.arrivedAtPickup, .enrouteToIntermediateDestination, index: 0, at: Fixtures.t(20)),
        ])
    }

    @Test func continueEnRouteToTheDropoffIsRefusedEvenWhenTheVehicleArrived() {
        let events = TripFixtures.assignedTrip() + [TripFixtures.status(.new, .enrouteToDropoff, at: Fixtures.t(12))]
        expectRejection(.failedPrecondition) { try Trip.decide(.continueToNextDestination(vehicleArrived: true, at: Fixtures.t(20)), state: givenTrip(events)) }
    }
}
