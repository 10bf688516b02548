import Geo
import Journey
import Testing

@Suite("Vehicle: off-route detection")
struct OffRouteTests {
    /// A vehicle serving t-1 and following `Fixtures.eastPath`.
    static func following() throws -> [Vehicle.Event] {
        let created = TripFixtures.created()
        let trip = givenTrip([created, TripFixtures.assigned(givenTrip([created]))])
        var events = try VehicleFixtures.withTrip(trip)
        events += try Vehicle.decide(.followRoute(tripId: "t-1", encodedPath: Fixtures.eastPolyline, at: Fixtures.t(12)), state: givenVehicle(events))
        return events
    }

    /// On the route at longitude `lng`.
    static func on(_ lng: Double, _ second: Double) -> VehicleLocation { VehicleFixtures.location(52.52, lng, device: Fixtures.t(second)) }
    /// About 111 m north of the route.
    static func off(_ lng: Double, _ second: Double) -> VehicleLocation { VehicleFixtures.location(52.521, lng, device: Fixtures.t(second)) }

    /// Applies a report and returns the events it produced.
    static func report(_ location: VehicleLocation, _ events: inout [Vehicle.Event], policy: Vehicle.Policy = .default) throws -> [Vehicle.Event] {
        let produced = try Vehicle.decide(.reportLocation(location, policy: policy, at: location.updateTime ?? Fixtures.t0), state: givenVehicle(events))
        events += produced
        return produced
    }

    @Test func followRouteRecordsThePath() throws {
        let events = try Self.following()
        #expect(events.last == .routeFollowed(.init(vehicleId: "v-1", tripId: "t-1", encodedPath: Fixtures.eastPolyline, at: Fixtures.t(12))))
        #expect(givenVehicle(events).followedRoute == Vehicle.FollowedRoute(tripId: "t-1", encodedPath: Fixtures.eastPolyline))
    }

    @Test func followingTheRouteOfATripTheVehicleDoesNotServeThrowsFailedPrecondition() {
        expectRejection(.failedPrecondition) {
            try Vehicle.decide(.followRoute(tripId: "t-9", encodedPath: Fixtures.eastPolyline, at: Fixtures.t(12)), state: givenVehicle([VehicleFixtures.registered()]))
        }
    }

    @Test func followingAnUndecodablePathThrowsInvalidArgument() throws {
        let state = givenVehicle(try Self.following())
        expectRejection(.invalidArgument) { try Vehicle.decide(.followRoute(tripId: "t-1", encodedPath: "_p~iF~ps|U_", at: Fixtures.t(13)), state: state) }
    }

    @Test func reportsOnTheRouteAreNotOffRoute() throws {
        var events = try Self.following()
        for (i, lng) in [13.401, 13.405, 13.41, 13.415].enumerated() {
            let produced = try Self.report(Self.on(lng, Double(20 + i)), &events)
            guard case .locationReported(let r) = produced.first, produced.count == 1 else { Issue.record("unexpected \(produced)"); return }
            #expect((r.routeDeviationMeters ?? 99) < 5)
            #expect(r.offRouteReportCount == 0)
            #expect(r.followedTripId == "t-1")
        }
    }

    @Test func threeConsecutiveOffRouteReportsProduceVehicleWentOffRoute() throws {
        var events = try Self.following()
        #expect(try Self.report(Self.off(13.401, 20), &events).count == 1)
        #expect(try Self.report(Self.off(13.402, 21), &events).count == 1)
        let third = try Self.report(Self.off(13.403, 22), &events)
        #expect(third.count == 2)
        guard case .wentOffRoute(let off) = third.last else { Issue.record("expected VehicleWentOffRoute, got \(third)"); return }
        #expect(off.tripId == "t-1")
        #expect(off.consecutiveReports == 3)
        #expect(off.thresholdMeters == 50)
        #expect(off.deviationMeters > 100 && off.deviationMeters < 125)
        #expect(givenVehicle(events).isOffRoute)
        // Staying off route does not repeat the fact.
        #expect(try Self.report(Self.off(13.404, 23), &events).count == 1)
    }

    @Test func anOnRouteReportResetsTheStreak() throws {
        var events = try Self.following()
        _ = try Self.report(Self.off(13.401, 20), &events)
        _ = try Self.report(Self.off(13.402, 21), &events)
        _ = try Self.report(Self.on(13.403, 22), &events)
        #expect(givenVehicle(events).offRouteReportCount == 0)
        #expect(try Self.report(Self.off(13.404, 23), &events).count == 1)
        #expect(try Self.report(Self.off(13.405, 24), &events).count == 1)
        #expect(try Self.report(Self.off(13.406, 25), &events).count == 2)
    }

