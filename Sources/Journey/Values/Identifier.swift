/// Validation of trip and vehicle ids.
///
/// Fleet Engine ids are 1–64 characters and may not contain `/`, `:`, `?`, `,` or `#`
/// (they become path segments of resource names such as `providers/p/trips/{id}`).
package enum Identifier {
    /// Characters an id may not contain.
    package static let forbiddenCharacters: Set<Character> = ["/", ":", "?", ",", "#"]
    /// The same characters as bytes (all ASCII), for the check of ASCII ids.
    private static let forbiddenBytes: [UInt8] = forbiddenCharacters.compactMap(\.asciiValue)
    /// The longest id accepted, in characters.
    package static let maximumLength = 64

    /// Throws `INVALID_ARGUMENT` naming `field` when `id` is not a valid Fleet Engine id.
    package static func validate(_ id: String, field: @autoclosure () -> String) throws(JourneyError) {
        // The common case, an ASCII id: one pass over its bytes (each byte one character).
        var ascii = true, forbidden = false
        for byte in id.utf8 {
            if byte >= 0x80 { ascii = false; break }
            if forbiddenBytes.contains(byte) { forbidden = true }
        }
        if ascii, !forbidden, !id.isEmpty, id.utf8.count <= maximumLength { return }
        try validateSlowly(id, field: field())
    }

    private static func validateSlowly(_ id: String, field: String) throws(JourneyError) {
        guard !id.isEmpty else { throw .invalidArgument("\(field) is required and must be 1–64 characters (got an empty string)") }
        guard id.count <= maximumLength else {
            throw .invalidArgument("\(field) must be at most \(maximumLength) characters (got \(id.count) characters)")
        }
        if let bad = id.first(where: { forbiddenCharacters.contains($0) }) {
            throw .invalidArgument("\(field) must not contain '/', ':', '?', ',' or '#' (got \"\(id)\" containing '\(bad)')")
        }
    }
}
