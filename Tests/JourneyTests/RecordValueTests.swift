import Geo
import JSON
import Journey
import Testing

/// The hand-built encodings and decodings of the hottest records equal the generic ones.
@Suite struct RecordValueTests {
    static func generic(_ state: Vehicle.State) throws -> String {
        try JSONValueEncoder().encode(state).compactString
    }

    /// The record written without a value tree, and the canonical bytes of the generic encoding.
    static func written(_ state: Vehicle.State) throws -> (written: String, canonical: String) {
        var writer = CanonicalJSONWriter()
        state.writeRecord(to: &writer)
        return (String(decoding: writer.bytes, as: UTF8.self), String(decoding: try JSONValueEncoder().encode(state).canonicalBytes(), as: UTF8.self))
    }

    /// A vehicle state before any event, after each kind of event, and with every member and list
    /// set at once (the fold leaves some lists empty again), each with what it shows.
    static func states() throws -> [(String, Vehicle.State)] {
        var states: [(String, Vehicle.State)] = [("initial", Vehicle.State())]
        var state = Vehicle.State()
        for event in EventSamples.vehicle {
            state = Vehicle.evolve(state, with: event)
            states.append(("after \(event.type)", state))
        }
        var full = state
        for event in EventSamples.vehicle where !(event.type.hasSuffix("Deleted")) { full = Vehicle.evolve(full, with: event) }
        full.lastLocation = EventSamples.location
        full.waypointsVersion = EventSamples.at
        full.currentRouteSegmentVersion = EventSamples.at
        full.lastUpdatedAt = EventSamples.at
        full.currentTrips = [Vehicle.CurrentTrip(tripId: "t-\"9\"", tripType: .shared, numberOfPassengers: 2)]
        full.offers = [Vehicle.TripOffer(tripId: "t-9", expiresAt: EventSamples.at, offeredAt: EventSamples.at)]
        full.followedRoute = Vehicle.FollowedRoute(tripId: "t-9", encodedPath: "_p~iF~ps|U_ulLnnqC")
        #expect(!full.waypoints.isEmpty && !full.attributes.isEmpty && full.licensePlate != nil, "the fold sets these")
        states.append(("with every member set", full))
        return states
    }

    @Test func aVehicleStateWrittenWithoutAValueTreeIsTheCanonicalBytesOfItsGenericEncodingAfterEveryKindOfEvent() throws {
        for (label, state) in try Self.states() {
            let pair = try Self.written(state)
            #expect(pair.written == pair.canonical, "\(label)")
        }
    }

    @Test func aVehicleStateFoldedThroughEveryKindOfEventEncodesAsTheGenericEncoderDoes() throws {
        for (label, state) in try Self.states() {
            #expect(state.recordValue.compactString == (try Self.generic(state)), "\(label)")
        }
    }

    @Test(arguments: [0.0, -0.0, 1.0, 90.0, -179.5, 0.5, 12.75, 1e-7, 123456789012.0, 1e21, 4.2e300, 52.5200001, 1.0 / 3.0])
    func locationsWithAnyNumbersEncodeAsTheGenericEncoderDoes(number: Double) throws {
        var state = Vehicle.State()
        var location = EventSamples.location
        location.heading = number
        location.speed = number.magnitude
        location.location = try LatLng(latitude: max(-90, min(90, number)), longitude: max(-180, min(180, -number)))
        state.lastLocation = location
        state.maximumCapacity = Int(number.magnitude.truncatingRemainder(dividingBy: 1000))
        #expect(state.recordValue.compactString == (try Self.generic(state)))
        let pair = try Self.written(state)
        #expect(pair.written == pair.canonical)
    }

    static func codable(_ json: JSONValue) -> Vehicle.Event.LocationReported? {
        try? JSONValueDecoder().decode(Vehicle.Event.LocationReported.self, from: json)
    }

    static func payload(_ replacing: [String: JSONValue?], location: [String: JSONValue?] = [:]) throws -> JSONValue {
        let base = Vehicle.Event.LocationReported(vehicleId: "v-1", location: EventSamples.location, currentTripIds: ["t-1", "t-2"],
                                                  followedTripId: "t-1", routeDeviationMeters: 12.5, offRouteReportCount: 2, at: EventSamples.at)
        guard case .object(var object) = try JSONValueEncoder().encode(base), case .object(var inner)? = object["location"] else {
            Issue.record("the sample payload is not an object"); return .null
        }
        for (key, value) in location { inner[key] = value }
        object["location"] = .object(inner)
        for (key, value) in replacing { object[key] = value }
        return .object(object)
    }

