import Geo
import JSON
import Journey
import ReadModels
import Testing

/// The Trip and Vehicle resources of `FleetResourceProjection`, byte for byte.
@Suite struct FleetResourceProjectionTests {
    static let tripKey = "providers/acme/trips/t-1"
    static let vehicleKey = "providers/acme/vehicles/v-1"

    static func fold(_ scenario: FleetScenario) -> ProjectionStore<FleetResourceProjection> {
        var store = ProjectionStore<FleetResourceProjection>()
        store.apply(scenario.envelopes)
        return store
    }

    /// Expects `document` to be the golden text's document byte for byte as stored: canonical, so
    /// the goldens list members in proto order for the reader while the table has them in key order.
    static func expectGolden(_ document: JSONValue?, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let expected = try golden(text)
        #expect(document?.canonicalString == expected.canonicalString, sourceLocation: sourceLocation)
    }

    @Test func tripEnRouteToPickupHasDerivedWaypointsSegmentAndVersions() throws {
        // given a vehicle, an exclusive trip with two stops, a plan, a route segment and an ETA report
        let store = Self.fold(try FleetScenario.enrouteToPickup())
        // then the first waypoint is measured by the vehicle's reports, later ones by the plan legs,
        // ETAs chain through leg durations, and every version is the recordedAt of its change
        try Self.expectGolden(store.document("trips", Self.tripKey), #"""
        {
          "name": "providers/acme/trips/t-1",
          "vehicleId": "v-1",
          "tripStatus": "ENROUTE_TO_PICKUP",
          "tripType": "EXCLUSIVE",
          "pickupPoint": {"point":{"latitude":52.52,"longitude":13.405}},
          "pickupTime": "2026-03-01T08:02:16.000000Z",
          "intermediateDestinations": [{"point":{"latitude":52.525,"longitude":13.41}},{"point":{"latitude":52.53,"longitude":13.415}}],
          "intermediateDestinationsVersion": "2026-03-01T08:00:10.000000Z",
          "dropoffPoint": {"point":{"latitude":52.54,"longitude":13.425}},
          "dropoffTime": "2026-03-01T08:08:46.000000Z",
          "remainingWaypoints": [
            {
              "location": {"point":{"latitude":52.52,"longitude":13.405}},
              "tripId": "t-1",
              "waypointType": "PICKUP_WAYPOINT_TYPE",
              "pathToWaypoint": [{"latitude":52.515,"longitude":13.4},{"latitude":52.5175,"longitude":13.4025},{"latitude":52.52,"longitude":13.405}],
              "encodedPathToWaypoint": "wyo_I_expAsNsNsNsN",
              "trafficToWaypoint": {
                "speedReadingInterval": [
                  {"endPolylinePointIndex":1,"speed":"NORMAL"},
                  {"startPolylinePointIndex":1,"endPolylinePointIndex":2,"speed":"SLOW"}
                ],
                "encodedPathToWaypoint": "wyo_I_expAsNsNsNsN"
              },
              "distanceMeters": 650,
              "eta": "2026-03-01T08:02:16.000000Z",
              "duration": "110s"
            },
            {
              "location": {"point":{"latitude":52.525,"longitude":13.41}},
              "tripId": "t-1",
              "waypointType": "INTERMEDIATE_DESTINATION_WAYPOINT_TYPE",
              "pathToWaypoint": [{"latitude":52.52,"longitude":13.405},{"latitude":52.525,"longitude":13.41}],
              "encodedPathToWaypoint": "_yp_IgdypAg^g^",
              "distanceMeters": 660,
              "eta": "2026-03-01T08:03:56.000000Z",
              "duration": "100s"
            },
            {
              "location": {"point":{"latitude":52.53,"longitude":13.415}},
              "tripId": "t-1",
              "waypointType": "INTERMEDIATE_DESTINATION_WAYPOINT_TYPE",
              "pathToWaypoint": [{"latitude":52.525,"longitude":13.41},{"latitude":52.53,"longitude":13.415}],
              "encodedPathToWaypoint": "gxq_IoczpAg^g^",
              "distanceMeters": 655,
              "eta": "2026-03-01T08:05:26.000000Z",
              "duration": "90s"
            },
            {
              "location": {"point":{"latitude":52.54,"longitude":13.425}},
              "tripId": "t-1",
              "waypointType": "DROP_OFF_WAYPOINT_TYPE",
              "pathToWaypoint": [{"latitude":52.53,"longitude":13.415},{"latitude":52.54,"longitude":13.425}],
              "encodedPathToWaypoint": "owr_Iwb{pAo}@o}@",
              "distanceMeters": 1310,
              "eta": "2026-03-01T08:08:46.000000Z",
              "duration": "200s"
            }
          ],
          "vehicleWaypoints": [
            {
              "location": {"point":{"latitude":52.52,"longitude":13.405}},
              "tripId": "t-1",
              "waypointType": "PICKUP_WAYPOINT_TYPE"
            },
            {
              "location": {"point":{"latitude":52.525,"longitude":13.41}},
              "tripId": "t-1",
              "waypointType": "INTERMEDIATE_DESTINATION_WAYPOINT_TYPE"
            },
            {
              "location": {"point":{"latitude":52.53,"longitude":13.415}},
              "tripId": "t-1",
              "waypointType": "INTERMEDIATE_DESTINATION_WAYPOINT_TYPE"
            },
            {
              "location": {"point":{"latitude":52.54,"longitude":13.425}},
              "tripId": "t-1",
              "waypointType": "DROP_OFF_WAYPOINT_TYPE"
            }
          ],
          "route": [{"latitude":52.515,"longitude":13.4},{"latitude":52.5175,"longitude":13.4025},{"latitude":52.52,"longitude":13.405}],
          "currentRouteSegment": "wyo_I_expAsNsNsNsN",
          "currentRouteSegmentVersion": "2026-03-01T08:00:25.001000Z",
          "currentRouteSegmentTraffic": {
            "speedReadingInterval": [
              {"endPolylinePointIndex":1,"speed":"NORMAL"},
              {"startPolylinePointIndex":1,"endPolylinePointIndex":2,"speed":"SLOW"}
            ],
            "encodedPathToWaypoint": "wyo_I_expAsNsNsNsN"
          },
          "currentRouteSegmentTrafficVersion": "2026-03-01T08:00:25.001000Z",
          "currentRouteSegmentEndPoint": {
            "location": {"point":{"latitude":52.52,"longitude":13.405}},
            "tripId": "t-1",
            "waypointType": "PICKUP_WAYPOINT_TYPE"
          },
          "remainingDistanceMeters": 650,
          "etaToFirstWaypoint": "2026-03-01T08:02:16.000000Z",
          "remainingWaypointsVersion": "2026-03-01T08:00:20.001000Z",
          "remainingWaypointsRouteVersion": "2026-03-01T08:00:25.001000Z",
          "numberOfPassengers": 2,
          "lastLocation": {
            "location": {"latitude":52.516,"longitude":13.401},
            "latlngAccuracy": 4.5,
            "heading": 45,
            "speed": 8.25,
            "updateTime": "2026-03-01T08:00:29.000000Z",
            "serverTime": "2026-03-01T08:00:30.000000Z",
            "locationSensor": "GPS"
          },
          "attributes": [
            {"key":"tier","stringValue":"gold"}
          ]
        }
        """#)
    }

    @Test func vehicleEnRouteToPickupHasReportsWaypointsAndRoadStretches() throws {
        let store = Self.fold(try FleetScenario.enrouteToPickup())
        try Self.expectGolden(store.document("vehicles", Self.vehicleKey), #"""
        {
          "name": "providers/acme/vehicles/v-1",
          "vehicleState": "ONLINE",
          "supportedTripTypes": ["EXCLUSIVE","SHARED"],
          "currentTrips": ["t-1"],
          "lastLocation": {
            "location": {"latitude":52.516,"longitude":13.401},
            "latlngAccuracy": 4.5,
            "heading": 45,
            "speed": 8.25,
            "updateTime": "2026-03-01T08:00:29.000000Z",
            "serverTime": "2026-03-01T08:00:30.000000Z",
            "locationSensor": "GPS"
          },
          "maximumCapacity": 4,
          "attributes": [
            {"key":"color","value":"blue","stringValue":"blue"}
          ],
          "vehicleType": {"category":"AUTO"},
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
          "waypoints": [
            {
              "location": {"point":{"latitude":52.52,"longitude":13.405}},
              "tripId": "t-1",
              "waypointType": "PICKUP_WAYPOINT_TYPE",
              "distanceMeters": 650,
              "eta": "2026-03-01T08:02:16.000000Z",
              "duration": "110s"
            },
            {
              "location": {"point":{"latitude":52.525,"longitude":13.41}},
              "tripId": "t-1",
              "waypointType": "INTERMEDIATE_DESTINATION_WAYPOINT_TYPE",
              "distanceMeters": 660,
              "eta": "2026-03-01T08:03:56.000000Z",
              "duration": "100s"
            },
            {
              "location": {"point":{"latitude":52.53,"longitude":13.415}},
              "tripId": "t-1",
              "waypointType": "INTERMEDIATE_DESTINATION_WAYPOINT_TYPE",
              "distanceMeters": 655,
              "eta": "2026-03-01T08:05:26.000000Z",
              "duration": "90s"
            },
            {
              "location": {"point":{"latitude":52.54,"longitude":13.425}},
              "tripId": "t-1",
              "waypointType": "DROP_OFF_WAYPOINT_TYPE",
              "distanceMeters": 1310,
              "eta": "2026-03-01T08:08:46.000000Z",
              "duration": "200s"
            }
          ],
          "waypointsVersion": "2026-03-01T08:00:20.002000Z"
        }
        """#)
    }

    @Test func completedTripKeepsActualTimesAndDropsVehicleDerivedFields() throws {
        // given the whole lifecycle: pickup, both intermediate stops, dropoff, COMPLETE
        let store = Self.fold(try FleetScenario.completed())
        // then pickupTime is the provider's actual pickup time, dropoffTime the recorded COMPLETE,
        // and nothing comes from the vehicle any more
        try Self.expectGolden(store.document("trips", Self.tripKey), #"""
        {
          "name": "providers/acme/trips/t-1",
          "vehicleId": "v-1",
          "tripStatus": "COMPLETE",
          "tripType": "EXCLUSIVE",
          "pickupPoint": {"point":{"latitude":52.52,"longitude":13.405}},
          "actualPickupPoint": {"point":{"latitude":52.52,"longitude":13.405},"timestamp":"2026-03-01T08:01:05.000000Z"},
          "pickupTime": "2026-03-01T08:01:05.000000Z",
          "intermediateDestinations": [{"point":{"latitude":52.525,"longitude":13.41}},{"point":{"latitude":52.53,"longitude":13.415}}],
          "intermediateDestinationsVersion": "2026-03-01T08:00:10.000000Z",
          "intermediateDestinationIndex": 1,
          "dropoffPoint": {"point":{"latitude":52.54,"longitude":13.425}},
          "dropoffTime": "2026-03-01T08:08:01.001000Z",
          "currentRouteSegmentVersion": "2026-03-01T08:01:10.003000Z",
          "currentRouteSegmentTrafficVersion": "2026-03-01T08:01:10.003000Z",
          "remainingWaypointsVersion": "2026-03-01T08:08:01.001000Z",
          "remainingWaypointsRouteVersion": "2026-03-01T08:08:01.001000Z",
          "numberOfPassengers": 2,
          "attributes": [
            {"key":"tier","stringValue":"gold"}
          ]
        }
        """#)
        // and the vehicle has released the trip
        try Self.expectGolden(store.document("vehicles", Self.vehicleKey), #"""
        {
          "name": "providers/acme/vehicles/v-1",
          "vehicleState": "ONLINE",
          "supportedTripTypes": ["EXCLUSIVE","SHARED"],
          "lastLocation": {
            "location": {"latitude":52.54,"longitude":13.425},
            "latlngAccuracy": 4.5,
            "heading": 45,
            "speed": 8.25,
            "updateTime": "2026-03-01T08:07:59.000000Z",
            "serverTime": "2026-03-01T08:08:00.000000Z",
            "locationSensor": "GPS"
          },
          "maximumCapacity": 4,
          "attributes": [
            {"key":"color","value":"blue","stringValue":"blue"}
          ],
          "vehicleType": {"category":"AUTO"},
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
          "waypointsVersion": "2026-03-01T08:08:01.002000Z"
        }
        """#)
    }

    @Test func journeySharingViewComesFromTheStoredSDKDocument() throws {
        let store = Self.fold(try FleetScenario.enrouteToPickup())
        let document = try #require(store.document("trips", Self.tripKey))
        // when the JOURNEY_SHARING_V1S view is made from the one stored document
        let view = FleetResourceViews.journeySharingTrip(document)
        // then only that view's fields remain, without SDK-only encoded paths
        try Self.expectGolden(view, #"""
        {
          "name": "providers/acme/trips/t-1",
          "vehicleId": "v-1",
          "tripStatus": "ENROUTE_TO_PICKUP",
          "tripType": "EXCLUSIVE",
          "pickupPoint": {"point":{"latitude":52.52,"longitude":13.405}},
          "pickupTime": "2026-03-01T08:02:16.000000Z",
          "intermediateDestinations": [{"point":{"latitude":52.525,"longitude":13.41}},{"point":{"latitude":52.53,"longitude":13.415}}],
          "intermediateDestinationsVersion": "2026-03-01T08:00:10.000000Z",
          "dropoffPoint": {"point":{"latitude":52.54,"longitude":13.425}},
          "dropoffTime": "2026-03-01T08:08:46.000000Z",
          "remainingWaypoints": [
            {
              "location": {"point":{"latitude":52.52,"longitude":13.405}},
              "tripId": "t-1",
              "waypointType": "PICKUP_WAYPOINT_TYPE",
              "pathToWaypoint": [{"latitude":52.515,"longitude":13.4},{"latitude":52.5175,"longitude":13.4025},{"latitude":52.52,"longitude":13.405}],
              "trafficToWaypoint": {
                "speedReadingInterval": [
                  {"endPolylinePointIndex":1,"speed":"NORMAL"},
                  {"startPolylinePointIndex":1,"endPolylinePointIndex":2,"speed":"SLOW"}
                ]
              },
              "distanceMeters": 650,
              "eta": "2026-03-01T08:02:16.000000Z",
              "duration": "110s"
            },
            {
              "location": {"point":{"latitude":52.525,"longitude":13.41}},
              "tripId": "t-1",
              "waypointType": "INTERMEDIATE_DESTINATION_WAYPOINT_TYPE",
              "pathToWaypoint": [{"latitude":52.52,"longitude":13.405},{"latitude":52.525,"longitude":13.41}],
              "distanceMeters": 660,
              "eta": "2026-03-01T08:03:56.000000Z",
              "duration": "100s"
            },
            {
              "location": {"point":{"latitude":52.53,"longitude":13.415}},
              "tripId": "t-1",
              "waypointType": "INTERMEDIATE_DESTINATION_WAYPOINT_TYPE",
              "pathToWaypoint": [{"latitude":52.525,"longitude":13.41},{"latitude":52.53,"longitude":13.415}],
              "distanceMeters": 655,
              "eta": "2026-03-01T08:05:26.000000Z",
              "duration": "90s"
            },
            {
              "location": {"point":{"latitude":52.54,"longitude":13.425}},
              "tripId": "t-1",
              "waypointType": "DROP_OFF_WAYPOINT_TYPE",
              "pathToWaypoint": [{"latitude":52.53,"longitude":13.415},{"latitude":52.54,"longitude":13.425}],
              "distanceMeters": 1310,
              "eta": "2026-03-01T08:08:46.000000Z",
              "duration": "200s"
            }
          ],
          "numberOfPassengers": 2,
          "lastLocation": {
            "location": {"latitude":52.516,"longitude":13.401},
            "latlngAccuracy": 4.5,
            "heading": 45,
            "speed": 8.25,
            "updateTime": "2026-03-01T08:00:29.000000Z",
            "serverTime": "2026-03-01T08:00:30.000000Z",
            "locationSensor": "GPS"
          },
          "view": "JOURNEY_SHARING_V1S"
        }
        """#)
    }
}
