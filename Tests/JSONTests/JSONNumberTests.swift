import JSON
import Testing

@Suite struct JSONNumberTests {
    @Test(arguments: [
        "0", "-0", "1", "-1", "10", "1.5", "-0.5", "0.0", "1e5", "1E5", "1e+5", "1e-5", "1.25e-3",
        "123456789012345678901234567890", "1e1000", "1e-1000", "0e123456789012345678901234567890",
    ])
    func validLexemesAreKeptVerbatim(_ text: String) {
        #expect(JSONNumber(lexeme: text)?.lexeme == text)
        #expect(JSONNumber(lexeme: text)?.description == text)
    }

    @Test(arguments: [
        "", " 1", "1 ", "-", "+1", "01", "-01", "1.", ".1", "1e", "1e+", "1.e1", "0x1", "1_0", "NaN",
        "Infinity", "-Infinity", "inf", "1e1001", "1e-1001", "\u{661}", "1,5", "[1]",
    ])
    func invalidOrOutOfRangeLexemesAreRefused(_ text: String) {
        #expect(JSONNumber(lexeme: text) == nil)
    }

    @Test func validatingInitializerReportsTheRuleThatFailed() {
        func code(_ text: String) -> JSONError.Code? {
            do {
                _ = try JSONNumber(validating: text)
                return nil
            } catch {
                return error.code
            }
        }
        #expect(code("01") == .invalidNumber)
        #expect(code("1.") == .invalidNumber)
        #expect(code("1x") == .invalidNumber)
        #expect(code("+1") == .invalidNumber)
        #expect(code("") == .unexpectedEnd)
        #expect(code("1e1001") == .numberOutOfRange)
        #expect(code("-Infinity") == .notRepresentable)
        #expect(code("1.5") == nil)
    }

    static let canonicalTable: [(String, String)] = [
        ("0", "0"), ("-0", "0"), ("-0.0", "0"), ("0.000", "0"), ("0e10", "0"), ("-0e-10", "0"),
        ("1", "1"), ("-1", "-1"), ("10", "10"), ("100", "100"),
        ("1e2", "100"), ("1E2", "100"), ("1e+2", "100"), ("1.0e1", "10"), ("100e-2", "1"),
        ("1.50", "1.5"), ("10.0", "10"), ("-0.00100", "-0.001"), ("0.001", "0.001"),
        ("1.5e-3", "0.0015"), ("-1.5e-3", "-0.0015"), ("1e-5", "0.00001"), ("1e-05", "0.00001"),
        ("25e-1", "2.5"), ("123.456e1", "1234.56"), ("123.456e3", "123456"), ("123.456e5", "12345600"),
        ("123.456e-2", "1.23456"), ("0.5e1", "5"), ("0.05e1", "0.5"), ("5e-1", "0.5"),
        ("12345678901234567890", "12345678901234567890"),
        ("-12345678901234567890.1234567890123456789000", "-12345678901234567890.1234567890123456789"),
        ("52.5200081", "52.5200081"), ("0.30000000000000004", "0.30000000000000004"),
        ("1.7976931348623157e+308", "17976931348623157" + String(repeating: "0", count: 292)),
        ("1e1000", "1" + String(repeating: "0", count: 1000)),
        ("1e-1000", "0." + String(repeating: "0", count: 999) + "1"),
    ]

    @Test(arguments: canonicalTable)
    func canonicalIsTheExactDecimalWithoutExponentOrRedundantZeros(_ lexeme: String, _ expected: String) throws {
        let number = try #require(JSONNumber(lexeme: lexeme))
        #expect(number.canonical == expected)
        // The canonical text is itself a valid lexeme that is its own canonical form.
        #expect(JSONNumber(lexeme: expected)?.canonical == expected)
    }

