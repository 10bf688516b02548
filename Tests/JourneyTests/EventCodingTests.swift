import Foundation
import Geo
import JSON
import Journey
import Testing
import Simulator

/// One sample of every event, with every optional field filled.
enum EventSamples {
    static let at = Fixtures.t(1.234567)
    static let wp = TripWaypoint(tripId: "t-1", waypointType: .pickup, location: Fixtures.pickup)
    static let location = VehicleLocation(
        location: Fixtures.point(52.52, 13.405), updateTime: Fixtures.t(1), serverTime: Fixtures.t(2), latlngAccuracy: 4.5,
        heading: 271.25, headingAccuracy: 3, speed: 12.75, speedAccuracy: 0.5, locationSensor: .roadSnappedLocationProvider, isRoadSnapped: true)
    static let params = ResolvedRoutingParameters(
        travelMode: .twoWheeler, options: RoutingOptions(avoidTolls: true, avoidHighways: false, avoidFerries: true, avoidTunnels: true, avoidVignettes: ["CH"]),
        rerouteStrategy: RerouteStrategy(timeToleranceSeconds: 90))
    static let plan = RoutePlan(
        destinations: [RoutePlan.Destination(point: Fixtures.pickup.point)],
        legs: [RoutePlan.Leg(encodedPolyline: Fixtures.eastPolyline, distanceMeters: 2040, durationSeconds: 300)],
        routeToken: "tok/en+with=chars", travelMode: .drive, routingPreference: .trafficAwareOptimal,
        objectives: [.defaultRoute, .shorterDistance], options: params.options, rerouteStrategy: params.rerouteStrategy)
    static let attributes = [Attribute(key: "s", value: .string("x\"y")), Attribute(key: "b", value: .bool(false)), Attribute(key: "n", value: .number(2.5))]

    static let trip: [Trip.Event] = [
        .created(.init(tripId: "t-1", tripType: .exclusive, pickup: Fixtures.pickup, dropoff: Fixtures.dropoff,
                       intermediateDestinations: [Fixtures.stop1, Fixtures.stop2], intermediateDestinationsVersion: at,
                       numberOfPassengers: 3, attributes: attributes, at: at)),
        .vehicleAssigned(.init(tripId: "t-1", vehicleId: "v-1", tripType: .shared, status: .enrouteToPickup, numberOfPassengers: 2, waypoints: [wp], backToBack: true, at: at)),
        .vehicleUnassigned(.init(tripId: "t-1", vehicleId: "v-1", status: .arrivedAtPickup, at: at)),
        .statusChanged(.init(tripId: "t-1", vehicleId: "v-1", from: .arrivedAtPickup, to: .enrouteToIntermediateDestination, intermediateDestinationIndex: 0, at: at)),
        .completed(.init(tripId: "t-1", vehicleId: "v-1", from: .enrouteToDropoff, at: at)),
        .canceled(.init(tripId: "t-1", vehicleId: nil, from: .new, at: at)),
        .intermediateDestinationsChanged(.init(tripId: "t-1", intermediateDestinations: [Fixtures.stop2], intermediateDestinationsVersion: at.adding(microseconds: 1), at: at)),
        .dropoffPointSet(.init(tripId: "t-1", dropoff: Fixtures.dropoff, at: at)),
        .actualLocationRecorded(.init(tripId: "t-1", stop: .intermediateDestinationArrival, intermediateDestinationIndex: 1, location: StopLocation(point: Fixtures.stop1.point, timestamp: at), at: at)),
        .attributesSet(.init(tripId: "t-1", attributes: attributes, at: at)),
        .routePlanned(.init(tripId: "t-1", vehicleId: "v-1", plan: plan, at: at)),
        .routeTokenExecutionReported(.init(tripId: "t-1", status: .tokenIgnoredMalformed, tokenApplied: false, reported: params, effective: params.keptWithoutToken, at: at)),
        .routeDestinationAdvanced(.init(tripId: "t-1", destinationIndex: 1, destination: Fixtures.stop1.point, encodedPolyline: Fixtures.northPolyline, at: at)),
        .pickupPointSet(.init(tripId: "t-1", pickup: Fixtures.stop1, at: at)),
        .deleted(.init(tripId: "t-1", vehicleId: "v-1", status: .complete, at: at)),
        .routeSelected(.init(tripId: "t-1", vehicleId: "v-1", routeIndex: 1, routeToken: "token-1", at: at)),
    ]

