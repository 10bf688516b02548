import Signing

/// Opaque page tokens: the key of the last item returned, bound to the listing it came from.
///
/// A token from one listing (another provider, or trips instead of vehicles) is rejected with
/// INVALID_ARGUMENT rather than silently paging something else.
enum PageToken {
    static func encode(_ key: String, scope: String) -> String {
        Base64URL.encode(Array("\(scope)\n\(key)".utf8))
    }

    static func decode(_ token: String, scope: String) throws(APIError) -> String {
        guard let bytes = Base64URL.decode(Substring(token)), let text = String(validating: bytes, as: UTF8.self),
              let newline = text.firstIndex(of: "\n"), text[..<newline] == scope else {
            throw .invalidArgument("pageToken is not a token this listing returned")
        }
        return String(text[text.index(after: newline)...])
    }
}
