import JSON
import Testing

@Suite struct JSONValueTests {
    @Test func accessorsReturnNilForOtherKinds() {
        let value: JSONValue = "text"
        #expect(value.stringValue == "text")
        #expect(value.boolValue == nil)
        #expect(value.doubleValue == nil)
        #expect(value.int64Value == nil)
        #expect(value.arrayValue == nil)
        #expect(value.objectValue == nil)
        #expect(value.numberValue == nil)
        #expect(!value.isNull)
        #expect(value["key"] == nil)
        #expect(value[0] == nil)
    }

    @Test func indexSubscriptIsBoundsChecked() {
        let value: JSONValue = [10, 20]
        #expect(value[1] == 20)
        #expect(value[2] == nil)
        #expect(value[-1] == nil)
    }

    @Test func equalityIsByValueAndConsistentWithHashing() {
        let values: [JSONValue] = [
            ["a": 1.50, "b": [1e2]], ["b": [100], "a": 1.5], "é", "e\u{301}", 1, "1", nil, false, [], [:],
        ]
        for a in values {
            for b in values {
                #expect((a == b) == (a.canonicalBytes() == b.canonicalBytes()), "\(a) vs \(b)")
                if a == b { #expect(a.hashValue == b.hashValue) }
            }
        }
        #expect(Set(values).count == values.count - 1)
    }

    @Test func literalsBuildTheMatchingCases() {
        let value: JSONValue = ["n": nil, "b": true, "i": 7, "d": 0.25, "s": "x", "a": [1], "o": ["k": "v"]]
        #expect(value["n"] == .null)
        #expect(value["b"] == .bool(true))
        #expect(value["i"] == .number(7))
        #expect(value["d"]?.numberValue?.lexeme == "0.25")
        #expect(value["s"] == .string("x"))
        #expect(value["a"] == .array([.number(1)]))
        #expect(value["o"] == .object(["k": "v"]))
    }
}