    static let vehicle: [Vehicle.Event] = [
        .registered(.init(vehicleId: "v-1", vehicleState: .online, supportedTripTypes: [.shared, .exclusive], maximumCapacity: 4,
                          vehicleType: VehicleType(category: .twoWheeler), attributes: attributes, backToBackEnabled: true,
                          licensePlate: LicensePlate(countryCode: "DE", lastCharacter: "7"), at: at)),
        .stateChanged(.init(vehicleId: "v-1", from: .online, to: .offline, at: at)),
        .locationReported(.init(vehicleId: "v-1", location: location, currentTripIds: ["t-1", "t-2"], followedTripId: "t-1", routeDeviationMeters: 12.345678, offRouteReportCount: 1, at: at)),
        .staleLocationRecorded(.init(vehicleId: "v-1", location: location, lastAcceptedUpdateTime: Fixtures.t(9), at: at)),
        .locationHistoryRecorded(.init(vehicleId: "v-1", locations: [location, location], at: at)),
        .routeSegmentUpdated(.init(vehicleId: "v-1", encodedPath: Fixtures.eastPolyline, traffic: [TrafficSpeedInterval(startIndex: 0, endIndex: 2, speed: .slow)], endPoint: wp, currentTripIds: ["t-1"], at: at)),
        .remainingRouteReported(.init(vehicleId: "v-1", remainingDistanceMeters: 1500, etaToFirstWaypoint: Fixtures.t(300), remainingTimeSeconds: 299, currentTripIds: ["t-1"], at: at)),
        .navigationStatusChanged(.init(vehicleId: "v-1", from: .enrouteToDestination, to: .arrivedAtDestination, at: at)),
        .waypointsReordered(.init(vehicleId: "v-1", waypoints: [wp], at: at)),
        .routeFollowed(.init(vehicleId: "v-1", tripId: "t-1", encodedPath: Fixtures.eastPolyline, at: at)),
        .wentOffRoute(.init(vehicleId: "v-1", tripId: "t-1", location: Fixtures.point(52.521, 13.4), deviationMeters: 111.2, consecutiveReports: 3, thresholdMeters: 50, at: at)),
        .rejoinedRoute(.init(vehicleId: "v-1", tripId: "t-1", location: Fixtures.point(52.52, 13.4), deviationMeters: 0.5, at: at)),
        .rerouted(.init(vehicleId: "v-1", tripId: "t-1", encodedPath: Fixtures.northPolyline, at: at)),
        .tripAssigned(.init(vehicleId: "v-1", tripId: "t-1", tripType: .exclusive, numberOfPassengers: 1, waypoints: [wp], at: at)),
        .tripWaypointsUpdated(.init(vehicleId: "v-1", tripId: "t-1", tripStatus: .enrouteToDropoff, waypoints: [], at: at)),
        .tripReleased(.init(vehicleId: "v-1", tripId: "t-1", reason: .unassigned, waypoints: [wp], at: at)),
        .attributesSet(.init(vehicleId: "v-1", attributes: attributes, merged: true, at: at)),
        .backToBackEnabledChanged(.init(vehicleId: "v-1", backToBackEnabled: true, at: at)),
        .capabilitiesChanged(.init(vehicleId: "v-1", maximumCapacity: 6, supportedTripTypes: [.exclusive], vehicleType: VehicleType(category: .taxi), at: at)),
        .licensePlateSet(.init(vehicleId: "v-1", licensePlate: LicensePlate(countryCode: "US", lastCharacter: "-1"), at: at)),
        .deleted(.init(vehicleId: "v-1", at: at)),
        .tripOffered(.init(vehicleId: "v-1", tripId: "t-1", expiresAt: Fixtures.t(60), at: at)),
        .tripOfferAnswered(.init(vehicleId: "v-1", tripId: "t-1", accepted: false, expired: true, at: at)),
    ]
}

@Suite("Event coding")
struct EventCodingTests {
    @Test(arguments: EventSamples.trip)
    func everyTripEventRoundTripsThroughJSON(event: Trip.Event) throws {
        let data = try event.encodePayload()
        #expect(try Trip.Event.decode(type: event.type, data: data) == event)
        #expect(try event.encodePayload() == data)
    }

    @Test(arguments: EventSamples.vehicle)
    func everyVehicleEventRoundTripsThroughJSON(event: Vehicle.Event) throws {
        let data = try event.encodePayload()
        #expect(try Vehicle.Event.decode(type: event.type, data: data) == event)
        #expect(try event.encodePayload() == data)
    }

