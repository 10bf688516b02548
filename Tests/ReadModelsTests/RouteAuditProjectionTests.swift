import Geo
import JSON
import Journey
import ReadModels
import Testing

/// The route audit of a trip: planned against driven, off-route episodes, arrivals per stop.
@Suite struct RouteAuditProjectionTests {
    static let key = "providers/acme/trips/t-1"
    static let leg0 = Polyline.encode([FleetScenario.start, FleetScenario.pickup.point])

    /// The full exclusive trip of `FleetScenario.completed`, with the vehicle following each plan
    /// leg as it heads for its stop, and leaving the first for three reports (about 140 m east) before rejoining.
    static func offRouteTrip() throws -> FleetScenario {
        var s = try FleetScenario.enrouteToPickup()
        try s.trip("t-1", .reportRouteTokenExecution(.tokenSuccessfullyApplied, resolved: nil, at: FleetScenario.t(31)), at: 31)
        try s.vehicle("v-1", .followRoute(tripId: "t-1", encodedPath: leg0, at: FleetScenario.t(32)), at: 32)
        try s.report("v-1", FleetScenario.point(52.5170, 13.4050), at: 40)
        try s.report("v-1", FleetScenario.point(52.5175, 13.4060), at: 45)
        try s.report("v-1", FleetScenario.point(52.5180, 13.4065), at: 50)
        try s.report("v-1", FleetScenario.point(52.5185, 13.4035), at: 55)
        try s.report("v-1", FleetScenario.pickup.point, at: 60)
        try s.trip("t-1", .updateTripStatus(.arrivedAtPickup, at: FleetScenario.t(61)), at: 61)
        try s.trip("t-1", .continueToNextDestination(at: FleetScenario.t(70)), at: 70)
        try s.vehicle("v-1", .followRoute(tripId: "t-1", encodedPath: FleetScenario.plan.legs[1].encodedPolyline, at: FleetScenario.t(70.5)), at: 70.5)
        try s.report("v-1", FleetScenario.stop1.point, at: 170)
        try s.trip("t-1", .updateTripStatus(.arrivedAtIntermediateDestination, intermediateDestinationIndex: 0, at: FleetScenario.t(171)), at: 171)
        try s.trip("t-1", .continueToNextDestination(at: FleetScenario.t(180)), at: 180)
        try s.vehicle("v-1", .followRoute(tripId: "t-1", encodedPath: FleetScenario.plan.legs[2].encodedPolyline, at: FleetScenario.t(180.5)), at: 180.5)
        try s.report("v-1", FleetScenario.stop2.point, at: 270)
        try s.trip("t-1", .updateTripStatus(.arrivedAtIntermediateDestination, intermediateDestinationIndex: 1, at: FleetScenario.t(271)), at: 271)
        try s.trip("t-1", .continueToNextDestination(at: FleetScenario.t(280)), at: 280)
        try s.vehicle("v-1", .followRoute(tripId: "t-1", encodedPath: FleetScenario.plan.legs[3].encodedPolyline, at: FleetScenario.t(280.5)), at: 280.5)
        try s.report("v-1", FleetScenario.dropoff.point, at: 500)
        try s.trip("t-1", .updateTripStatus(.complete, at: FleetScenario.t(501)), at: 501)
        // after the trip: not part of its driven path
        try s.report("v-1", FleetScenario.start, at: 600)
        return s
    }

    static func fold(_ envelopes: some Sequence<EventEnvelope>) -> ProjectionStore<RouteAuditProjection> {
        var store = ProjectionStore<RouteAuditProjection>()
        store.apply(envelopes)
        return store
    }

