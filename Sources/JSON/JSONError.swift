/// The one error type of the `JSON` module.
///
/// Every failure of parsing, validating a number lexeme, or bridging through `Codable` is a
/// `JSONError`. Callers branch on ``code``; ``message`` states the broken rule and, for parse
/// errors, the place (`duplicate key "lat" in object at byte 17`). ``offset`` is the 0-based
/// byte offset into the parsed input where the problem was found, or `nil` when the error is
/// not about a position in a document (for example a failed `Codable` bridge).
package struct JSONError: Error, Sendable, CustomStringConvertible {
    /// What kind of rule was broken; stable, so tests and the HTTP layer can branch on it.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name, as printed in ``JSONError/description``.
        package let name: String

        private init(_ name: String) {
            self.name = name
        }

        /// The input ended where more was required (a value, a closing bracket or quote).
        package static let unexpectedEnd = Code("unexpectedEnd")
        /// A byte that the grammar does not allow at this place (comments, single quotes,
        /// trailing commas, `+1`, `.5`, a missing `:` ...).
        package static let unexpectedCharacter = Code("unexpectedCharacter")
        /// A number that breaks the RFC 8259 grammar (`01`, `1.`, `1e`, `-x`).
        package static let invalidNumber = Code("invalidNumber")
        /// A number whose normalized decimal exponent is beyond ±1000.
        package static let numberOutOfRange = Code("numberOutOfRange")
        /// A bad escape sequence or an unescaped control character in a string.
        package static let invalidString = Code("invalidString")
        /// Bytes that are not well-formed UTF-8 (overlong, encoded surrogates, > U+10FFFF, truncated).
        package static let invalidUTF8 = Code("invalidUTF8")
        /// `\u0000` or a raw NUL byte in a string; PostgreSQL `jsonb` cannot store U+0000.
        package static let nullCharacter = Code("nullCharacter")
        /// A `\uD800`–`\uDFFF` escape that is not part of a high-then-low surrogate pair.
        package static let loneSurrogate = Code("loneSurrogate")
        /// The same key (compared by its UTF-8 bytes) twice in one object.
        package static let duplicateKey = Code("duplicateKey")
        /// Arrays and objects nested deeper than the parser's `maxDepth`.
        package static let tooDeep = Code("tooDeep")
        /// Something other than whitespace after the top-level value.
        package static let trailingData = Code("trailingData")
        /// A value that JSON cannot represent, such as `NaN` or `Infinity`.
        package static let notRepresentable = Code("notRepresentable")
        /// A `Codable` value could not be encoded into a ``JSONValue``; see ``JSONError/underlying``.
        package static let encodingFailed = Code("encodingFailed")
        /// A ``JSONValue`` could not be decoded into a `Decodable` type; see ``JSONError/underlying``.
        package static let decodingFailed = Code("decodingFailed")

        /// The code's name.
        package var description: String { name }
    }

    /// What kind of rule was broken.
    package let code: Code
    /// The broken rule and the place, in words.
    package let message: String
    /// The 0-based byte offset into the input where the problem was found, if it is about a place.
    package let offset: Int?
    /// The error this one wraps, for the `Codable` bridge.
    package let underlying: (any Error)?
    /// The source file of the library code that raised the error.
    package let file: String
    /// The source line of the library code that raised the error.
    package let line: Int

    /// Creates an error; prefer the static factories, which record the raising file and line.
    package init(
        code: Code,
        message: String,
        offset: Int?,
        underlying: (any Error)? = nil,
        file: String = #fileID,
        line: Int = #line
    ) {
        self.code = code
        self.message = message
        self.offset = offset
        self.underlying = underlying
        self.file = file
        self.line = line
    }

    /// `code: message`, e.g. `duplicateKey: duplicate key "lat" in object at byte 17`.
    package var description: String { "\(code): \(message)" }
}

extension JSONError {
    /// An error about the byte at `offset`; the message gets ` at byte N` appended.
    static func at(
        _ offset: Int,
        _ code: Code,
        _ rule: String,
        file: String = #fileID,
        line: Int = #line
    ) -> JSONError {
        JSONError(code: code, message: "\(rule) at byte \(offset)", offset: offset, file: file, line: line)
    }

    /// Quotes user text for a message: escaped like JSON and cut to a readable length.
    static func quote(_ text: String, limit: Int = 40) -> String {
        var shown = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == limit {
                shown += "…"
                break
            }
            switch scalar {
            case "\"": shown += "\\\""
            case "\\": shown += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                shown += "\\u" + String(scalar.value, radix: 16).leftPadded(to: 4)
            default: shown.unicodeScalars.append(scalar)
            }
            count += 1
        }
        return "\"" + shown + "\""
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
