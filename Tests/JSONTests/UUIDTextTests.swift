import Foundation
import JSON
import Testing

@Suite struct UUIDTextTests {
    @Test func randomIdsAreVersionFourRFCVariantDistinctAndVaryInEveryFreeBit() {
        var seen = Set<UUID>()
        var ones = [Int](repeating: 0, count: 128)
        let count = 4000
        for _ in 0..<count {
            let id = UUID.random()
            seen.insert(id)
            let bytes = withUnsafeBytes(of: id.uuid) { Array($0) }
            #expect(bytes[6] >> 4 == 4, "version nibble of \(id)")
            #expect(bytes[8] >> 6 == 0b10, "variant bits of \(id)")
            #expect(id.uuidString.lowercased().dropFirst(14).first == "4")
            for bit in 0..<128 where bytes[bit / 8] & (0x80 >> UInt8(bit % 8)) != 0 { ones[bit] += 1 }
        }
        #expect(seen.count == count)
        // The six fixed bits never vary; each of the 122 random ones is set in about half the ids.
        let fixed: Set<Int> = [48, 49, 50, 51, 64, 65]
        for bit in 0..<128 where !fixed.contains(bit) {
            #expect((count * 4 / 10)...(count * 6 / 10) ~= ones[bit], "bit \(bit) set in \(ones[bit]) of \(count)")
        }
        #expect(ones[49] == count && ones[48] == 0 && ones[50] == 0 && ones[51] == 0)
        #expect(ones[64] == count && ones[65] == 0)
    }

    @Test func lowercasedTextSpellsTheIdAsFoundationDoesInLowercase() {
        for _ in 0..<500 {
            let id = UUID()
            #expect(id.lowercasedText == id.uuidString.lowercased())
        }
        let fixed = UUID(uuid: (0x00, 0x01, 0x0a, 0xff, 0x10, 0x20, 0x4f, 0x00, 0x80, 0x9c, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x7f))
        #expect(fixed.lowercasedText == "00010aff-1020-4f00-809c-deadbeef007f")
    }

    @Test(arguments: [
        "7c3e9a52-5b1f-4f0e-9d7a-2f6b1c8e4a10", "7C3E9A52-5B1F-4F0E-9D7A-2F6B1C8E4A10", "7c3E9a52-5B1f-4f0e-9d7a-2f6b1c8e4A10",
        "00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff",
    ])
    func textParsesEveryCaseFoundationParses(text: String) {
        #expect(UUID(text: text) != nil)
        #expect(UUID(text: text) == UUID(uuidString: text))
    }

    @Test(arguments: [
        "", "7c3e9a52-5b1f-4f0e-9d7a-2f6b1c8e4a1", "7c3e9a52-5b1f-4f0e-9d7a-2f6b1c8e4a100", "7c3e9a525b1f4f0e9d7a2f6b1c8e4a10",
        "7c3e9a52-5b1f-4f0e-9d7a_2f6b1c8e4a10", "7c3e9a5-25b1f-4f0e-9d7a-2f6b1c8e4a10", "7c3e9a52-5b1f-4f0e-9d7a-2f6b1c8e4a1g",
        "{7c3e9a52-5b1f-4f0e-9d7a-2f6b1c8e4a}", " 7c3e9a52-5b1f-4f0e-9d7a-2f6b1c8e4a1", "7c3e9a52-5b1f-4f0e-9d7a-2f6b1c8e4aé",
    ])
    func textRefusesWhatIsNotAHyphenatedUUID(text: String) {
        #expect(UUID(text: text) == nil)
    }

    @Test func textReadsBackWhatLowercasedTextWrote() {
        for _ in 0..<500 {
            let id = UUID()
            #expect(UUID(text: id.lowercasedText) == id)
            #expect(UUID(text: id.uuidString) == id)
        }
    }
}
