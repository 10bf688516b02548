import JSON
import Testing

@Suite struct JSONCanonicalTests {
    private func canonical(_ text: String) throws -> String {
        try JSONValue.parse(text).canonicalString
    }

    @Test func jsonbStyleReRenderingsHaveIdenticalCanonicalBytes() throws {
        let written = try JSONValue.parse(#"{"b": 1.50, "a": [1e2, "x/y"]}"#)
        let fromJSONB = try JSONValue.parse(#"{"a":[100,"x\/y"],"b":1.5}"#)
        #expect(written.canonicalBytes() == fromJSONB.canonicalBytes())
        #expect(written.canonicalString == #"{"a":[100,"x/y"],"b":1.5}"#)
        #expect(written == fromJSONB)
    }

    @Test(arguments: [
        (#"{"lat": 52.5200081, "lng": 13.404954, "note": "caf\u00e9", "n": 1.5E-3}"#,
         #"{ "n" : 0.0015 , "lat":52.5200081,"lng":13.4049540,"note":"café"}"#),
        (#"{"a": {"z": [true, null, false], "y": -0.0}}"#, #"{"a":{"y":0,"z":[true,null,false]}}"#),
        (#"["\u001F", "\t", "\/"]"#, #"["\u001f","\t","/"]"#),
        (#"{"k": 10e-1, "j": 0.1e1}"#, #"{"j":1,"k":1.0}"#),
    ])
    func reRenderingsOfOneValueHaveIdenticalCanonicalBytes(_ first: String, _ second: String) throws {
        let a = try JSONValue.parse(first)
        let b = try JSONValue.parse(second)
        #expect(a.canonicalBytes() == b.canonicalBytes())
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
    }

    @Test(arguments: [
        ("[1,2]", "[2,1]"), (#"{"a":1}"#, #"{"a":"1"}"#), (#"{"a":1}"#, #"{"A":1}"#), ("1", "1.0000000000000000000001"),
        (#""é""#, "\"e\u{301}\""), ("null", "false"), ("[]", "{}"), (#"{"a":null}"#, "{}"),
    ])
    func differentValuesHaveDifferentCanonicalBytes(_ first: String, _ second: String) throws {
        let a = try JSONValue.parse(first)
        let b = try JSONValue.parse(second)
        #expect(a.canonicalBytes() != b.canonicalBytes())
        #expect(a != b)
    }

    @Test func objectMembersAreSortedByKeyBytesRecursively() throws {
        let text = #"{"b": 1, "a": {"d": 1, "c": [{"f": 1, "e": 2}]}, "A": 0, "aa": 3, "": 4}"#
        #expect(try canonical(text) == #"{"":4,"A":0,"a":{"c":[{"e":2,"f":1}],"d":1},"aa":3,"b":1}"#)
    }

    @Test func objectsInsideAnObjectAlreadyInKeyOrderAreStillSorted() throws {
        let text = #"{"a": {"z": 1, "y": {"q": 1, "p": 2}}, "b": [{"n": 1, "m": 2}]}"#
        #expect(try canonical(text) == #"{"a":{"y":{"p":2,"q":1},"z":1},"b":[{"m":2,"n":1}]}"#)
    }

    @Test func objectsWithManyMembersInReverseOrderAreSortedWhole() throws {
        let keys = (0..<40).map { "k" + ($0 < 10 ? "0" : "") + String($0) }
        var object = JSONObject()
        for key in keys.reversed() { object[key] = .string(key) }
        let expected = "{" + keys.map { "\"\($0)\":\"\($0)\"" }.joined(separator: ",") + "}"
        #expect(JSONValue.object(object).canonicalString == expected)
    }

    @Test func nonASCIIKeysSortByUTF8BytesNotUTF16OrNormalization() throws {
        // UTF-8 order: "e\u0301" (65) < "z" (7A) < "é" (C3 A9) < "\uFFFD" (EF BF BD) < "😀" (F0 9F 98 80).
        // UTF-16 order would put "😀" (D83D) before "\uFFFD".
        let value: JSONValue = ["😀": 1, "\u{FFFD}": 2, "é": 3, "z": 4, "e\u{301}": 5]
        #expect(value.canonicalString == "{\"e\u{301}\":5,\"z\":4,\"é\":3,\"\u{FFFD}\":2,\"😀\":1}")
    }

    @Test func stringsUseShortEscapesLowercaseHexAndRawEverythingElse() {
        let value: JSONValue = .string("\" \\ / \u{8}\u{C}\n\r\t \u{1}\u{1F}\u{1B} \u{7F} é € 😀 \u{2028}")
        let expected = #""\" \\ / \b\f\n\r\t \u0001\u001f\u001b "# + "\u{7F} é € 😀 \u{2028}\""
        #expect(value.canonicalString == expected)
    }

    @Test func keysAreEscapedLikeStrings() {
        let value: JSONValue = ["a\"b": 1, "\n": 2]
        #expect(value.canonicalString == #"{"\n":2,"a\"b":1}"#)
    }

    @Test func numbersInsideDocumentsAreWrittenCanonically() throws {
        #expect(try canonical("[1e2, 1.50, -0.0, 1.5e-3, 12345678901234567890, 0.1e1, -5E+0]")
            == "[100,1.5,0,0.0015,12345678901234567890,1,-5]")
    }

    @Test func literalsAndWhitespaceAreWrittenBare() throws {
        #expect(try canonical(" [ true , false , null , { } , [ ] , \"\" ] ") == #"[true,false,null,{},[],""]"#)
    }

    @Test func aNulBuiltInSwiftIsWrittenAsAnEscape() {
        let value: JSONValue = .string("a\u{0}b")
        #expect(value.canonicalString == #""a\u0000b""#)
    }

    @Test func canonicalBytesParseBackToAnEqualValueWithTheSameCanonicalBytes() throws {
        let value = try JSONValue.parse(#"{"z": [1.50, {"y": "\u00e9\n", "x": 1e-3}], "a": null}"#)
        let again = try JSONValue.parse(value.canonicalBytes())
        #expect(again == value)
        #expect(again.canonicalBytes() == value.canonicalBytes())
        // The canonical form is its own compact form.
        #expect(again.compactBytes() == value.canonicalBytes())
    }

    @Test func theCanonicalWriterGivesTheCanonicalBytesOfTheValueItWrites() throws {
        var writer = CanonicalJSONWriter()
        writer.beginObject()
        writer.key("a"); writer.beginArray()
        writer.beginObject(); writer.key("x"); writer.number(1e-5); writer.key("y"); writer.number(-0.0); writer.endObject()
        writer.beginArray(); writer.endArray()
        writer.string("q\"\\\u{8}\u{1F}/é"); writer.integer(-12); writer.bool(true); writer.bool(false); writer.number(.nan)
        writer.beginObject(); writer.endObject()
        writer.endArray()
        writer.key("b"); writer.value(try JSONValue.parse(#"{"z": 1.50, "m": [1e2]}"#))
        writer.key("c"); writer.number(4.2e300)
        writer.key("d\"\\\u{1}"); writer.integer(0)
        writer.endObject()
        let value = try JSONValue.parse(writer.bytes)
        #expect(writer.bytes == value.canonicalBytes(), "\(String(decoding: writer.bytes, as: UTF8.self))")
        #expect(value == (try JSONValue.parse(#"{"a":[{"x":0.00001,"y":0},[],"q\"\\\b\u001f/é",-12,true,false,null,{}],"b":{"m":[100],"z":1.5},"c":4.2e300,"d\"\\\u0001":0}"#)))
    }

    @Test func aDecimalOfIntegerUnitsIsWrittenAsTheCanonicalFormOfItsLexeme() throws {
        let cases: [(Int64, Int, String)] = [
            (523_252_000, 7, "52.3252"), (-131_000_000, 7, "-13.1"), (5, 7, "0.0000005"), (-5, 7, "-0.0000005"),
            (10_000_000, 7, "1"), (0, 7, "0"), (1_234, 0, "1234"), (-1_800_000_000, 7, "-180"), (Int64.max, 18, "9.223372036854775807"),
        ]
        for (units, digits, text) in cases {
            var writer = CanonicalJSONWriter()
            writer.beginArray()
            writer.decimal(units: units, fractionDigits: digits)
            writer.endArray()
            let expected = try JSONValue.parse("[\(text)]").canonicalBytes()
            #expect(writer.bytes == expected, "\(units) / 10^\(digits): \(String(decoding: writer.bytes, as: UTF8.self))")
            #expect(String(decoding: writer.bytes, as: UTF8.self) == "[\(text)]")
        }
    }
}