    @Test func completedTripWithAnOffRouteEpisodeMatchesGolden() throws {
        // given the whole trip, off route for three reports on the way to the pickup
        let store = Self.fold(try Self.offRouteTrip().envelopes)
        // then the audit holds the quoted plan, the applied token, the driven path (the report
        // after COMPLETE excluded), one rejoined episode, the distances and each stop's times
        let expected = try golden(#"""
            {
              "name": "providers/acme/trips/t-1",
              "tripId": "t-1",
              "vehicleId": "v-1",
              "tripType": "EXCLUSIVE",
              "tripStatus": "COMPLETE",
              "createTime": "2026-03-01T08:00:10.001000Z",
              "startTime": "2026-03-01T08:00:20.001000Z",
              "endTime": "2026-03-01T08:08:21.001000Z",
              "plannedRoute": {
                "planTime": "2026-03-01T08:00:21.001000Z",
                "legs": [
                  {
                    "destination": {
                      "latitude": 52.52,
                      "longitude": 13.405
                    },
                    "encodedPolyline": "wyo_I_expAg^g^",
                    "distanceMeters": 700,
                    "duration": "120s"
                  },
                  {
                    "destination": {
                      "latitude": 52.525,
                      "longitude": 13.41
                    },
                    "encodedPolyline": "_yp_IgdypAg^g^",
                    "distanceMeters": 660,
                    "duration": "100s"
                  },
                  {
                    "destination": {
                      "latitude": 52.53,
                      "longitude": 13.415
                    },
                    "encodedPolyline": "gxq_IoczpAg^g^",
                    "distanceMeters": 655,
                    "duration": "90s"
                  },
                  {
                    "destination": {
                      "latitude": 52.54,
                      "longitude": 13.425
                    },
                    "encodedPolyline": "owr_Iwb{pAo}@o}@",
                    "distanceMeters": 1310,
                    "duration": "200s"
                  }
                ],
                "distanceMeters": 3325,
                "duration": "510s",
                "routeTokenPresent": true,
                "travelMode": "DRIVE",
                "routingPreference": "TRAFFIC_AWARE",
                "requestedParameters": {
                  "travelMode": "DRIVE"
                }
              },
              "planCount": 1,
              "routeTokenExecution": {
                "status": "TOKEN_SUCCESSFULLY_APPLIED",
                "tokenApplied": true,
                "resolvedParameters": {
                  "travelMode": "DRIVE"
                },
                "reportTime": "2026-03-01T08:00:31.001000Z"
              },
              "drivenPath": {
                "encodedPolyline": "_`p_IgkxpAgE_XcBgEcBcBcBvQkHkHg^g^g^g^o}@o}@",
                "distanceMeters": 3454,
                "reportCount": 9,
                "pointCount": 9,
                "simplified": false,
                "firstReportTime": "2026-03-01T08:00:30.001000Z",
                "lastReportTime": "2026-03-01T08:08:20.001000Z"
              },
              "distance": {
                "plannedMeters": 3325,
                "drivenMeters": 3454,
                "differenceMeters": 129
              },
              "offRouteEpisodes": [
                {
                  "startTime": "2026-03-01T08:00:50.002000Z",
                  "endTime": "2026-03-01T08:00:55.002000Z",
                  "duration": "5s",
                  "startLocation": {
                    "latitude": 52.518,
                    "longitude": 13.4065
                  },
                  "endLocation": {
                    "latitude": 52.5185,
                    "longitude": 13.4035
                  },
                  "maxDeviationMeters": 202.3,
                  "thresholdMeters": 50,
                  "resolution": "REJOINED"
                }
              ],
              "stops": [
                {
                  "waypointType": "PICKUP_WAYPOINT_TYPE",
                  "location": {
                    "latitude": 52.52,
                    "longitude": 13.405
                  },
                  "plannedArrivalTime": "2026-03-01T08:02:21.001000Z",
                  "actualArrivalTime": "2026-03-01T08:01:01.001000Z",
                  "arrivalDelay": "-80s",
                  "departureTime": "2026-03-01T08:01:10.001000Z"
                },
                {
                  "waypointType": "INTERMEDIATE_DESTINATION_WAYPOINT_TYPE",
                  "intermediateDestinationIndex": 0,
                  "location": {
                    "latitude": 52.525,
                    "longitude": 13.41
                  },
                  "plannedArrivalTime": "2026-03-01T08:04:01.001000Z",
                  "actualArrivalTime": "2026-03-01T08:02:51.001000Z",
                  "arrivalDelay": "-70s",
                  "departureTime": "2026-03-01T08:03:00.001000Z"
                },
                {
                  "waypointType": "INTERMEDIATE_DESTINATION_WAYPOINT_TYPE",
                  "intermediateDestinationIndex": 1,
                  "location": {
                    "latitude": 52.53,
                    "longitude": 13.415
                  },
                  "plannedArrivalTime": "2026-03-01T08:05:31.001000Z",
                  "actualArrivalTime": "2026-03-01T08:04:31.001000Z",
                  "arrivalDelay": "-60s",
                  "departureTime": "2026-03-01T08:04:40.001000Z"
                },
                {
                  "waypointType": "DROP_OFF_WAYPOINT_TYPE",
                  "location": {
                    "latitude": 52.54,
                    "longitude": 13.425
                  },
                  "plannedArrivalTime": "2026-03-01T08:08:51.001000Z",
                  "actualArrivalTime": "2026-03-01T08:08:21.001000Z",
                  "arrivalDelay": "-30s"
                }
              ]
            }
            """#)
        #expect(store.document("audits", Self.key)?.compactString == expected.compactString)
    }

    @Test func openEpisodeTracksTheLargestDeviationUntilTheVehicleRejoins() throws {
        var s = try FleetScenario.enrouteToPickup()
        try s.vehicle("v-1", .followRoute(tripId: "t-1", encodedPath: Self.leg0, at: FleetScenario.t(32)), at: 32)
        for (i, lng) in [13.4050, 13.4060, 13.4065, 13.4075].enumerated() {
            try s.report("v-1", FleetScenario.point(52.5170 + Double(i) * 0.0005, lng), at: 40 + Double(i) * 5)
        }
        let open = Self.fold(s.envelopes).document("audits", Self.key)?["offRouteEpisodes"]?[0]
        // then the episode is open (no end) and its maximum grew past the 202.3 m it opened with
        // (the third report, as in the golden) with the fourth, farther report
        #expect(open?["endTime"] == nil)
        #expect(open?["resolution"] == nil)
        let maximum = try #require(open?["maxDeviationMeters"]?.doubleValue)
        #expect(maximum > 202.3)
        // when a new segment is sent while off route (the domain records a reroute)
        try s.vehicle("v-1", .updateRouteSegment(
            encodedPath: Polyline.encode([FleetScenario.point(52.5185, 13.4075), FleetScenario.pickup.point]), at: FleetScenario.t(60)), at: 60)
        let closed = Self.fold(s.envelopes).document("audits", Self.key)?["offRouteEpisodes"]?[0]
        #expect(closed?["resolution"] == "REROUTED")
        #expect(closed?["endTime"] == .string(try #require(s.envelopes.last?.recordedAt.rfc3339)))
    }

    @Test func drivenPathIsThinnedBeyondTheCapButDistanceCountsEveryReport() throws {
        var s = try FleetScenario.enrouteToPickup()
        let base = s.envelopes.count
        let reports = RouteAuditProjection.maximumDrivenPoints * 2 + 10
        for i in 0..<reports {
            // about 1.1 m north per report
            try s.report("v-1", FleetScenario.point(52.5160 + Double(i) * 0.00001, 13.4010), at: 31 + Double(i))
        }
        let path = try #require(Self.fold(s.envelopes).document("audits", Self.key)?["drivenPath"])
        let points = try Polyline.decode(try #require(path["encodedPolyline"]?.stringValue))
        #expect(s.envelopes.count == base + reports)
        #expect(points.count <= RouteAuditProjection.maximumDrivenPoints + 1)
        #expect(path["simplified"] == true)
        #expect(path["reportCount"]?.int64Value == Int64(reports + 1))
        // the last drawn point is the latest report, and the distance is the full ~2.2 km
        #expect(points.last.map { Distance.meters($0, FleetScenario.point(52.5160 + Double(reports - 1) * 0.00001, 13.4010)) < 1 } == true)
        let meters = try #require(path["distanceMeters"]?.int64Value)
        #expect(abs(meters - Int64((Double(reports - 1) * 1.112).rounded())) < 5)
    }

    @Test func loadThenContinueEqualsApplyAllAtEverySplitPoint() throws {
        let envelopes = try Self.offRouteTrip().envelopes
        let all = Self.fold(envelopes)
        for split in 1..<envelopes.count {
            let first = Self.fold(envelopes[..<split])
            var restarted = ProjectionStore<RouteAuditProjection>()
            restarted.projection.load(first.stored.reversed())
            restarted.documents = first.documents
            #expect(restarted.projection == first.projection, "state differs after load at split \(split)")
            restarted.apply(envelopes[split...])
            #expect(restarted.documents == all.documents, "documents differ at split \(split)")
        }
    }

    @Test func replanKeepsTheQuotedPlanAndReschedulesOnlyStopsNotReached() throws {
        var s = try FleetScenario.enrouteToPickup()
        try s.trip("t-1", .updateTripStatus(.arrivedAtPickup, at: FleetScenario.t(61)), at: 61)
        let rest = RoutePlan(
            destinations: Array(FleetScenario.plan.destinations.dropFirst()), legs: Array(FleetScenario.plan.legs.dropFirst()),
            routeToken: nil, travelMode: .drive, routingPreference: .trafficUnaware)
        try s.trip("t-1", .planRoute(rest, at: FleetScenario.t(65)), at: 65)
        let audit = try #require(Self.fold(s.envelopes).document("audits", Self.key))
        #expect(audit["planCount"] == 2)
        #expect(audit["plannedRoute"]?["routeTokenPresent"] == true)
        #expect(audit["latestPlannedRoute"]?["routeTokenPresent"] == false)
        #expect(audit["routeTokenExecution"] == nil)
        let replannedAt = try #require(s.envelopes.last?.recordedAt)
        // the pickup (reached) keeps its first planned arrival; stop 1 is now 100 s after the replan
        #expect(audit["stops"]?[0]?["plannedArrivalTime"]?.stringValue == FleetScenario.t(21).adding(microseconds: 1000).adding(seconds: 120).rfc3339)
        #expect(audit["stops"]?[1]?["plannedArrivalTime"]?.stringValue == replannedAt.adding(seconds: 100).rfc3339)
    }
}