    @Test(arguments: EventSamples.trip)
    func everyTripEventDecodesFromItsParsedPayloadAsJSONDecoderDecodesItsBytes(event: Trip.Event) throws {
        let data = try event.encodePayload()
        let json = try JSONValue.parse(data)
        #expect(try Trip.Event.decode(type: event.type, json: json) == event)
        // As the event store hands it back: jsonb's rendering, parsed.
        #expect(try Trip.Event.decode(type: event.type, json: try JSONValue.parse(json.canonicalBytes())) == event)
        #expect(try JSONValueEncoder().encode(json) == json)
    }

    @Test(arguments: EventSamples.vehicle)
    func everyVehicleEventDecodesFromItsParsedPayloadAsJSONDecoderDecodesItsBytes(event: Vehicle.Event) throws {
        let json = try JSONValue.parse(try event.encodePayload())
        #expect(try Vehicle.Event.decode(type: event.type, json: json) == event)
        #expect(try Vehicle.Event.decode(type: event.type, json: try JSONValue.parse(json.canonicalBytes())) == event)
    }

    @Test func aPayloadOfTheWrongShapeNamesTheTypeAndThePathButNoValues() {
        expectRejection(.invalidArgument, mentioning: ["type TripCreated", #"missing key "#]) {
            try Trip.Event.decode(type: Trip.Event.tripCreated, json: ["tripId": "secret-trip"])
        }
        expectRejection(.invalidArgument, mentioning: ["type VehicleLocationReported", "location.latitude"]) {
            try Vehicle.Event.decode(type: Vehicle.Event.vehicleLocationReported, json: [
                "vehicleId": "v-1", "location": ["location": ["latitude": "52.1", "longitude": 13]], "at": "2026-03-01T08:00:00.000000Z",
            ])
        }
        do {
            _ = try Trip.Event.decode(type: Trip.Event.tripCreated, json: ["tripId": "secret-trip", "vehicleId": 7])
            Issue.record("decoded a payload of the wrong shape")
        } catch {
            #expect(!error.message.contains("secret-trip") && !error.message.contains("7"), "\(error.message)")
        }
        expectRejection(.invalidArgument, mentioning: ["type TripCreated", "not valid JSON"]) {
            try Trip.Event.decode(type: Trip.Event.tripCreated, data: Data(#"{"tripId":"t-1","tripId":"t-2"}"#.utf8))
        }
    }

    @Test func samplesCoverEveryDeclaredTypeAndTypesAreUnique() {
        #expect(Set(EventSamples.trip.map(\.type)) == Set(Trip.Event.allTypes))
        #expect(Set(EventSamples.vehicle.map(\.type)) == Set(Vehicle.Event.allTypes))
        #expect(Set(Trip.Event.allTypes).count == Trip.Event.allTypes.count)
        #expect(Set(Vehicle.Event.allTypes).count == Vehicle.Event.allTypes.count)
        #expect(Set(Trip.Event.allTypes).isDisjoint(with: Vehicle.Event.allTypes))
    }

    @Test func typeStringsAreTheDeclaredPastTenseConstants() {
        #expect(Trip.Event.allTypes.allSatisfy { $0.hasPrefix("Trip") })
        #expect(Vehicle.Event.allTypes.allSatisfy { $0.hasPrefix("Vehicle") })
        #expect(Trip.Event.tripCreated == "TripCreated")
        #expect(Vehicle.Event.vehicleLocationReported == "VehicleLocationReported")
        #expect(Vehicle.Event.vehicleWentOffRoute == "VehicleWentOffRoute")
    }

    @Test func payloadJSONHasSortedKeysRFC3339TimesAndFleetEngineEnumNames() throws {
        let event = Trip.Event.statusChanged(.init(tripId: "t-1", vehicleId: "v-1", from: .new, to: .enrouteToPickup, at: Fixtures.t0))
        let json = String(decoding: try event.encodePayload(), as: UTF8.self)
        #expect(json == #"{"at":"2026-03-01T08:00:00.000000Z","from":"NEW","to":"ENROUTE_TO_PICKUP","tripId":"t-1","vehicleId":"v-1"}"#)
    }

    @Test func attributesEncodeInFleetEngineShape() throws {
        let json = String(decoding: try JSONEncoder().encode(Attribute(key: "k", value: .bool(true))), as: UTF8.self)
        #expect(json.contains(#""boolValue":true"#) && json.contains(#""key":"k""#))
    }

    @Test func newEventsHaveTheirDeclaredTypeStrings() {
        #expect(Trip.Event.tripDeleted == "TripDeleted")
        #expect(Trip.Event.tripPickupPointSet == "TripPickupPointSet")
        #expect(Vehicle.Event.vehicleAttributesSet == "VehicleAttributesSet")
        #expect(Vehicle.Event.vehicleBackToBackEnabledChanged == "VehicleBackToBackEnabledChanged")
        #expect(Vehicle.Event.vehicleCapabilitiesChanged == "VehicleCapabilitiesChanged")
        #expect(Vehicle.Event.vehicleLicensePlateSet == "VehicleLicensePlateSet")
        #expect(Vehicle.Event.vehicleDeleted == "VehicleDeleted")
    }

    @Test func vehicleRegisteredStoredBeforeLicensePlatesStillDecodes() throws {
        // given a payload in the shape stored before `licensePlate` existed
        let old = #"{"at":"2026-03-01T08:00:00.000000Z","attributes":[{"boolValue":true,"key":"ev"}],"backToBackEnabled":false,"# +
            #""maximumCapacity":4,"supportedTripTypes":["EXCLUSIVE"],"vehicleId":"v-1","vehicleState":"OFFLINE","vehicleType":{"category":"TAXI"}}"#
        // when it is decoded
        let event = try Vehicle.Event.decode(type: Vehicle.Event.vehicleRegistered, data: Data(old.utf8))
        // then it is a registration without a plate, and it encodes back to the same bytes
        #expect(event == .registered(.init(
            vehicleId: "v-1", vehicleState: .offline, supportedTripTypes: [.exclusive], maximumCapacity: 4,
            vehicleType: VehicleType(category: .taxi), attributes: [Attribute(key: "ev", value: .bool(true))],
            backToBackEnabled: false, at: Fixtures.t0)))
        #expect(String(decoding: try event.encodePayload(), as: UTF8.self) == old)
        #expect(givenVehicle([event]).licensePlate == nil)
    }

