import Journey
import Testing

@Suite struct IdentifierTests {
    private func message(_ id: String) -> String? {
        do throws(JourneyError) {
            try Identifier.validate(id, field: "vehicleId")
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func asciiIdsOfOneTo64CharactersWithoutReservedCharactersAreValid() {
        #expect(message("v") == nil)
        #expect(message("bench-v-12345_A.b~c") == nil)
        #expect(message(String(repeating: "x", count: 64)) == nil)
    }

    @Test func emptyTooLongAndReservedCharactersAreRefusedNamingTheField() throws {
        let empty = try #require(message(""))
        #expect(empty.contains("vehicleId is required"))
        let long = try #require(message(String(repeating: "x", count: 65)))
        #expect(long.contains("at most 64 characters (got 65 characters)"))
        for reserved in ["/", ":", "?", ",", "#"] {
            let refused = try #require(message("v\(reserved)1"), "\(reserved)")
            #expect(refused.contains("containing '\(reserved)'"))
        }
    }

    @Test func nonAsciiIdsAreCountedInCharactersNotBytes() throws {
        // 64 characters of two bytes each: valid, though 128 bytes long.
        #expect(message(String(repeating: "é", count: 64)) == nil)
        #expect(message("vé-1") == nil)
        let long = try #require(message(String(repeating: "é", count: 65)))
        #expect(long.contains("got 65 characters"))
        let reserved = try #require(message("vé/1"))
        #expect(reserved.contains("containing '/'"))
    }
}
