#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSON
import Testing

@Suite struct JSONCodableBridgeTests {
    struct Stop: Codable, Equatable {
        var lat: Double
        var lng: Double
    }

    struct TripCreated: Codable, Equatable {
        var tripID: String
        var passengers: Int
        var fare: Double
        var note: String?
        var stops: [Stop]
        var matrix: [[Int]]
    }

    private let event = TripCreated(
        tripID: "t-1", passengers: 3, fare: 0.1 + 0.2, note: nil,
        stops: [Stop(lat: 52.5200081, lng: 13.404954), Stop(lat: -33.8688, lng: 151.2093)],
        matrix: [[1, 2], [], [3]]
    )

    @Test func aCodableStructRoundTripsThroughJSONValue() throws {
        let value = try JSONValue(encoding: event)
        #expect(value["tripID"] == "t-1")
        #expect(value["passengers"]?.int64Value == 3)
        #expect(value["note"] == nil)
        #expect(value["matrix"]?[0]?[1] == 2)
        #expect(try value.decode(TripCreated.self) == event)

        var withNote = event
        withNote.note = "gate 4"
        #expect(try JSONValue(encoding: withNote).decode(TripCreated.self) == withNote)
    }

    @Test func doublesAreExactAfterEncodingStorageAndDecoding() throws {
        let value = try JSONValue(encoding: event)
        #expect(value["fare"]?.doubleValue == 0.1 + 0.2)
        #expect(value["stops"]?[0]?["lat"]?.doubleValue == 52.5200081)
        // As the event store does: canonical text, parsed back, decoded.
        let stored = try JSONValue.parse(value.canonicalBytes())
        #expect(try stored.decode(TripCreated.self) == event)
    }

    @Test func jsonValueItselfIsCodableThroughFoundation() throws {
        let value = try JSONValue.parse(#"{"a":[1,-2,2.5,"s",true,null,{"b":{}}],"big":18446744073709551615}"#)
        let data = try JSONEncoder().encode(value)
        let decoded = try JSONDecoder().decode(JSONValue.self, from: data)
        #expect(decoded == value)
        #expect(decoded["a"]?[1]?.numberValue?.lexeme == "-2")
    }

    @Test func aStructWithAJSONValueFieldRoundTrips() throws {
        struct Envelope: Codable, Equatable {
            var type: String
            var payload: JSONValue
        }
        let envelope = Envelope(type: "x", payload: ["k": [1, "v", nil], "z": 0.5])
        let value = try JSONValue(encoding: envelope)
        #expect(value["payload"]?["z"] == 0.5)
        #expect(try value.decode(Envelope.self) == envelope)
    }

    @Test func decodingTheWrongShapeThrowsDecodingFailedWithoutValues() throws {
        let value: JSONValue = ["lat": "52.5200081", "lng": 1]
        do {
            _ = try value.decode(Stop.self)
            Issue.record("decoded a string as Double")
        } catch let error as JSONError {
            #expect(error.code == .decodingFailed)
            #expect(error.underlying is DecodingError)
            #expect(error.message.contains("lat"))
            #expect(!error.message.contains("52.52"))
        }
    }

    @Test func encodingNaNThrowsEncodingFailed() throws {
        do {
            _ = try JSONValue(encoding: Stop(lat: .nan, lng: 0))
            Issue.record("encoded NaN")
        } catch let error as JSONError {
            #expect(error.code == .encodingFailed)
            #expect(error.underlying is EncodingError)
        }
    }
}