    @Test func aLicensePlateEncodesInFleetEngineShape() throws {
        let event = Vehicle.Event.licensePlateSet(.init(vehicleId: "v-1", licensePlate: LicensePlate(countryCode: "DE", lastCharacter: "7"), at: Fixtures.t0))
        #expect(String(decoding: try event.encodePayload(), as: UTF8.self)
            == #"{"at":"2026-03-01T08:00:00.000000Z","licensePlate":{"countryCode":"DE","lastCharacter":"7"},"vehicleId":"v-1"}"#)
        let cleared = Vehicle.Event.licensePlateSet(.init(vehicleId: "v-1", licensePlate: nil, at: Fixtures.t0))
        #expect(String(decoding: try cleared.encodePayload(), as: UTF8.self) == #"{"at":"2026-03-01T08:00:00.000000Z","vehicleId":"v-1"}"#)
    }

    @Test func anUnknownTypeIsRejected() {
        expectRejection(.invalidArgument) { try Trip.Event.decode(type: "TripTeleported", data: Data("{}".utf8)) }
        expectRejection(.invalidArgument) { try Vehicle.Event.decode(type: "TripCreated", data: Data("{}".utf8)) }
    }

    @Test func aPayloadOfTheWrongShapeIsRejected() {
        expectRejection(.invalidArgument) { try Trip.Event.decode(type: Trip.Event.tripCreated, data: Data(#"{"tripId":"t-1"}"#.utf8)) }
        expectRejection(.invalidArgument) { try Vehicle.Event.decode(type: Vehicle.Event.vehicleRegistered, data: Data("not json".utf8)) }
    }

    @Test func replayingDecodedEventsRebuildsTheSameState() throws {
        let events = TripFixtures.assignedTrip(intermediates: [Fixtures.stop1]) + [TripFixtures.status(.new, .enrouteToPickup, at: Fixtures.t(20))]
        let decoded = try events.map { event throws(JourneyError) in try Trip.Event.decode(type: event.type, data: try event.encodePayload()) }
        #expect(givenTrip(decoded) == givenTrip(events))
    }
}

@Suite("Timestamp")
struct TimestampTests {
    @Test func formatsAsRFC3339WithSixFractionalDigits() {
        #expect(Fixtures.t0.rfc3339 == "2026-03-01T08:00:00.000000Z")
        #expect(Timestamp(microsecondsSinceEpoch: 1).rfc3339 == "1970-01-01T00:00:00.000001Z")
        #expect(Timestamp(microsecondsSinceEpoch: -1).rfc3339 == "1969-12-31T23:59:59.999999Z")
        #expect(Timestamp(secondsSinceEpoch: 951_782_400).rfc3339 == "2000-02-29T00:00:00.000000Z")
    }

    @Test func theBytesAppendedInPlaceAreTheTextsBytesForEveryYear() {
        var rng = SeededRandom(seed: 11)
        var values: [Int64] = [0, 1, -1, 951_782_400_000_000, 253_402_300_799_999_999, 253_402_300_800_000_000, -62_167_219_200_000_001]
        for _ in 0..<500 { values.append(Int64(bitPattern: rng.next()) % 400_000_000_000_000_000) }
        for value in values {
            let t = Timestamp(microsecondsSinceEpoch: value)
            var bytes: [UInt8] = [UInt8(ascii: "x")]
            t.appendRFC3339(to: &bytes)
            #expect(bytes == [UInt8(ascii: "x")] + Array(t.rfc3339.utf8), "\(value)")
        }
    }

    @Test func parsesOffsetsAndTruncatesNanoseconds() {
        #expect(Timestamp(rfc3339: "2026-03-01T09:00:00+01:00") == Fixtures.t0)
        #expect(Timestamp(rfc3339: "2026-03-01T08:00:00.123456789Z") == Fixtures.t0.adding(microseconds: 123_456))
        #expect(Timestamp(rfc3339: "2026-03-01T08:00:00.5Z") == Fixtures.t0.adding(microseconds: 500_000))
        #expect(Timestamp(rfc3339: "2026-03-01 08:00:00Z") == nil)
        #expect(Timestamp(rfc3339: "2026-13-01T08:00:00Z") == nil)
        #expect(Timestamp(rfc3339: "2026-03-01T08:00:00") == nil)
    }

    @Test func roundTripsEveryMicrosecondValueExactly() {
        var rng = SeededRandom(seed: 7)
        for _ in 0..<2_000 {
            let value = Int64(bitPattern: rng.next()) % 10_000_000_000_000_000
            let t = Timestamp(microsecondsSinceEpoch: value)
            #expect(Timestamp(rfc3339: t.rfc3339) == t)
        }
    }

    @Test func convertsFromDateDownToTheMicrosecond() {
        #expect(Timestamp(Date(timeIntervalSince1970: 0.000_001_9)).microsecondsSinceEpoch == 1)
        #expect(Timestamp(Date(timeIntervalSince1970: -0.000_000_1)).microsecondsSinceEpoch == -1)
        #expect(Timestamp(Date(timeIntervalSince1970: 1_772_352_000.5)) == Fixtures.t0.adding(microseconds: 500_000))
        #expect(Fixtures.t0.date == Date(timeIntervalSince1970: 1_772_352_000))
    }
}

@Suite("JourneyError")
struct JourneyErrorTests {
    @Test func codesMapToFleetEngineStatusNamesAndHTTP() {
        let table: [(JourneyError.Code, String, Int)] = [
            (.invalidArgument, "INVALID_ARGUMENT", 400), (.travelModeUnsupported, "INVALID_ARGUMENT", 400),
            (.failedPrecondition, "FAILED_PRECONDITION", 400), (.notFound, "NOT_FOUND", 404),
            (.alreadyExists, "ALREADY_EXISTS", 409), (.aborted, "ABORTED", 409),
        ]
        #expect(table.count == JourneyError.Code.allCases.count)
        for (code, name, http) in table {
            #expect(code.statusName == name)
            #expect(code.httpStatus == http)
        }
    }

    @Test func messagesNameTheFieldAndTheValue() {
        do throws(JourneyError) {
            _ = try Trip.decide(.createTrip(.init(tripId: "t-1", tripType: .exclusive, pickup: Fixtures.pickup, numberOfPassengers: 0), at: Fixtures.t0), state: Trip.State())
            Issue.record("accepted zero passengers")
        } catch {
            #expect(error.message.contains("numberOfPassengers"))
            #expect(error.message.contains("0"))
            #expect(error.description.hasPrefix("INVALID_ARGUMENT: "))
        }
    }
}
