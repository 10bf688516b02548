import Foundation
import JSON
import Journey
import Testing

/// `encodePayloadValue` gives exactly the JSON value of the bytes `encodePayload` writes.
@Suite struct EventPayloadValueTests {
    /// `value` with every object's members sorted by key, lexemes kept: equal iff the documents are.
    static func sorted(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let elements): .array(elements.map(sorted))
        case .object(let object): .object(JSONObject(object.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }.map { ($0.key, sorted($0.value)) }))
        default: value
        }
    }

    static func parsed(_ data: Data) throws -> JSONValue { try JSONValue.parse(data) }

    @Test(arguments: EventSamples.vehicle)
    func everyVehicleEventsPayloadValueIsItsParsedPayload(event: Vehicle.Event) throws {
        let value = try event.encodePayloadValue()
        let bytes = try Self.parsed(event.encodePayload())
        #expect(Self.sorted(value) == bytes)
        #expect(Self.sorted(value).compactString == bytes.compactString)
    }

    @Test(arguments: EventSamples.trip)
    func everyTripEventsPayloadValueIsItsParsedPayload(event: Trip.Event) throws {
        let value = try event.encodePayloadValue()
        let bytes = try Self.parsed(event.encodePayload())
        #expect(Self.sorted(value) == bytes)
        #expect(Self.sorted(value).compactString == bytes.compactString)
    }

    /// Location reports (built by hand) with every optional field left out, one at a time and all together.
    @Test func locationReportsWithoutOptionalFieldsMatchTheirParsedPayload() throws {
        let full = EventSamples.location
        var variants: [VehicleLocation] = [VehicleLocation(location: full.location)]
        let clears: [(inout VehicleLocation) -> Void] = [
            { $0.updateTime = nil }, { $0.serverTime = nil }, { $0.latlngAccuracy = nil }, { $0.heading = nil }, { $0.headingAccuracy = nil },
            { $0.speed = nil }, { $0.speedAccuracy = nil }, { $0.locationSensor = nil }, { $0.isRoadSnapped = nil },
        ]
        for clear in clears {
            var location = full
            clear(&location)
            variants.append(location)
        }
        for location in variants {
            for (trips, followed, deviation) in [([String](), nil as String?, nil as Double?), (["t-1"], "t-1", 3.0)] {
                let event = Vehicle.Event.locationReported(.init(vehicleId: "v-\u{e9}\"1", location: location, currentTripIds: trips, followedTripId: followed,
                                                                 routeDeviationMeters: deviation, offRouteReportCount: 2, at: EventSamples.at))
                #expect(Self.sorted(try event.encodePayloadValue()).compactString == (try Self.parsed(event.encodePayload())).compactString)
            }
        }
    }

    /// Integral, negative, tiny, huge and zero doubles: the lexemes JSONEncoder writes.
    @Test(arguments: [0.0, -0.0, 1.0, 90.0, -271.0, 0.5, 12.75, 1e-7, 1.5e-5, 123456789012.0, 1e16, 1e21, 4.2e300, 52.5200001, 1.0 / 3.0])
    func doublesGetJSONEncodersLexemes(number: Double) throws {
        var location = EventSamples.location
        location.heading = number
        location.speed = number.magnitude
        let event = Vehicle.Event.locationReported(.init(vehicleId: "v-1", location: location, currentTripIds: [], followedTripId: nil,
                                                         routeDeviationMeters: number, offRouteReportCount: 0, at: EventSamples.at))
        #expect(Self.sorted(try event.encodePayloadValue()).compactString == (try Self.parsed(event.encodePayload())).compactString)
    }
}
