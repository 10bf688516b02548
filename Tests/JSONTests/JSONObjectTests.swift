import JSON
import Testing

@Suite struct JSONObjectTests {
    @Test func settingANewKeyAppendsAndAnExistingKeyReplacesInPlace() {
        var object: JSONObject = ["a": 1, "b": 2]
        object["c"] = 3
        object["a"] = "one"
        #expect(object.keys == ["a", "b", "c"])
        #expect(object["a"] == "one")
        #expect(object.count == 3)
    }

    @Test func settingNilRemovesTheMember() {
        var object: JSONObject = ["a": 1, "b": 2, "c": 3]
        object["b"] = nil
        #expect(object.keys == ["a", "c"])
        #expect(object.removeValue(forKey: "a") == 1)
        #expect(object.removeValue(forKey: "zz") == nil)
        #expect(object.keys == ["c"])
        object["c"] = nil
        #expect(object.isEmpty)
    }

    @Test func pairsInitializerKeepsOrderAndIterationYieldsMembers() {
        let object = JSONObject([("z", 1), ("a", 2)])
        #expect(object.map(\.key) == ["z", "a"])
        #expect(object.values == [1, 2])
        #expect(JSONObject().isEmpty)
    }

    @Test func largeObjectsLookUpRemoveAndReAddByKey() {
        var object = JSONObject()
        for k in 0..<50 { object["k\(k)"] = .number(JSONNumber(k)) }
        #expect(object["k37"] == 37)
        #expect(object["k50"] == nil)
        object["k10"] = nil
        #expect(object["k10"] == nil)
        #expect(object["k11"] == 11)
        #expect(object.count == 49)
        object["k10"] = "back"
        #expect(object.keys.last == "k10")
        #expect(object["k49"] == 49)
        object["k49"] = 0
        #expect(object.count == 50)
    }

    @Test func keysAreComparedByUTF8BytesNotCanonicalEquivalence() {
        var object = JSONObject()
        object["\u{E9}"] = 1
        object["e\u{301}"] = 2
        #expect(object.count == 2)
        #expect(object["\u{E9}"] == 1)
        #expect(object["e\u{301}"] == 2)
        for k in 0..<20 { object["k\(k)"] = 0 }
        #expect(object["\u{E9}"] == 1)
        #expect(object["e\u{301}"] == 2)
    }

    @Test func equalityAndHashIgnoreMemberOrder() {
        let a: JSONObject = ["a": 1, "b": [1, 2]]
        let b: JSONObject = ["b": [1, 2], "a": 1.0]
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != ["a": 1, "b": [2, 1]])
        #expect(a != ["a": 1])
    }

    @Test func duplicateKeysInTheInitializerAreAProgrammerError() async {
        await #expect(processExitsWith: .failure) {
            _ = JSONObject([("a", 1), ("a", 2)])
        }
    }
}
