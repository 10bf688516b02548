/// Validation of trip, vehicle and provider ids.
///
/// Fleet Engine ids may not contain `/`, `:`, `?`, `,` or `#` (they become path segments of
/// resource names such as `providers/p/trips/{id}`). Two rules keep Swift and PostgreSQL agreeing
/// on which id is which: an id must be in Unicode Normalization Form C, and its length is counted
/// in UTF-8 bytes. Swift's `==` compares strings by canonical equivalence while PostgreSQL compares
/// bytes; among NFC strings the two agree, so `café` written with a combining accent can never be a
/// second trip that Swift's caches take for the first. Bytes, not grapheme clusters, bound the size:
/// one cluster can carry any number of combining marks. Providers are plainer still: ASCII letters,
/// digits, `.`, `_` and `-`, since they name tenants and appear in every key.
package enum Identifier {
    /// Characters an id may not contain.
    package static let forbiddenCharacters: Set<Character> = ["/", ":", "?", ",", "#"]
    /// The same characters as bytes (all ASCII), for the check of ASCII ids.
    private static let forbiddenBytes: [UInt8] = forbiddenCharacters.compactMap(\.asciiValue)
    /// The longest id accepted, in UTF-8 bytes.
    package static let maximumLength = 64

    /// Throws `INVALID_ARGUMENT` naming `field` when `id` is not a valid Fleet Engine id.
    package static func validate(_ id: String, field: @autoclosure () -> String) throws(JourneyError) {
        // The common case, an ASCII id: one pass over its bytes (ASCII is always NFC).
        var ascii = true, forbidden = false
        for byte in id.utf8 {
            if byte >= 0x80 { ascii = false; break }
            if forbiddenBytes.contains(byte) { forbidden = true }
        }
        if ascii, !forbidden, !id.isEmpty, id.utf8.count <= maximumLength { return }
        try validateSlowly(id, field: field())
    }

    private static func validateSlowly(_ id: String, field: String) throws(JourneyError) {
        guard !id.isEmpty else { throw .invalidArgument("\(field) is required and must be 1–\(maximumLength) bytes of UTF-8 (got an empty string)") }
        guard id.utf8.count <= maximumLength else {
            throw .invalidArgument("\(field) must be at most \(maximumLength) bytes of UTF-8 (got \(id.utf8.count) bytes)")
        }
        if let bad = id.unicodeScalars.first(where: { $0.isASCII && forbiddenBytes.contains(UInt8($0.value)) }) {
            throw .invalidArgument("\(field) must not contain '/', ':', '?', ',' or '#' (got \"\(id)\" containing '\(bad)')")
        }
        try requireNFC(id, field: field)
    }

    /// Throws `INVALID_ARGUMENT` unless `text` is in Unicode Normalization Form C.
    package static func requireNFC(_ text: String, field: @autoclosure () -> String) throws(JourneyError) {
        guard !isNFC(text) else { return }
        throw .invalidArgument("\(field()) must be in Unicode Normalization Form C (compose accents into their letters)")
    }

    /// Whether `text` is in NFC: its bytes are those of its NFC form. The NFC form is the standard
    /// library's own (`_withNFCCodeUnits`), the one its `==` compares, which is the point here; the
    /// pure domain has no Foundation to normalize with.
    package static func isNFC(_ text: String) -> Bool {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return true }
        var bytes = text.utf8.makeIterator()
        var same = true
        text._withNFCCodeUnits { unit in
            if same, bytes.next() != unit { same = false }
        }
        return same && bytes.next() == nil
    }

    /// Throws `INVALID_ARGUMENT` unless `provider` is 1–64 ASCII letters, digits, `.`, `_` or `-`.
    package static func validateProvider(_ provider: String, field: @autoclosure () -> String = "provider") throws(JourneyError) {
        let bytes = provider.utf8
        let allowed = bytes.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
        guard allowed, !bytes.isEmpty, bytes.count <= maximumLength else {
            throw .invalidArgument("\(field()) must be 1–\(maximumLength) ASCII letters, digits, '.', '_' or '-' (got \"\(provider.prefix(80))\")")
        }
    }
}