    @Test func thresholdAndCountComeFromThePolicy() throws {
        var events = try Self.following()
        let policy = Vehicle.Policy(offRouteThresholdMeters: 200, offRouteConsecutiveReports: 2)
        _ = try Self.report(Self.off(13.401, 20), &events, policy: policy)
        #expect(try Self.report(Self.off(13.402, 21), &events, policy: policy).count == 1)  // 111 m is within 200 m
        let far = VehicleFixtures.location(52.5225, 13.403, device: Fixtures.t(22))        // about 278 m off
        #expect(try Self.report(far, &events, policy: policy).count == 1)
        let farther = VehicleFixtures.location(52.5225, 13.404, device: Fixtures.t(23))
        #expect(try Self.report(farther, &events, policy: policy).last?.type == Vehicle.Event.vehicleWentOffRoute)
    }

    @Test func anInvalidPolicyIsRejected() throws {
        let state = givenVehicle(try Self.following())
        expectRejection(.invalidArgument) {
            try Vehicle.decide(.reportLocation(Self.on(13.41, 20), policy: .init(offRouteThresholdMeters: 0), at: Fixtures.t(20)), state: state)
        }
        expectRejection(.invalidArgument) {
            try Vehicle.decide(.reportLocation(Self.on(13.41, 20), policy: .init(offRouteConsecutiveReports: 0), at: Fixtures.t(20)), state: state)
        }
    }

    @Test func comingBackProducesVehicleRejoinedRoute() throws {
        var events = try Self.following()
        for i in 0..<3 { _ = try Self.report(Self.off(13.401 + Double(i) / 1000, Double(20 + i)), &events) }
        let back = try Self.report(Self.on(13.41, 30), &events)
        guard case .rejoinedRoute(let rejoined) = back.last, back.count == 2 else { Issue.record("expected VehicleRejoinedRoute, got \(back)"); return }
        #expect(rejoined.tripId == "t-1")
        #expect(rejoined.deviationMeters < 5)
        let state = givenVehicle(events)
        #expect(!state.isOffRoute && state.offRouteReportCount == 0)
    }

    @Test func aNewRouteSegmentAfterLeavingProducesVehicleReroutedAndIsFollowed() throws {
        var events = try Self.following()
        for i in 0..<3 { _ = try Self.report(Self.off(13.401 + Double(i) / 1000, Double(20 + i)), &events) }
        let produced = try Vehicle.decide(.updateRouteSegment(encodedPath: Fixtures.northPolyline, at: Fixtures.t(25)), state: givenVehicle(events))
        #expect(produced.map(\.type) == [Vehicle.Event.vehicleRouteSegmentUpdated, Vehicle.Event.vehicleRerouted])
        #expect(produced.last == .rerouted(.init(vehicleId: "v-1", tripId: "t-1", encodedPath: Fixtures.northPolyline, at: Fixtures.t(25))))
        events += produced
        #expect(givenVehicle(events).followedRoute?.encodedPath == Fixtures.northPolyline)
        // A point on the new northbound path is on route, though far from the old one.
        let onNew = VehicleFixtures.location(52.525, 13.40, device: Fixtures.t(26))
        let after = try Self.report(onNew, &events)
        guard case .locationReported(let r) = after.first, after.count == 1 else { Issue.record("unexpected \(after)"); return }
        #expect(r.offRouteReportCount == 0)
    }

    @Test func aRouteSegmentWhileOnRouteIsNotAReroute() throws {
        let produced = try Vehicle.decide(.updateRouteSegment(encodedPath: Fixtures.eastPolyline, at: Fixtures.t(25)), state: givenVehicle(try Self.following()))
        #expect(produced.map(\.type) == [Vehicle.Event.vehicleRouteSegmentUpdated])
    }

    @Test func staleReportsDoNotCountTowardsOffRoute() throws {
        var events = try Self.following()
        _ = try Self.report(Self.on(13.41, 100), &events)
        for i in 0..<3 {
            let produced = try Self.report(Self.off(13.40, Double(50 + i)), &events)
            #expect(produced.map(\.type) == [Vehicle.Event.vehicleStaleLocationRecorded])
        }
        #expect(givenVehicle(events).offRouteReportCount == 0)
    }

    @Test func withoutAFollowedRouteThereIsNoDeviation() throws {
        var events = [VehicleFixtures.registered()]
        let produced = try Self.report(Self.off(13.40, 20), &events)
        guard case .locationReported(let r) = produced.first else { Issue.record("not reported"); return }
        #expect(r.routeDeviationMeters == nil)
        #expect(r.followedTripId == nil)
    }

    @Test func releasingTheFollowedTripStopsFollowing() throws {
        var events = try Self.following()
        var trip = givenTrip(TripFixtures.assignedTrip())
        trip.status = .canceled
        events += try Vehicle.decide(.syncTrip(trip, at: Fixtures.t(30)), state: givenVehicle(events))
        #expect(givenVehicle(events).followedRoute == nil)
    }
}
