/// Fleet Engine's `LicensePlate`: the plate's country and its last character, never the whole plate.
///
/// JSON shape follows Fleet Engine: `{"countryCode":"DE","lastCharacter":"7"}`. `countryCode` is a
/// CLDR region code of two uppercase ASCII letters (`US`, `IN`); `lastCharacter` is the plate's
/// last digit (Fleet Engine's wording), a last letter (accepted too), or `"-1"` for a plate
/// without a numeric value; absent when unknown.
package struct LicensePlate: Codable, Hashable, Sendable {
    /// CLDR region code, e.g. `US`.
    package var countryCode: String
    /// The plate's last character, `"-1"`, or nil when unknown.
    package var lastCharacter: String?

    package init(countryCode: String, lastCharacter: String? = nil) {
        self.countryCode = countryCode
        self.lastCharacter = lastCharacter
    }

    /// What `lastCharacter` holds for a plate without a numeric value.
    package static let noNumericValue = "-1"

    /// The plate as stored: an empty `lastCharacter` (proto3's "unset") becomes nil.
    ///
    /// Throws `INVALID_ARGUMENT` naming `field` unless `countryCode` is two uppercase ASCII
    /// letters and `lastCharacter` is absent, one letter or digit, or `"-1"`.
    package func validated(field: String) throws(JourneyError) -> LicensePlate {
        let isRegion = countryCode.unicodeScalars.count == 2
            && countryCode.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) }
        guard isRegion else {
            throw .invalidArgument("\(field).countryCode must be a CLDR region code of two uppercase letters, e.g. US (got \"\(countryCode)\")")
        }
        var result = self
        if lastCharacter == "" { result.lastCharacter = nil }
        if let last = result.lastCharacter, last != Self.noNumericValue {
            guard last.count == 1, let character = last.first, character.isLetter || character.isNumber else {
                throw .invalidArgument("\(field).lastCharacter must be the plate's last letter or digit, or \"-1\" (got \"\(last)\")")
            }
        }
        return result
    }
}