    @Test func equalityAndHashAreByNumericValue() throws {
        let a = try #require(JSONNumber(lexeme: "1.50"))
        let b = try #require(JSONNumber(lexeme: "1.5"))
        let c = try #require(JSONNumber(lexeme: "15e-1"))
        #expect(a == b && b == c)
        #expect(Set([a, b, c]).count == 1)
        #expect(JSONNumber(lexeme: "1e2") == JSONNumber(100))
        #expect(JSONNumber(lexeme: "-0") == JSONNumber(0))
        #expect(JSONNumber(lexeme: "1") != JSONNumber(lexeme: "1.0000000000000000000001"))
        #expect(JSONNumber(lexeme: "1") != JSONNumber(lexeme: "-1"))
    }

    static let int64Table: [(String, Int64?)] = [
        ("0", 0), ("-0", 0), ("0.0", 0), ("100", 100), ("1e2", 100), ("100.0", 100), ("1.5", nil),
        ("1e-2", nil), ("9223372036854775807", .max), ("-9223372036854775808", .min),
        ("9223372036854775808", nil), ("-9223372036854775809", nil), ("1e19", nil),
        ("92233720368547758.07e2", .max),
    ]

    @Test(arguments: int64Table)
    func int64ValueIsPresentOnlyForExactIntegersInRange(_ lexeme: String, _ expected: Int64?) throws {
        #expect(try #require(JSONNumber(lexeme: lexeme)).int64Value == expected)
    }

    @Test func integerInitializersWriteExactDecimalText() {
        #expect(JSONNumber(Int64.min).lexeme == "-9223372036854775808")
        #expect(JSONNumber(Int.max).lexeme == String(Int.max))
        #expect(JSONNumber(UInt64.max).lexeme == "18446744073709551615")
        let literal: JSONNumber = 42
        #expect(literal.lexeme == "42")
        #expect(literal.int64Value == 42)
    }

    @Test(arguments: [
        52.5200081, 0.1 + 0.2, 13.404954, -122.4194155, 1e-5, 1e16, 1.0 / 3.0, Double.pi, 100.0,
        Double.leastNonzeroMagnitude, Double.leastNormalMagnitude, Double.greatestFiniteMagnitude,
        -Double.greatestFiniteMagnitude, 123456789.123456789,
    ])
    func doublesSurviveLexemeRoundTripBitForBit(_ value: Double) throws {
        let number = try #require(JSONNumber(value))
        #expect(number.doubleValue.bitPattern == value.bitPattern)
        // Through the text, as after storage and parsing.
        let reparsed = try #require(JSONValue.parse(number.lexeme).numberValue)
        #expect(reparsed.doubleValue.bitPattern == value.bitPattern)
        let canonical = try #require(JSONNumber(lexeme: number.canonical))
        #expect(canonical.doubleValue.bitPattern == value.bitPattern)
    }

    @Test func shortestRoundTripTextIsUsedForDoubles() {
        // Variables, not literals: `JSONNumber(52.5)` with a literal means the float literal initializer.
        let sum = 0.1 + 0.2, lat = 52.5200081, small = 1e-5, negativeZero = -0.0
        #expect(JSONNumber(sum)?.lexeme == "0.30000000000000004")
        #expect(JSONNumber(lat)?.lexeme == "52.5200081")
        #expect(JSONNumber(small)?.canonical == "0.00001")
        #expect(JSONNumber(negativeZero)?.canonical == "0")
        #expect(JSONNumber(negativeZero)?.doubleValue.sign == .minus)
        let literal: JSONNumber = 1.50
        #expect(literal.lexeme == "1.5")
    }

    @Test func nanAndInfinityHaveNoJSONNumber() {
        #expect(JSONNumber(Double.nan) == nil)
        #expect(JSONNumber(Double.signalingNaN) == nil)
        #expect(JSONNumber(Double.infinity) == nil)
        #expect(JSONNumber(-Double.infinity) == nil)
    }

    @Test func doubleValueSaturatesBeyondDoubleRange() throws {
        #expect(try #require(JSONNumber(lexeme: "1e400")).doubleValue == .infinity)
        #expect(try #require(JSONNumber(lexeme: "-1e400")).doubleValue == -.infinity)
        #expect(try #require(JSONNumber(lexeme: "1e-400")).doubleValue == 0)
    }
}
