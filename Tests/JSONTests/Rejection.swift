import JSON
import Testing

/// One input the parser must reject, with the error code and byte offset it must report.
struct Rejection: Sendable, CustomTestStringConvertible {
    let input: [UInt8]
    let code: JSONError.Code
    let offset: Int

    init(_ text: String, _ code: JSONError.Code, at offset: Int) {
        self.input = Array(text.utf8)
        self.code = code
        self.offset = offset
    }

    init(bytes: [UInt8], _ code: JSONError.Code, at offset: Int) {
        self.input = bytes
        self.code = code
        self.offset = offset
    }

    var testDescription: String {
        let shown = String(decoding: input.prefix(40), as: UTF8.self).debugDescription
        return "\(shown) → \(code) at \(offset)"
    }
}

/// Parses `rejection.input` and expects exactly its error code and offset.
func expectRejected(
    _ rejection: Rejection,
    maxDepth: Int = 64,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    do {
        let value = try JSONValue.parse(rejection.input, maxDepth: maxDepth)
        Issue.record("expected \(rejection.code) but parsed \(value)", sourceLocation: sourceLocation)
    } catch {
        #expect(error.code == rejection.code, "\(error)", sourceLocation: sourceLocation)
        #expect(error.offset == rejection.offset, "\(error)", sourceLocation: sourceLocation)
        #expect(error.message.hasSuffix("at byte \(rejection.offset)"), "\(error)", sourceLocation: sourceLocation)
    }
}

/// Parses text that the test knows is valid.
func parsed(_ text: String) throws -> JSONValue {
    try JSONValue.parse(text)
}
