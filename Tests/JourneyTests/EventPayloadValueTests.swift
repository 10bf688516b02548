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
