#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSON
import Testing

@Suite struct JSONValueEncoderTests {
    typealias S = CodableSamples

    private func encode(_ value: some Encodable) throws -> JSONValue {
        try JSONValueEncoder().encode(value)
    }

    @Test func aDomainLikeRecordEncodesAsJSONEncoderWithSortedKeysWritesIt() throws {
        let ours = try encode(S.record)
        let foundation = try S.foundationEncoded(S.record)
        #expect(ours == foundation)
        // Same member order at every level and the same strings; numbers compared by value.
        #expect(S.shape(ours) == S.shape(foundation))
    }

    @Test(arguments: [
        ["a10", "a2", "B", "a", "_", "Z", "ab", "a_b", "aB", "Ab", "10", "9", "", "a b", "z"],
        ["é", "e\u{301}x", "ä", "z", "\u{FF5E}", "😀", "\u{FFFD}", "Z", "\u{7F}", "~"],
    ])
    func keysSortByUTF8BytesExactlyAsJSONEncoderSortsThem(keys: [String]) throws {
        let dictionary = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) })
        let ours = try encode(dictionary)
        let foundation = try S.foundationEncoded(dictionary)
        #expect(ours.objectValue?.keys == foundation.objectValue?.keys)
        #expect(ours.compactString == foundation.compactString)
    }

    @Test func integerKeyedDictionariesUseDecimalStringKeysSortedAsStrings() throws {
        let value = try encode([1: "a", 10: "b", 2: "c"])
        #expect(value.compactString == #"{"1":"a","10":"b","2":"c"}"#)
        #expect(value == (try S.foundationEncoded([1: "a", 10: "b", 2: "c"])))
    }

    @Test func doublesAreWrittenAsJSONNumberWritesThemAndEqualJSONEncodersValues() throws {
        let doubles: [Double] = [1.0, 0.1 + 0.2, 1e-5, 1e16, 1e15, 1.2345678901234568e+20, -0.0, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 100, 12345678.9]
        let ours = try encode(doubles)
        #expect(ours.arrayValue?.map { $0.numberValue?.lexeme } == doubles.map { JSONNumber($0)?.lexeme })
        #expect(ours.arrayValue?[0].numberValue?.lexeme == "1.0")
        #expect(ours.arrayValue?[1].numberValue?.lexeme == "0.30000000000000004")
        #expect(ours.arrayValue?[2].numberValue?.lexeme == "1e-05")
        #expect(ours == (try S.foundationEncoded(doubles)))
        // Exact: every lexeme reads back as the same bits.
        #expect(ours.arrayValue?.map { $0.doubleValue!.bitPattern } == doubles.map(\.bitPattern))
    }

    @Test func floatsAreWrittenAsFloatDescriptionsAndReadBackExactly() throws {
        let floats: [Float] = [1, 0.1, 3.4e38, 1e-7, -2.5]
        let ours = try encode(floats)
        #expect(ours.arrayValue?.map { $0.numberValue?.lexeme } == floats.map(\.description))
        #expect(try JSONValueDecoder().decode([Float].self, from: ours) == floats)
        #expect(ours == (try S.foundationEncoded(floats)))
    }

    @Test func integersOfEveryWidthAreExactDecimalText() throws {
        struct Widths: Codable, Equatable {
            var i: Int = .min, i8: Int8 = .min, i16: Int16 = .min, i32: Int32 = .min, i64: Int64 = .min
            var u: UInt = .max, u8: UInt8 = .max, u16: UInt16 = .max, u32: UInt32 = .max, u64: UInt64 = .max
        }
        let value = try encode(Widths())
        #expect(value.compactString == #"{"i":-9223372036854775808,"i16":-32768,"i32":-2147483648,"i64":-9223372036854775808,"i8":-128,"#
            + #""u":18446744073709551615,"u16":65535,"u32":4294967295,"u64":18446744073709551615,"u8":255}"#)
        #expect(S.shape(value) == S.shape(try S.foundationEncoded(Widths())))
        #expect(try JSONValueDecoder().decode(Widths.self, from: value) == Widths())
    }

    @Test func absentOptionalsAreOmittedAndEncodeNilWritesNull() throws {
        struct Explicit: Encodable {
            var a: Int?
            var b: Int?
            enum CodingKeys: String, CodingKey { case a, b, c }
            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encodeIfPresent(a, forKey: .a)
                try c.encodeIfPresent(b, forKey: .b)
                try c.encodeNil(forKey: .c)
            }
        }
        let value = Explicit(a: nil, b: 2)
        #expect(try encode(value).compactString == #"{"b":2,"c":null}"#)
        #expect(try encode(value) == (try S.foundationEncoded(value)))
        let waypoint = S.Waypoint(tripId: "t", location: .init(latitude: 1, longitude: 2), eta: nil, kind: .new, distanceMeters: nil)
        #expect(try encode(waypoint).objectValue?.keys == ["kind", "location", "tripId"])
        #expect(try encode([Int?.none, 1]).compactString == "[null,1]")
        #expect(try encode(Int?.none) == .null)
    }

    @Test func aKeyEncodedTwiceKeepsTheLastValueAsJSONEncoderDoes() throws {
        struct Twice: Encodable {
            enum CodingKeys: String, CodingKey { case b, a }
            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(1, forKey: .b)
                try c.encode("first", forKey: .a)
                try c.encode(2, forKey: .b)
                try c.encode("last", forKey: .a)
            }
        }
        #expect(try encode(Twice()).compactString == #"{"a":"last","b":2}"#)
        #expect(try encode(Twice()).compactString == (try S.foundationEncoded(Twice())).compactString)
    }

    @Test func nestedAndReusedContainersMatchJSONEncoder() throws {
        struct Shared: Encodable {
            enum CodingKeys: String, CodingKey { case outer, list }
            enum InnerKeys: String, CodingKey { case y, x }
            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                var first = c.nestedContainer(keyedBy: InnerKeys.self, forKey: .outer)
                try first.encode(1, forKey: .y)
                var list = c.nestedUnkeyedContainer(forKey: .list)
                try list.encode(1)
                var again = encoder.container(keyedBy: CodingKeys.self)
                var inner = again.nestedContainer(keyedBy: InnerKeys.self, forKey: .outer)
                try inner.encode(2, forKey: .x)
                try first.encode(3, forKey: .y)  // still writable after a sibling was made
                var pair = list.nestedUnkeyedContainer()
                try pair.encode("p")
                var object = list.nestedContainer(keyedBy: InnerKeys.self)
                try object.encode(true, forKey: .x)
            }
        }
        let ours = try encode(Shared())
        #expect(ours.compactString == #"{"list":[1,["p"],{"x":true}],"outer":{"x":2,"y":3}}"#)
        #expect(S.shape(ours) == S.shape(try S.foundationEncoded(Shared())))
    }

    @Test func superEncodersWriteTheSuperclassUnderSuperOrAKeyAsJSONEncoderDoes() throws {
        let value = Derived(id: "v-1", extra: 5)
        let ours = try encode(value)
        #expect(ours.compactString == #"{"extra":5,"named":{},"super":{"id":"v-1"}}"#)
        #expect(S.shape(ours) == S.shape(try S.foundationEncoded(value)))
        let decoded = try JSONValueDecoder().decode(Derived.self, from: ours)
        #expect(decoded.id == "v-1" && decoded.extra == 5)
    }

    @Test func aNestedValueThatEncodesNothingIsAnEmptyObjectAndAtTopLevelAnError() throws {
        struct Nothing: Encodable {
            func encode(to encoder: any Encoder) throws {}
        }
        struct Holder: Encodable {
            var nothing = Nothing()
            var list = [Nothing()]
        }
        #expect(try encode(Holder()).compactString == #"{"list":[{}],"nothing":{}}"#)
        #expect(try encode(Holder()).compactString == (try S.foundationEncoded(Holder())).compactString)
        let error = #expect(throws: EncodingError.self) { try encode(Nothing()) }
        #expect(S.describe(error!) == "invalidValue at ")
    }

    @Test func nonFiniteNumbersThrowInvalidValueWithTheirPath() throws {
        let record = S.Waypoint(tripId: "t", location: .init(latitude: .nan, longitude: 0), eta: nil, kind: .new, distanceMeters: nil)
        let error = #expect(throws: EncodingError.self) { try encode(record) }
        #expect(S.describe(error!) == "invalidValue at location.latitude")
        let inArray = #expect(throws: EncodingError.self) { try encode([[1.0], [2.0, .infinity]]) }
        #expect(S.describe(inArray!) == "invalidValue at [1].[1]")
        let float = #expect(throws: EncodingError.self) { try encode(["f": Float.nan]) }
        #expect(S.describe(float!) == "invalidValue at f")
        let bridged = #expect(throws: JSONError.self) { try JSONValue(encoding: record) }
        #expect(bridged?.code == .encodingFailed)
        #expect(bridged?.message.contains("location.latitude") == true)
    }

    @Test func aJSONValueInsideAValueKeepsItsLexemesAndGetsSortedMembers() throws {
        struct Envelope: Codable, Equatable {
            var type: String
            var payload: JSONValue
        }
        let payload = try JSONValue.parse(#"{"z":1.50,"a":[{"y":1e2,"b":null}],"m":"s"}"#)
        let value = try encode(Envelope(type: "x", payload: payload))
        #expect(value.compactString == #"{"payload":{"a":[{"b":null,"y":1e2}],"m":"s","z":1.50},"type":"x"}"#)
        #expect(try JSONValueDecoder().decode(Envelope.self, from: value).payload == payload)
    }

    @Test func foundationValueTypesEncodeAsJSONEncoderEncodesThemByDefault() throws {
        struct Values: Codable, Equatable {
            var date = Date(timeIntervalSinceReferenceDate: 12.5)
            var data = Data([1, 2, 3, 250])
            var url = URL(string: "https://example.com/a?b=c")!
            var decimal = Decimal(string: "1.50")!
        }
        let ours = try encode(Values())
        #expect(ours == (try S.foundationEncoded(Values())))
        #expect(ours["data"] == "AQID+g==")
        #expect(try JSONValueDecoder().decode(Values.self, from: ours) == Values())
    }

    @Test func theEncoderNeverLeavesAnUnsortedObjectForTheWriters() throws {
        let value = try encode(S.record)
        func sorted(_ value: JSONValue) -> Bool {
            switch value {
            case .array(let elements): return elements.allSatisfy(sorted)
            case .object(let object):
                let keys = object.keys
                return zip(keys, keys.dropFirst()).allSatisfy { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
                    && object.allSatisfy { sorted($0.value) }
            default: return true
            }
        }
        #expect(sorted(value))
    }
}

/// A class hierarchy coded through `superEncoder()` / `superDecoder()`, plus an empty `superEncoder(forKey:)`.
class Base: Codable {
    var id: String

    init(id: String) {
        self.id = id
    }

    enum CodingKeys: String, CodingKey { case id }
}

final class Derived: Base {
    var extra: Int

    init(id: String, extra: Int) {
        self.extra = extra
        super.init(id: id)
    }

    enum DerivedKeys: String, CodingKey { case extra, named }

    required init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: DerivedKeys.self)
        extra = try c.decode(Int.self, forKey: .extra)
        try super.init(from: try c.superDecoder())
    }

    override func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: DerivedKeys.self)
        try c.encode(extra, forKey: .extra)
        _ = c.superEncoder(forKey: .named)
        try super.encode(to: c.superEncoder())
    }
}
