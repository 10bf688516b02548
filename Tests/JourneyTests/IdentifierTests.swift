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
        #expect(long.contains("at most 64 bytes of UTF-8 (got 65 bytes)"))
        for reserved in ["/", ":", "?", ",", "#"] {
            let refused = try #require(message("v\(reserved)1"), "\(reserved)")
            #expect(refused.contains("containing '\(reserved)'"))
        }
    }

    @Test func nonAsciiIdsAreCountedInBytesNotCharacters() throws {
        // 32 characters of two bytes each are 64 bytes: valid; 33 are not.
        #expect(message(String(repeating: "é", count: 32)) == nil)
        #expect(message("vé-1") == nil)
        let long = try #require(message(String(repeating: "é", count: 33)))
        #expect(long.contains("got 66 bytes"))
        // One grapheme cluster carrying a hundred combining marks is one character, and 201 bytes.
        let heavy = "e" + String(repeating: "\u{301}", count: 100)
        #expect(heavy.count == 1)
        let refused = try #require(message(heavy))
        #expect(refused.contains("got 201 bytes"))
        let reserved = try #require(message("vé/1"))
        #expect(reserved.contains("containing '/'"))
    }

    @Test func idsMustBeNFCSoSwiftAndPostgreSQLAgreeOnWhichIdIsWhich() throws {
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        #expect(composed == decomposed, "Swift's == takes the two for one")
        #expect(Array(composed.utf8) != Array(decomposed.utf8), "the database does not")
        #expect(message(composed) == nil)
        let refused = try #require(message(decomposed))
        #expect(refused.contains("Unicode Normalization Form C"))
        // The Kelvin sign's NFC is a plain K: not NFC itself.
        #expect(!Identifier.isNFC("\u{212A}m"))
        #expect(Identifier.isNFC("Km"))
    }

    @Test func providersAreAsciiLettersDigitsDotsUnderscoresAndHyphens() throws {
        for valid in ["acme", "p", "waymark-test", "fleet_1.eu", String(repeating: "a", count: 64)] {
            #expect(throws: Never.self) { try Identifier.validateProvider(valid) }
        }
        for invalid in ["", "ac me", "acm\u{E9}", "\u{212A}acme", "a/b", "a%2Fb", String(repeating: "a", count: 65)] {
            #expect(throws: JourneyError.self, "\(invalid.debugDescription)") { try Identifier.validateProvider(invalid) }
        }
    }
}