    /// Every payload either reads directly to exactly what the generic decoder gives, or is left
    /// to the generic decoder (nil); never a different value, never a value where it fails.
    @Test func aLocationReportReadDirectlyIsWhatTheGenericDecoderReadsAndOddOnesAreLeftToIt() throws {
        let number = { (text: String) in JSONValue.number(JSONNumber(lexeme: text)!) }
        let plainOnes: [JSONValue] = [
            try Self.payload([:]),
            try Self.payload(["followedTripId": nil, "routeDeviationMeters": nil]),
            try Self.payload(["followedTripId": .null, "routeDeviationMeters": .null, "currentTripIds": .array([])]),
            try Self.payload(["offRouteReportCount": number("3.0"), "routeDeviationMeters": number("1e2")]),
            try Self.payload(["extra": .string("ignored")], location: ["extra": .bool(true)]),
            try Self.payload([:], location: ["heading": nil, "speed": .null, "updateTime": nil, "serverTime": .null, "locationSensor": nil,
                                             "isRoadSnapped": .null, "latlngAccuracy": nil, "headingAccuracy": nil, "speedAccuracy": nil]),
            try Self.payload([:], location: ["location": .object(JSONObject([("latitude", number("52.5"))]))]),
            try Self.payload([:], location: ["location": .object(JSONObject([]))]),
        ]
        for json in plainOnes {
            let direct = try #require(Vehicle.Event.LocationReported(plainJSON: json), "\(json.compactString)")
            #expect(direct == Self.codable(json), "\(json.compactString)")
        }
        let oddOnes: [JSONValue] = [
            .null,
            try Self.payload(["vehicleId": nil]),
            try Self.payload(["vehicleId": number("1")]),
            try Self.payload(["at": .string("yesterday")]),
            try Self.payload(["offRouteReportCount": number("2.5")]),
            try Self.payload(["currentTripIds": .array([number("1")])]),
            try Self.payload(["routeDeviationMeters": .string("12")]),
            try Self.payload(["routeDeviationMeters": number("1e400")]),
            try Self.payload(["location": nil]),
            try Self.payload([:], location: ["heading": .string("north")]),
            try Self.payload([:], location: ["isRoadSnapped": number("1")]),
            try Self.payload([:], location: ["locationSensor": .string("SATELLITE")]),
            try Self.payload([:], location: ["updateTime": number("0")]),
            try Self.payload([:], location: ["location": .object(JSONObject([("latitude", number("95")), ("longitude", number("0"))]))]),
            try Self.payload([:], location: ["location": .string("52.5,13.4")]),
        ]
        for json in oddOnes {
            #expect(Vehicle.Event.LocationReported(plainJSON: json) == nil, "\(json.compactString)")
            #expect(Self.codable(json) == nil, "\(json.compactString)")
        }
        // Through the public entry point, an odd payload gets the generic decoder's error.
        #expect(throws: JourneyError.self) {
            _ = try Vehicle.Event.decode(type: "VehicleLocationReported", json: try Self.payload(["offRouteReportCount": number("2.5")]))
        }
    }

    @Test func everySampleLocationReportReadsDirectlyAsTheGenericDecoderReadsIt() throws {
        for event in EventSamples.vehicle {
            guard case .locationReported(let report) = event else { continue }
            let json = try event.encodePayloadValue()
            #expect(Vehicle.Event.LocationReported(plainJSON: json) == report)
            #expect(Self.codable(json) == report)
        }
    }

    /// Location reports' payload bytes are written directly; they must be exactly the canonical
    /// bytes of the payload value, which the hash chain covers.
    @Test(arguments: [0.0, -0.0, 1.0, 90.0, -179.5, 0.5, 12.75, 1e-7, 123456789012.0, 1e21, 4.2e300, 52.5200001, 1.0 / 3.0])
    func aLocationReportsCanonicalPayloadIsTheCanonicalBytesOfItsValue(number: Double) throws {
        var location = EventSamples.location
        location.heading = number
        location.headingAccuracy = number.magnitude
        location.speed = number.magnitude
        location.speedAccuracy = number
        location.latlngAccuracy = number.magnitude
        location.location = try LatLng(latitude: max(-90, min(90, number)), longitude: max(-180, min(180, -number)))
        location.locationSensor = .gps
        location.isRoadSnapped = number > 1
        let full = Vehicle.Event.LocationReported(vehicleId: "v-\"1\"\n\u{1F}é", location: location, currentTripIds: ["t-1", "t\\2", "τ"],
                                                  followedTripId: "t-1", routeDeviationMeters: number, offRouteReportCount: Int(number.magnitude.truncatingRemainder(dividingBy: 1000)),
                                                  at: EventSamples.at)
        #expect(full.canonicalPayload == (try Vehicle.Event.locationReported(full).encodePayloadValue().canonicalBytes()), "\(String(decoding: full.canonicalPayload, as: UTF8.self))")
        var bare = full
        bare.followedTripId = nil
        bare.routeDeviationMeters = nil
        bare.currentTripIds = []
        bare.location = VehicleLocation(location: location.location)
        #expect(bare.canonicalPayload == (try Vehicle.Event.locationReported(bare).encodePayloadValue().canonicalBytes()), "\(String(decoding: bare.canonicalPayload, as: UTF8.self))")
        // And the bytes read back as the same report.
        let parsed = try JSONValue.parse(full.canonicalPayload)
        #expect(try Vehicle.Event.decode(type: "VehicleLocationReported", json: parsed) == .locationReported(full))
    }

    @Test func onlyLocationReportsWriteTheirPayloadDirectlyAndEverySampleMatchesItsValue() throws {
        for event in EventSamples.vehicle {
            let canonical = event.canonicalPayload
            if case .locationReported = event {
                #expect(canonical == (try event.encodePayloadValue().canonicalBytes()))
            } else {
                #expect(canonical == nil, "\(event.type)")
            }
        }
    }
}
