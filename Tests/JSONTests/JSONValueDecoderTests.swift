#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSON
import Testing

@Suite struct JSONValueDecoderTests {
    typealias S = CodableSamples

    private func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try JSONValueDecoder().decode(type, from: try JSONValue.parse(text))
    }

    /// Decodes `text` with both decoders and expects the same error, described as case, type and path.
    private func expectSameError<T: Decodable>(_ type: T.Type, _ text: String, _ expected: String,
                                               sourceLocation: SourceLocation = #_sourceLocation) throws {
        let ours = #expect(throws: DecodingError.self, sourceLocation: sourceLocation) { try decode(type, text) }
        let foundation = #expect(throws: DecodingError.self, sourceLocation: sourceLocation) {
            try JSONDecoder().decode(type, from: Data(text.utf8))
        }
        guard let ours, let foundation else { return }
        #expect(S.describe(ours) == expected, sourceLocation: sourceLocation)
        #expect(S.describe(foundation) == expected, "JSONDecoder reports it so too", sourceLocation: sourceLocation)
    }

    @Test func aDomainLikeRecordRoundTripsAndDecodesAsJSONDecoderDecodesItsText() throws {
        let encoded = try JSONValueEncoder().encode(S.record)
        #expect(try JSONValueDecoder().decode(S.Record.self, from: encoded) == S.record)
        let text = try JSONEncoder().encode(S.record)
        let foundation = try JSONDecoder().decode(S.Record.self, from: text)
        #expect(try JSONValueDecoder().decode(S.Record.self, from: try JSONValue.parse(text)) == foundation)
        #expect(foundation == S.record)
    }

    @Test func valuesStoredAsCanonicalTextDecodeExactly() throws {
        // As the event store and read models keep them: canonical text, parsed back.
        let stored = try JSONValue.parse(try JSONValueEncoder().encode(S.record).canonicalBytes())
        #expect(try JSONValueDecoder().decode(S.Record.self, from: stored) == S.record)
    }

    @Test(arguments: [
        ("1.0", 1), ("1e2", 100), ("-0", 0), ("1.5e1", 15), ("0.0", 0), ("-12.000", -12), ("100e-2", 1),
    ])
    func integersAcceptNumbersWhoseExactValueIsAnIntegerAsJSONDecoderDoes(lexeme: String, expected: Int) throws {
        #expect(try decode(Int.self, lexeme) == expected)
        #expect(try JSONDecoder().decode(Int.self, from: Data(lexeme.utf8)) == expected)
        #expect(try decode(Int64.self, lexeme) == Int64(expected))
        #expect(try decode(Int8.self, lexeme) == Int8(expected))
    }

    @Test func integerLimitsDecodeExactly() throws {
        #expect(try decode(Int64.self, "-9223372036854775808") == .min)
        #expect(try decode(Int64.self, "9223372036854775807") == .max)
        #expect(try decode(UInt64.self, "18446744073709551615") == .max)
        #expect(try decode(Int8.self, "-128") == .min)
        #expect(try decode(UInt8.self, "255") == .max)
        #expect(try decode(UInt32.self, "4294967295") == .max)
        #expect(try decode(Int16.self, "-32768") == .min)
        #expect(try decode(UInt.self, "0") == 0)
    }

    @Test(arguments: [
        (#"{"x":300}"#, "Int8"), (#"{"x":-129}"#, "Int8"), (#"{"x":1.5}"#, "Int8"), (#"{"x":1e3}"#, "Int8"),
        (#"{"x":-1}"#, "UInt64"), (#"{"x":18446744073709551616}"#, "UInt64"), (#"{"x":9223372036854775808}"#, "Int64"),
        (#"{"x":0.5}"#, "Int64"), (#"{"x":256}"#, "UInt8"), (#"{"x":1e1000}"#, "Int"),
    ])
    func integersOutOfRangeOrWithAFractionAreDataCorruptedAtTheirPath(text: String, type: String) throws {
        func check<T: FixedWidthInteger & Codable>(_: T.Type) throws {
            let error = #expect(throws: DecodingError.self) { try decode(Holder<T>.self, text) }
            #expect(S.describe(error!) == "dataCorrupted at x")
            guard case .dataCorrupted(let context) = error else { return }
            #expect(context.debugDescription.contains("does not fit in \(T.self)"))
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(Holder<T>.self, from: Data(text.utf8)) }
        }
        switch type {
        case "Int8": try check(Int8.self)
        case "UInt8": try check(UInt8.self)
        case "Int64": try check(Int64.self)
        case "UInt64": try check(UInt64.self)
        default: try check(Int.self)
        }
    }

    private struct Holder<T: Codable>: Codable {
        var x: T
    }

    @Test func doublesAndFloatsOutOfRangeAreDataCorrupted() throws {
        let double = #expect(throws: DecodingError.self) { try decode([Double].self, "[1, 1e400]") }
        #expect(S.describe(double!) == "dataCorrupted at [1]")
        let float = #expect(throws: DecodingError.self) { try decode([String: Float].self, #"{"f":1e39}"#) }
        #expect(S.describe(float!) == "dataCorrupted at f")
        #expect(try decode(Double.self, "1e-400") == 0)
        #expect(try decode(Double.self, "0.30000000000000004") == 0.1 + 0.2)
        #expect(try decode(Float.self, "3.4e38") == 3.4e38)
    }

    @Test func typeMismatchesNameTheTypeAndPathAsJSONDecoderDoes() throws {
        struct X: Codable { var x: Int8 }
        struct Outer: Codable { var items: [X] }
        try expectSameError(X.self, #"{"x":"1"}"#, "typeMismatch Int8 at x")
        try expectSameError([X].self, #"[{"x":1},{"x":true}]"#, "typeMismatch Int8 at [1].x")
        try expectSameError(Outer.self, #"{"items":[{"x":1},{"x":[]}]}"#, "typeMismatch Int8 at items.[1].x")
        try expectSameError(X.self, "[1]", "typeMismatch Dictionary<String, Any> at ")
        try expectSameError(Outer.self, #"{"items":{}}"#, "typeMismatch Array<Any> at items")
        try expectSameError([String].self, #"["a", 1]"#, "typeMismatch String at [1]")
        try expectSameError([Bool].self, "[1]", "typeMismatch Bool at [0]")
        try expectSameError([Double].self, #"["1.5"]"#, "typeMismatch Double at [0]")
        try expectSameError(S.Waypoint.self, #"{"tripId":"t","location":{"latitude":1,"longitude":"2"},"kind":"NEW"}"#,
                            "typeMismatch Double at location.longitude")
        try expectSameError(S.Waypoint.self, #"{"tripId":"t","location":{"latitude":1,"longitude":2},"kind":"NEW","eta":5}"#,
                            "typeMismatch String at eta")
    }

    @Test func missingKeysAreKeyNotFoundWithTheContainersPath() throws {
        try expectSameError(S.Waypoint.self, #"{"location":{"latitude":1,"longitude":2},"kind":"NEW"}"#, "keyNotFound tripId at ")
        try expectSameError([S.Waypoint].self, #"[{"tripId":"t","location":{"latitude":1},"kind":"NEW"}]"#,
                            "keyNotFound longitude at [0].location")
        let error = #expect(throws: JSONError.self) { try JSONValue.parse(#"{"tripId":"t"}"#).decode(S.Waypoint.self) }
        #expect(error?.code == .decodingFailed)
        #expect(error?.message == #"could not decode Waypoint from JSON: missing key "location" at the top level"#)
        #expect(error?.underlying is DecodingError)
    }

    @Test func nullForARequiredValueIsValueNotFoundAndForAnOptionalIsNil() throws {
        try expectSameError(S.Waypoint.self, #"{"tripId":null,"location":{"latitude":1,"longitude":2},"kind":"NEW"}"#,
                            "valueNotFound String at tripId")
        try expectSameError(S.Waypoint.self, #"{"tripId":"t","location":null,"kind":"NEW"}"#,
                            "valueNotFound Dictionary<String, Any> at location")
        try expectSameError([Int].self, "[1, null]", "valueNotFound Int at [1]")
        let waypoint = try decode(S.Waypoint.self, #"{"tripId":"t","location":{"latitude":1,"longitude":2},"kind":"NEW","eta":null}"#)
        #expect(waypoint.eta == nil && waypoint.distanceMeters == nil)
        #expect(try decode([Int?].self, "[1, null]") == [1, nil])
        #expect(try decode(Int?.self, "null") == nil)
    }

    @Test func anUnkeyedContainerPastItsEndIsValueNotFoundAtTheNextIndex() throws {
        struct Pair: Decodable {
            init(from decoder: any Decoder) throws {
                var c = try decoder.unkeyedContainer()
                _ = try c.decode(Int.self)
                _ = try c.decode(Int.self)
            }
        }
        try expectSameError(Pair.self, "[1]", "valueNotFound Int at [1]")
        try expectSameError([String: Pair].self, #"{"p":[]}"#, "valueNotFound Int at p.[0]")
    }

    @Test func aFailedElementDoesNotMoveTheUnkeyedIndex() throws {
        struct Retry: Decodable {
            var values: [String] = []
            init(from decoder: any Decoder) throws {
                var c = try decoder.unkeyedContainer()
                while !c.isAtEnd {
                    if try c.decodeNil() { values.append("null"); continue }
                    if let int = try? c.decode(Int.self) { values.append("int \(int)"); continue }
                    values.append("string " + (try c.decode(String.self)))
                }
            }
        }
        #expect(try decode(Retry.self, #"[1, "a", null, 2]"#).values == ["int 1", "string a", "null", "int 2"])
        #expect(try JSONDecoder().decode(Retry.self, from: Data(#"[1, "a", null, 2]"#.utf8)).values == ["int 1", "string a", "null", "int 2"])
    }

    @Test func nestedContainersAndSuperDecodersReadTheRightMembers() throws {
        let segment = S.Segment(path: [.init(latitude: 1.25, longitude: 2), .init(latitude: 3, longitude: 4.5)], speeds: [[0, 1]], label: "l")
        let value = try JSONValueEncoder().encode(segment)
        #expect(value.compactString == #"{"geometry":{"points":[[1.25,2.0],[3.0,4.5]],"speeds":[[0,1]]},"label":"l"}"#)
        #expect(try JSONValueDecoder().decode(S.Segment.self, from: value) == segment)
        try expectSameError(S.Segment.self, #"{"geometry":{"points":[[1]],"speeds":[]}}"#, "valueNotFound Double at geometry.points.[0].[1]")
        try expectSameError(S.Segment.self, #"{"geometry":{"points":{},"speeds":[]}}"#, "typeMismatch Array<Any> at geometry.points")
        // A missing `super` member decodes as null, so the superclass reports its own missing key.
        try expectSameError(Derived.self, #"{"extra":1}"#, "valueNotFound Dictionary<String, Any> at super")
    }

    @Test func enumsDecodeFromRawValuesAndAssociatedValuesAsJSONDecoderDecodes() throws {
        let reasons: [S.Reason] = [.unassigned, .reassigned(to: "v", at: S.stamp), .moved(.init(latitude: 1, longitude: 2), 3)]
        let text = try JSONEncoder().encode(reasons)
        #expect(try JSONValueDecoder().decode([S.Reason].self, from: try JSONValue.parse(text)) == reasons)
        try expectSameError(S.Status.self, #""LOST""#, "dataCorrupted at ")
        try expectSameError(S.Stamp.self, #""x1""#, "dataCorrupted at ")
    }

    @Test func aJSONValueMemberDecodesUnchangedWithLexemesAndOrder() throws {
        struct Envelope: Decodable { var payload: JSONValue }
        let envelope = try decode(Envelope.self, #"{"payload":{"z":1.50,"a":[1e2,null]}}"#)
        #expect(envelope.payload.compactString == #"{"z":1.50,"a":[1e2,null]}"#)
        #expect(try decode(JSONValue.self, "[1.0]").compactString == "[1.0]")
    }

    @Test func allKeysAndContainsSeeTheMembersTheKeyTypeNames() throws {
        struct Keys: Decodable {
            var seen: [String]
            var hasB: Bool
            enum CodingKeys: String, CodingKey { case a, b, c }
            init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                seen = c.allKeys.map(\.stringValue)
                hasB = c.contains(.b)
            }
        }
        let keys = try decode(Keys.self, #"{"c":1,"x":2,"a":3}"#)
        #expect(keys.seen == ["c", "a"])
        #expect(!keys.hasB)
        #expect(try decode([String: Int].self, #"{"b":1,"a":2}"#) == ["a": 2, "b": 1])
        #expect(try decode([Int: String].self, #"{"10":"a","2":"b"}"#) == [10: "a", 2: "b"])
    }

    @Test func foundationValueTypesDecodeAsJSONDecoderDecodesThemByDefault() throws {
        struct Values: Codable, Equatable {
            var date: Date
            var data: Data
            var url: URL
            var decimal: Decimal
        }
        let text = #"{"date":12.5,"data":"AQID+g==","url":"https:\/\/example.com\/a?b=c","decimal":1.50}"#
        let foundation = try JSONDecoder().decode(Values.self, from: Data(text.utf8))
        #expect(try decode(Values.self, text) == foundation)
        try expectSameError(Values.self, #"{"date":1,"data":"%%%","url":"https://x","decimal":1}"#, "dataCorrupted at data")
    }

    @Test func codingPathIsVisibleToTheDecodingType() throws {
        struct Probe: Decodable {
            var path: String
            init(from decoder: any Decoder) throws {
                path = decoder.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            }
        }
        struct Holder: Decodable { var list: [[String: Probe]] }
        let holder = try decode(Holder.self, #"{"list":[{},{"k":1}]}"#)
        #expect(holder.list[1]["k"]?.path == "list.[1].k")
    }
}
