#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSON
import Testing

@Suite struct JSONParserTests {
    // MARK: - Accepting

    @Test func everyKindOfValueParsesWithItsContent() throws {
        let value = try parsed(#" {"n": null, "t": true, "f": false, "i": -12, "d": 1.50, "s": "a\"b", "a": [1, [], {}], "o": {"k": "v"}} "#)
        #expect(value["n"] == .null)
        #expect(value["n"]?.isNull == true)
        #expect(value["t"]?.boolValue == true)
        #expect(value["f"]?.boolValue == false)
        #expect(value["i"]?.int64Value == -12)
        #expect(value["d"]?.numberValue?.lexeme == "1.50")
        #expect(value["d"]?.doubleValue == 1.5)
        #expect(value["s"]?.stringValue == "a\"b")
        #expect(value["a"]?.arrayValue?.count == 3)
        #expect(value["a"]?[1] == .array([]))
        #expect(value["a"]?[2] == .object(JSONObject()))
        #expect(value["a"]?[3] == nil)
        #expect(value["o"]?["k"] == "v")
        #expect(value["missing"] == nil)
        #expect(value.objectValue?.keys == ["n", "t", "f", "i", "d", "s", "a", "o"])
    }

    @Test(arguments: ["0", "-0", "1", "-1", "1.5", "0.5", "1e5", "1E5", "1e+5", "1e-5", "-0.0e-0", "123456789012345678901234567890"])
    func topLevelNumbersFollowingTheGrammarAreAccepted(_ text: String) throws {
        #expect(try parsed(text).numberValue?.lexeme == text)
    }

    @Test func onlyTheFourJSONWhitespaceBytesAreSkipped() throws {
        #expect(try parsed(" \t\r\n[ 1 ,\t2\r\n] \n") == [1, 2])
        expectRejected(Rejection("\u{0B}1", .unexpectedCharacter, at: 0))
        expectRejected(Rejection("\u{A0}1", .unexpectedCharacter, at: 0))
    }

    @Test func escapesDecodeToTheirCharacters() throws {
        let value = try parsed(#""\" \\ \/ \b \f \n \r \t \u0041 \u00e9 \u20AC \uD83D\uDE00 \u001f""#)
        #expect(value.stringValue == "\" \\ / \u{8} \u{C} \n \r \t A é € 😀 \u{1F}")
    }

    @Test func wellFormedMultiByteUTF8IsAcceptedRaw() throws {
        let bytes: [UInt8] = [0x22, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80, 0xEF, 0xBF, 0xBF, 0xEE, 0x80, 0x80, 0xF4, 0x8F, 0xBF, 0xBF, 0x22]
        let value = try JSONValue.parse(bytes)
        #expect(value.stringValue == "é€😀\u{FFFF}\u{E000}\u{10FFFF}")
    }

    @Test func objectMembersKeepTheOrderAsWritten() throws {
        let value = try parsed(#"{"z": 1, "a": 2, "m": 3}"#)
        #expect(value.objectValue?.keys == ["z", "a", "m"])
    }

    @Test func keysThatDifferOnlyInUnicodeNormalizationAreDistinct() throws {
        // "é" precomposed (C3 A9) and decomposed (65 CC 81) are equal as Swift strings but are
        // different JSON keys, as in PostgreSQL jsonb.
        let value = try parsed("{\"\u{E9}\": 1, \"e\u{301}\": 2}")
        #expect(value.objectValue?.count == 2)
        #expect(value["\u{E9}"] == 1)
        #expect(value["e\u{301}"] == 2)
    }

    @Test func theSameKeyInDifferentObjectsIsNotADuplicate() throws {
        let value = try parsed(#"{"a": {"a": 1}, "b": [{"a": 2}, {"a": 3}]}"#)
        #expect(value["b"]?[1]?["a"] == 3)
    }

    @Test func contiguousAndNonContiguousInputsParseAlike() throws {
        let text = #"{"a":[1,"é"]}"#
        let expected: JSONValue = ["a": [1, "é"]]
        let bytes = Array(text.utf8)
        #expect(try JSONValue.parse(text) == expected)
        #expect(try JSONValue.parse(bytes) == expected)
        #expect(try JSONValue.parse(Data(bytes)) == expected)
        #expect(try JSONValue.parse(bytes[...]) == expected)
        #expect(try bytes.withUnsafeBytes { raw throws(JSONError) in try JSONValue.parse(raw) } == expected)
        #expect(try JSONValue.parse(bytes.lazy.map { $0 }) == expected)
        #expect(try JSONValue.parse(text.utf8) == expected)
    }

    @Test func offsetsInASliceAreRelativeToTheSlice() throws {
        let bytes = Array("xx[1,]".utf8)
        let error = #expect(throws: JSONError.self) { try JSONValue.parse(bytes[2...]) }
        #expect(error?.offset == 3)
    }

    // MARK: - Rejecting: numbers

    static let malformedNumbers: [Rejection] = [
        Rejection("01", .invalidNumber, at: 1),
        Rejection("-01", .invalidNumber, at: 2),
        Rejection("[00]", .invalidNumber, at: 2),
        Rejection("1.", .invalidNumber, at: 2),
        Rejection("[1.]", .invalidNumber, at: 3),
        Rejection("1.e5", .invalidNumber, at: 2),
        Rejection("1e", .invalidNumber, at: 2),
        Rejection("1e+", .invalidNumber, at: 3),
        Rejection("[1E-]", .invalidNumber, at: 4),
        Rejection("-", .invalidNumber, at: 1),
        Rejection("-a", .invalidNumber, at: 1),
        Rejection("[- 1]", .invalidNumber, at: 2),
    ]

    @Test(arguments: malformedNumbers)
    func numbersBreakingTheGrammarAreRejectedAsInvalidNumber(_ rejection: Rejection) {
        expectRejected(rejection)
    }

    static let numbersWithForeignSyntax: [Rejection] = [
        Rejection("+1", .unexpectedCharacter, at: 0),
        Rejection(".5", .unexpectedCharacter, at: 0),
        Rejection("[.5]", .unexpectedCharacter, at: 1),
        Rejection("0x10", .trailingData, at: 1),
        Rejection("[1_000]", .unexpectedCharacter, at: 2),
        Rejection("nan", .unexpectedCharacter, at: 1),
        Rejection("inf", .unexpectedCharacter, at: 0),
    ]

    @Test(arguments: numbersWithForeignSyntax)
    func numbersInOtherLanguagesSyntaxAreRejectedAtTheFirstForeignByte(_ rejection: Rejection) {
        expectRejected(rejection)
    }

    static let nonFiniteNumbers: [Rejection] = [
        Rejection("NaN", .notRepresentable, at: 0),
        Rejection("Infinity", .notRepresentable, at: 0),
        Rejection("-Infinity", .notRepresentable, at: 0),
        Rejection(#"{"x": [NaN]}"#, .notRepresentable, at: 7),
    ]

    @Test(arguments: nonFiniteNumbers)
    func nanAndInfinityAreRejectedAsNotRepresentable(_ rejection: Rejection) {
        expectRejected(rejection)
    }

    static let outOfRangeNumbers: [Rejection] = [
        Rejection("1e1001", .numberOutOfRange, at: 0),
        Rejection("10e1000", .numberOutOfRange, at: 0),
        Rejection("-1e-1001", .numberOutOfRange, at: 0),
        Rejection("0.01e-999", .numberOutOfRange, at: 0),
        Rejection("[0, 1e99999999999999999999]", .numberOutOfRange, at: 4),
        Rejection("1" + String(repeating: "0", count: 1001), .numberOutOfRange, at: 0),
    ]

    @Test(arguments: outOfRangeNumbers)
    func numbersWithANormalizedExponentBeyond1000AreRejectedAsOutOfRange(_ rejection: Rejection) {
        expectRejected(rejection)
    }

    @Test(arguments: ["1e1000", "-1e1000", "9.99e1000", "1e-1000", "0.1e-999", "0e99999999999999999999", "-0.0e-5000", "1" + String(repeating: "0", count: 1000)])
    func numbersAtTheRangeLimitAndZerosWithHugeExponentsAreAccepted(_ text: String) throws {
        #expect(try parsed(text).numberValue?.lexeme == text)
    }

    // MARK: - Rejecting: structure

    static let structuralErrors: [Rejection] = [
        Rejection("", .unexpectedEnd, at: 0),
        Rejection("   ", .unexpectedEnd, at: 3),
        Rejection("[", .unexpectedEnd, at: 1),
        Rejection("[1", .unexpectedEnd, at: 2),
        Rejection("[1,\n", .unexpectedEnd, at: 4),
        Rejection("{", .unexpectedEnd, at: 1),
        Rejection(#"{"a""#, .unexpectedEnd, at: 4),
        Rejection(#"{"a":"#, .unexpectedEnd, at: 5),
        Rejection(#"{"a":1"#, .unexpectedEnd, at: 6),
        Rejection("tru", .unexpectedEnd, at: 3),
        Rejection("trux", .unexpectedCharacter, at: 3),
        Rejection("True", .unexpectedCharacter, at: 0),
        Rejection("nul", .unexpectedEnd, at: 3),
        Rejection("[1 2]", .unexpectedCharacter, at: 3),
        Rejection(#"{"a" 1}"#, .unexpectedCharacter, at: 5),
        Rejection(#"{"a":1 "b":2}"#, .unexpectedCharacter, at: 7),
        Rejection("{a:1}", .unexpectedCharacter, at: 1),
        Rejection("{1:1}", .unexpectedCharacter, at: 1),
        Rejection("[}", .unexpectedCharacter, at: 1),
        Rejection("]", .unexpectedCharacter, at: 0),
        Rejection("\u{FEFF}1", .unexpectedCharacter, at: 0),
        Rejection(bytes: [0x5B, 0x31, 0x2C, 0x00, 0x5D], .unexpectedCharacter, at: 3),
        Rejection(bytes: [0xFF], .unexpectedCharacter, at: 0),
    ]

    @Test(arguments: structuralErrors)
    func structuralErrorsAreRejectedAtTheOffendingByte(_ rejection: Rejection) {
        expectRejected(rejection)
    }

    static let trailingCommas: [Rejection] = [
        Rejection("[1,]", .unexpectedCharacter, at: 3),
        Rejection("[1, ]", .unexpectedCharacter, at: 4),
        Rejection(#"{"a":1,}"#, .unexpectedCharacter, at: 7),
        Rejection("[,1]", .unexpectedCharacter, at: 1),
        Rejection("[1,,2]", .unexpectedCharacter, at: 3),
    ]

    @Test(arguments: trailingCommas)
    func trailingAndEmptyCommasAreRejected(_ rejection: Rejection) {
        expectRejected(rejection)
    }

    @Test func trailingCommaMessageNamesTheRule() {
        let error = #expect(throws: JSONError.self) { try JSONValue.parse("[1,]") }
        #expect(error?.message == "trailing comma in array at byte 3")
    }

    static let commentsAndSingleQuotes: [Rejection] = [
        Rejection("/* c */ 1", .unexpectedCharacter, at: 0),
        Rejection("[1, /* c */ 2]", .unexpectedCharacter, at: 4),
        Rejection("[1] // c", .trailingData, at: 4),
        Rejection("# c\n1", .unexpectedCharacter, at: 0),
        Rejection("{'a': 1}", .unexpectedCharacter, at: 1),
        Rejection("['a']", .unexpectedCharacter, at: 1),
    ]

    @Test(arguments: commentsAndSingleQuotes)
    func commentsAndSingleQuotedStringsAreRejected(_ rejection: Rejection) {
        expectRejected(rejection)
    }

    static let trailingData: [Rejection] = [
        Rejection("1 2", .trailingData, at: 2),
        Rejection("{}x", .trailingData, at: 2),
        Rejection("[] []", .trailingData, at: 3),
        Rejection("true false", .trailingData, at: 5),
        Rejection("\"a\"\"b\"", .trailingData, at: 3),
        Rejection("nullx", .trailingData, at: 4),
        Rejection(bytes: [0x31, 0x20, 0x00], .trailingData, at: 2),
    ]

    @Test(arguments: trailingData)
    func anythingButWhitespaceAfterTheTopValueIsTrailingData(_ rejection: Rejection) {
        expectRejected(rejection)
    }

    // MARK: - Rejecting: strings

    static let badStrings: [Rejection] = [
        Rejection("\"abc", .unexpectedEnd, at: 0),
        Rejection("[\"a\\n", .unexpectedEnd, at: 1),
        Rejection("\"\\", .unexpectedEnd, at: 1),
        Rejection("\"\\u00", .unexpectedEnd, at: 1),
        Rejection("\"a\tb\"", .invalidString, at: 2),
        Rejection("\"a\nb\"", .invalidString, at: 2),
        Rejection("\"\\n\u{1F}\"", .invalidString, at: 3),
        Rejection(#""\x""#, .invalidString, at: 1),
        Rejection(#""\'""#, .invalidString, at: 1),
        Rejection(#""\U0041""#, .invalidString, at: 1),
        Rejection(#""\u12""#, .invalidString, at: 5),
        Rejection(#""\u12G4""#, .invalidString, at: 5),
        Rejection(#""\u 123""#, .invalidString, at: 3),
    ]

    @Test(arguments: badStrings)
    func badEscapesAndRawControlCharactersAreRejectedAsInvalidString(_ rejection: Rejection) {
        expectRejected(rejection)
    }

    static let nulCharacters: [Rejection] = [
        Rejection(#""a\u0000b""#, .nullCharacter, at: 2),
        Rejection(#"{"k\u0000": 1}"#, .nullCharacter, at: 3),
        Rejection(#""\n\u0000""#, .nullCharacter, at: 3),
        Rejection(bytes: [0x22, 0x61, 0x00, 0x22], .nullCharacter, at: 2),
        Rejection(bytes: [0x22, 0x5C, 0x6E, 0x00, 0x22], .nullCharacter, at: 3),
    ]

    @Test(arguments: nulCharacters)
    func escapedAndRawNulInStringsIsRejectedAsNullCharacter(_ rejection: Rejection) {
        expectRejected(rejection)
    }

    static let loneSurrogates: [Rejection] = [
        Rejection(#""\uD800""#, .loneSurrogate, at: 1),
        Rejection(#""x\uD83D""#, .loneSurrogate, at: 2),
        Rejection(#""\uD800x""#, .loneSurrogate, at: 1),
        Rejection(#""\uD800\n""#, .loneSurrogate, at: 1),
        Rejection(#""\uD800\u0041""#, .loneSurrogate, at: 1),
        Rejection(#""\uD800\uD800""#, .loneSurrogate, at: 1),
        Rejection(#""\uDC00""#, .loneSurrogate, at: 1),
        Rejection(#""\uDFFF\uD800""#, .loneSurrogate, at: 1),
        Rejection(#""\uDE00\uD83D""#, .loneSurrogate, at: 1),
    ]

    @Test(arguments: loneSurrogates)
    func loneAndReversedSurrogateEscapesAreRejected(_ rejection: Rejection) {
        expectRejected(rejection)
    }

    static let malformedUTF8: [Rejection] = [
        Rejection(bytes: [0x22, 0xC0, 0xAF, 0x22], .invalidUTF8, at: 1),  // overlong "/"
        Rejection(bytes: [0x22, 0xC1, 0xBF, 0x22], .invalidUTF8, at: 1),  // overlong
        Rejection(bytes: [0x22, 0xE0, 0x80, 0xAF, 0x22], .invalidUTF8, at: 1),  // overlong 3-byte
        Rejection(bytes: [0x22, 0xF0, 0x80, 0x80, 0xAF, 0x22], .invalidUTF8, at: 1),  // overlong 4-byte
        Rejection(bytes: [0x22, 0xED, 0xA0, 0x80, 0x22], .invalidUTF8, at: 1),  // U+D800 in UTF-8
        Rejection(bytes: [0x22, 0xED, 0xBF, 0xBF, 0x22], .invalidUTF8, at: 1),  // U+DFFF in UTF-8
        Rejection(bytes: [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], .invalidUTF8, at: 1),  // U+110000
        Rejection(bytes: [0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], .invalidUTF8, at: 1),
        Rejection(bytes: [0x22, 0xFF, 0x22], .invalidUTF8, at: 1),
        Rejection(bytes: [0x22, 0x80, 0x22], .invalidUTF8, at: 1),  // lone continuation
        Rejection(bytes: [0x22, 0xC3, 0x22], .invalidUTF8, at: 1),  // truncated, quote follows
        Rejection(bytes: [0x22, 0xE2, 0x82, 0x41, 0x22], .invalidUTF8, at: 1),  // truncated mid-string
        Rejection(bytes: [0x22, 0xE2, 0x82], .invalidUTF8, at: 1),  // truncated at end of input
        Rejection(bytes: [0x22, 0x5C, 0x6E, 0x61, 0xFF, 0x22], .invalidUTF8, at: 4),  // after an escape
        Rejection(bytes: [0x7B, 0x22, 0xC3, 0x28, 0x22, 0x3A, 0x31, 0x7D], .invalidUTF8, at: 2),  // in a key
    ]

    @Test(arguments: malformedUTF8)
    func malformedUTF8IsRejectedAtTheStartOfTheBadSequence(_ rejection: Rejection) {
        expectRejected(rejection)
    }

    // MARK: - Rejecting: duplicate keys

    static let duplicateKeys: [Rejection] = [
        Rejection(#"{"lat":1,"lat":2}"#, .duplicateKey, at: 9),
        Rejection(#"{"a":1,"\u0061":2}"#, .duplicateKey, at: 7),
        Rejection(#"{"a":{"b":1,"b":1}}"#, .duplicateKey, at: 12),
        Rejection(#"{"":1,"":2}"#, .duplicateKey, at: 6),
    ]

    @Test(arguments: duplicateKeys)
    func aKeyRepeatedInOneObjectIsRejectedAtTheSecondOccurrence(_ rejection: Rejection) {
        expectRejected(rejection)
    }

    @Test func duplicateKeyMessageNamesTheKeyAndTheByte() {
        do {
            _ = try JSONValue.parse(#"{"lat":1,"lat":2}"#)
            Issue.record("parsed a duplicate key")
        } catch {
            #expect(error.message == #"duplicate key "lat" in object at byte 9"#)
            #expect(error.description == #"duplicateKey: duplicate key "lat" in object at byte 9"#)
        }
    }

    @Test func duplicateKeyInALargeObjectIsRejected() throws {
        let members = (0..<40).map { "\"k\($0)\":\($0)" }
        let valid = "{" + members.joined(separator: ",") + "}"
        #expect(try parsed(valid).objectValue?.count == 40)
        let invalid = "{" + members.joined(separator: ",") + ",\"k17\":0}"
        let offset = invalid.utf8.count - 8
        expectRejected(Rejection(invalid, .duplicateKey, at: offset))
    }

    // MARK: - Rejecting: depth

    @Test func nestingUpToMaxDepthIsAcceptedAndOneMoreIsTooDeep() throws {
        let deepest = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(try JSONValue.parse(deepest).arrayValue != nil)
        let tooDeep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        expectRejected(Rejection(tooDeep, .tooDeep, at: 64))
    }

    @Test func mixedObjectAndArrayNestingCountsEveryLevel() throws {
        #expect(try JSONValue.parse(#"{"a":[1]}"#, maxDepth: 2)["a"]?[0] == 1)
        expectRejected(Rejection(#"{"a":[{"b":1}]}"#, .tooDeep, at: 6), maxDepth: 2)
        expectRejected(Rejection(#"[{"a":{}}]"#, .tooDeep, at: 6), maxDepth: 2)
    }

    @Test func maxDepthZeroAllowsOnlyScalars() throws {
        #expect(try JSONValue.parse("\"s\"", maxDepth: 0) == "s")
        expectRejected(Rejection("[]", .tooDeep, at: 0), maxDepth: 0)
        expectRejected(Rejection("{}", .tooDeep, at: 0), maxDepth: 0)
    }

    @Test func veryDeepInputFailsWithTooDeepInsteadOfOverflowingTheStack() {
        let hostile = String(repeating: "[", count: 200_000)
        expectRejected(Rejection(hostile, .tooDeep, at: 64))
    }

    // MARK: - Strings as input

    @Test func stringInputReportsTheSameCodesAndUTF8Offsets() {
        do {
            _ = try JSONValue.parse("[\"é\", 01]")
            Issue.record("parsed a leading zero")
        } catch {
            #expect(error.code == .invalidNumber)
            #expect(error.offset == 8)
        }
    }
}
