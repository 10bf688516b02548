import JSON
import Testing

@Suite struct JSONCompactTests {
    @Test func compactKeepsMemberOrderAndNumberLexemes() throws {
        let value = try JSONValue.parse(#"{ "b" : 1.50 , "a" : [ 1e2 , -0.0 ] }"#)
        #expect(value.compactString == #"{"b":1.50,"a":[1e2,-0.0]}"#)
        #expect(value.description == value.compactString)
    }

    @Test func compactUsesTheStandardEscapes() throws {
        let value = try JSONValue.parse(#"["\/", "\u00e9", "\u0001", "\"\\", "\b\f\n\r\t"]"#)
        #expect(value.compactString == #"["/","é","\u0001","\"\\","\b\f\n\r\t"]"#)
    }

    static let documents = [
        "null", "true", "false", "0", "-1.25e-7", #""""#, "[]", "{}",
        #"{"trip":{"id":"t-1","stops":[{"lat":52.5200081,"lng":13.404954},{"lat":-33.8688,"lng":151.2093}]},"eta":1e3}"#,
        #"[[[[]]],{"a":{"b":{"c":[null,true,false]}}}]"#,
        #"["\u0001x"]"#,
        #"{"emoji":"\uD83D\uDE00","mixed":"a\tb\\c\"d/e","raw":"日本語"}"#,
        #"{"big":123456789012345678901234567890.000,"tiny":1e-1000,"huge":-1E+1000}"#,
    ]

    @Test(arguments: documents)
    func parsingTheCompactBytesGivesAnEqualValue(_ text: String) throws {
        let value = try JSONValue.parse(text)
        let compact = value.compactBytes()
        let again = try JSONValue.parse(compact)
        #expect(again == value)
        #expect(again.compactBytes() == compact)
        #expect(again.objectValue?.keys == value.objectValue?.keys)
    }

    @Test func valuesBuiltInSwiftWriteAsExpected() {
        let value: JSONValue = ["id": "t-1", "n": 3, "x": 0.5, "ok": true, "none": nil, "list": [1, "two"]]
        #expect(value.compactString == #"{"id":"t-1","n":3,"x":0.5,"ok":true,"none":null,"list":[1,"two"]}"#)
    }
}
