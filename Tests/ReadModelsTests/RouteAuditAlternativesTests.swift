import Geo
import JSON
import Journey
import ReadModels
import Testing

/// The route audit of a plan with alternatives: the chosen route is the one audited, and the
/// navigation app's route status is kept with the token execution.
@Suite struct RouteAuditAlternativesTests {
    @Test func theAuditFollowsTheChosenRouteAndKeepsTheRouteStatus() throws {
        var s = try FleetScenario.withVehicle()
        try s.trip("t-1", .createTrip(.init(tripId: "t-1", tripType: .exclusive, pickup: FleetScenario.pickup, dropoff: FleetScenario.dropoff,
                                            intermediateDestinations: [FleetScenario.stop1, FleetScenario.stop2]), at: FleetScenario.t(10)), at: 10)
        try s.trip("t-1", .assignVehicle(vehicleId: "v-1", vehicle: s.vehicles["v-1"], at: FleetScenario.t(20)), at: 20)
        var plan = FleetScenario.plan
        var longer = plan.legs
        longer[0] = RoutePlan.Leg(encodedPolyline: Polyline.encode([FleetScenario.start, FleetScenario.point(52.5150, 13.4050), FleetScenario.pickup.point]),
                                  distanceMeters: 900, durationSeconds: 150)
        plan.routes = [RoutePlan.Route(routeToken: "route-token-1", legs: plan.legs), RoutePlan.Route(routeToken: "route-token-2", legs: longer)]
        try s.trip("t-1", .planRoute(plan, at: FleetScenario.t(21)), at: 21)
        try s.trip("t-1", .selectRoute(index: 1, at: FleetScenario.t(22)), at: 22)
        try s.trip("t-1", .reportRouteTokenExecution(.tokenSuccessfullyApplied, resolved: nil, routeStatus: .ok, at: FleetScenario.t(23)), at: 23)
        var store = ProjectionStore<RouteAuditProjection>()
        store.apply(s.envelopes)
        let audit = try #require(store.document(RouteAuditProjection.auditsCollection, "providers/acme/trips/t-1"))
        #expect(audit["plannedRoute"]?["routeIndex"]?.int64Value == 1)
        #expect(audit["plannedRoute"]?["routeCount"]?.int64Value == 2)
        #expect(audit["plannedRoute"]?["legs"]?.arrayValue?.first?["distanceMeters"]?.int64Value == 900)
        #expect(audit["plannedRoute"]?["distanceMeters"]?.int64Value == 3525)  // 900 + 660 + 655 + 1310
        #expect(audit["routeTokenExecution"]?["routeStatus"]?.stringValue == "OK")
        // Restarting from the stored documents gives the same model.
        var restarted = RouteAuditProjection()
        restarted.load(store.stored)
        #expect(restarted == store.projection)
    }
}
