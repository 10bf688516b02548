/// A strict RFC 8259 parser over contiguous bytes.
///
/// Rejects everything the module promises to reject (see `JSONValue.parse`),
/// reporting the byte offset of the offending byte. Recursion depth is bounded by `maxDepth`.
struct JSONParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let maxDepth: Int
    private var index = 0
    /// Reused buffer for strings that contain escapes.
    private var scratch: [UInt8] = []

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    /// Parses one value surrounded by optional whitespace, and nothing else.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) throws(JSONError) -> JSONValue {
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        if parser.index < bytes.count {
            throw .at(parser.index, .trailingData, "unexpected data after the top-level value")
        }
        return value
    }

    // MARK: - Values

    private mutating func parseValue(depth: Int) throws(JSONError) -> JSONValue {
        guard index < bytes.count else {
            throw .at(index, .unexpectedEnd, "expected a value")
        }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            return .object(try parseObject(depth: depth + 1))
        case UInt8(ascii: "["):
            return .array(try parseArray(depth: depth + 1))
        case UInt8(ascii: "\""):
            return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = index
            index = try DecimalLexeme.scan(bytes, from: start)
            let lexeme = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            return .number(JSONNumber(unchecked: lexeme))
        case UInt8(ascii: "N") where hasPrefix("NaN"):
            throw .at(index, .notRepresentable, "NaN is not representable in JSON")
        case UInt8(ascii: "I") where hasPrefix("Infinity"):
            throw .at(index, .notRepresentable, "Infinity is not representable in JSON")
        case let byte:
            throw .at(index, .unexpectedCharacter, "expected a value but found \(describe(byte))")
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONError) -> [JSONValue] {
        let start = index
        if depth > maxDepth {
            throw .at(start, .tooDeep, "nesting deeper than \(maxDepth) levels")
        }
        index += 1  // [
        skipWhitespace()
        var elements: [JSONValue] = []
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return elements
        }
        while true {
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            guard index < bytes.count else {
                throw .at(index, .unexpectedEnd, "unterminated array that starts at byte \(start), reached end of input")
            }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                    throw .at(index, .unexpectedCharacter, "trailing comma in array")
                }
            case UInt8(ascii: "]"):
                index += 1
                return elements
            case let byte:
                throw .at(index, .unexpectedCharacter, "expected ',' or ']' after array element but found \(describe(byte))")
            }
        }
    }

    private mutating func parseObject(depth: Int) throws(JSONError) -> JSONObject {
        let start = index
        if depth > maxDepth {
            throw .at(start, .tooDeep, "nesting deeper than \(maxDepth) levels")
        }
        index += 1  // {
        skipWhitespace()
        var object = JSONObject()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return object
        }
        while true {
            guard index < bytes.count else {
                throw .at(index, .unexpectedEnd, "expected a string key in object that starts at byte \(start)")
            }
            guard bytes[index] == UInt8(ascii: "\"") else {
                throw .at(index, .unexpectedCharacter, "expected a string key in object but found \(describe(bytes[index]))")
            }
            let keyStart = index
            let key = try parseString()
            if object.containsKey(key) {
                throw .at(keyStart, .duplicateKey, "duplicate key \(JSONError.quote(key)) in object")
            }
            skipWhitespace()
            guard index < bytes.count else {
                throw .at(index, .unexpectedEnd, "expected ':' after object key")
            }
            guard bytes[index] == UInt8(ascii: ":") else {
                throw .at(index, .unexpectedCharacter, "expected ':' after object key but found \(describe(bytes[index]))")
            }
            index += 1
            skipWhitespace()
            let value = try parseValue(depth: depth)
            object.appendNew(key, value)
            skipWhitespace()
            guard index < bytes.count else {
                throw .at(index, .unexpectedEnd, "unterminated object that starts at byte \(start), reached end of input")
            }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                    throw .at(index, .unexpectedCharacter, "trailing comma in object")
                }
            case UInt8(ascii: "}"):
                index += 1
                return object
            case let byte:
                throw .at(index, .unexpectedCharacter, "expected ',' or '}' after object member but found \(describe(byte))")
            }
        }
    }

    // MARK: - Strings

    /// Parses a string whose opening quote is at `index`.
    private mutating func parseString() throws(JSONError) -> String {
        let quote = index
        let start = index + 1
        var i = start
        // Fast path: no escapes, so the bytes between the quotes are the string.
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") {
                index = i + 1
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
            } else if byte == UInt8(ascii: "\\") {
                scratch.removeAll(keepingCapacity: true)
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i]))
                return try parseEscapedString(from: i, quote: quote)
            } else if byte < 0x20 {
                throw controlCharacter(byte, at: i)
            } else if byte < 0x80 {
                i += 1
            } else {
                i = try validateUTF8Sequence(at: i)
            }
        }
        throw .at(quote, .unexpectedEnd, "unterminated string that starts")
    }

    /// Continues a string at `i` (a backslash), decoding into `scratch`.
    private mutating func parseEscapedString(from position: Int, quote: Int) throws(JSONError) -> String {
        var i = position
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") {
                index = i + 1
                return String(decoding: scratch, as: UTF8.self)
            } else if byte == UInt8(ascii: "\\") {
                i = try decodeEscape(at: i)
            } else if byte < 0x20 {
                throw controlCharacter(byte, at: i)
            } else if byte < 0x80 {
                scratch.append(byte)
                i += 1
            } else {
                let end = try validateUTF8Sequence(at: i)
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[i..<end]))
                i = end
            }
        }
        throw .at(quote, .unexpectedEnd, "unterminated string that starts")
    }

    /// Decodes the escape whose backslash is at `i` into `scratch`; returns the index after it.
    private mutating func decodeEscape(at i: Int) throws(JSONError) -> Int {
        guard i + 1 < bytes.count else {
            throw .at(i, .unexpectedEnd, "unterminated escape sequence")
        }
        let replacement: UInt8
        switch bytes[i + 1] {
        case UInt8(ascii: "\""): replacement = UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): replacement = UInt8(ascii: "\\")
        case UInt8(ascii: "/"): replacement = UInt8(ascii: "/")
        case UInt8(ascii: "b"): replacement = 0x08
        case UInt8(ascii: "f"): replacement = 0x0C
        case UInt8(ascii: "n"): replacement = 0x0A
        case UInt8(ascii: "r"): replacement = 0x0D
        case UInt8(ascii: "t"): replacement = 0x09
        case UInt8(ascii: "u"):
            return try decodeUnicodeEscape(at: i)
        case let byte:
            throw .at(i, .invalidString, "invalid escape sequence '\\\(describeRaw(byte))' in string")
        }
        scratch.append(replacement)
        return i + 2
    }

    /// Decodes `\uXXXX` (and a following low surrogate escape) at `i`.
    private mutating func decodeUnicodeEscape(at i: Int) throws(JSONError) -> Int {
        let unit = try hex4(at: i)
        var scalarValue = UInt32(unit)
        var next = i + 6
        switch unit {
        case 0:
            throw .at(i, .nullCharacter, "\\u0000 is not allowed in strings (PostgreSQL jsonb cannot store U+0000)")
        case 0xD800...0xDBFF:
            guard next + 1 < bytes.count, bytes[next] == UInt8(ascii: "\\"), bytes[next + 1] == UInt8(ascii: "u") else {
                throw .at(i, .loneSurrogate, "high surrogate escape \\u\(hexText(unit)) is not followed by a low surrogate escape")
            }
            let low = try hex4(at: next)
            guard (0xDC00...0xDFFF).contains(low) else {
                throw .at(i, .loneSurrogate, "high surrogate escape \\u\(hexText(unit)) is followed by \\u\(hexText(low)), not a low surrogate")
            }
            scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            next += 6
        case 0xDC00...0xDFFF:
            throw .at(i, .loneSurrogate, "low surrogate escape \\u\(hexText(unit)) without a preceding high surrogate")
        default:
            break
        }
        appendUTF8(scalarValue)
        return next
    }

    /// Reads the four hex digits of the `\u` escape whose backslash is at `i`.
    private func hex4(at i: Int) throws(JSONError) -> UInt16 {
        var value: UInt16 = 0
        for k in (i + 2)..<(i + 6) {
            guard k < bytes.count else {
                throw .at(i, .unexpectedEnd, "unterminated \\u escape")
            }
            let byte = bytes[k]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default:
                throw .at(k, .invalidString, "\\u escape needs four hex digits, found \(describe(byte))")
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case ..<0x80:
            scratch.append(UInt8(scalar))
        case ..<0x800:
            scratch.append(UInt8(0xC0 | scalar >> 6))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        case ..<0x10000:
            scratch.append(UInt8(0xE0 | scalar >> 12))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | scalar >> 18))
            scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// Validates the multi-byte UTF-8 sequence whose lead byte is at `i` (Unicode Table 3-7);
    /// returns the index after it.
    private func validateUTF8Sequence(at i: Int) throws(JSONError) -> Int {
        let lead = bytes[i]
        let length: Int
        var secondLow: UInt8 = 0x80
        var secondHigh: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; secondLow = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; secondHigh = 0x9F
        case 0xF0: length = 4; secondLow = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; secondHigh = 0x8F
        case 0x80...0xBF:
            throw .at(i, .invalidUTF8, "invalid UTF-8: unexpected continuation byte 0x\(hexByte(lead))")
        case 0xC0, 0xC1:
            throw .at(i, .invalidUTF8, "invalid UTF-8: overlong encoding (lead byte 0x\(hexByte(lead)))")
        default:
            throw .at(i, .invalidUTF8, "invalid UTF-8: lead byte 0x\(hexByte(lead)) would encode beyond U+10FFFF")
        }
        guard i + length <= bytes.count else {
            throw .at(i, .invalidUTF8, "invalid UTF-8: truncated \(length)-byte sequence")
        }
        let second = bytes[i + 1]
        guard second >= secondLow, second <= secondHigh else {
            let rule: String
            if second & 0xC0 != 0x80 {
                rule = "truncated \(length)-byte sequence"
            } else if lead == 0xED {
                rule = "encoded UTF-16 surrogate"
            } else if lead == 0xF4 {
                rule = "code point beyond U+10FFFF"
            } else {
                rule = "overlong encoding"
            }
            throw .at(i, .invalidUTF8, "invalid UTF-8: \(rule)")
        }
        for k in (i + 2)..<(i + length) where bytes[k] & 0xC0 != 0x80 {
            throw .at(i, .invalidUTF8, "invalid UTF-8: truncated \(length)-byte sequence")
        }
        return i + length
    }

    // MARK: - Helpers

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                index += 1
            default:
                return
            }
        }
    }

    private func hasPrefix(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        let pointer = word.utf8Start
        for k in 0..<count where bytes[index + k] != pointer[k] {
            return false
        }
        return true
    }

    private mutating func expectLiteral(_ word: StaticString) throws(JSONError) {
        let pointer = word.utf8Start
        for k in 0..<word.utf8CodeUnitCount {
            guard index + k < bytes.count else {
                throw .at(index + k, .unexpectedEnd, "incomplete literal, expected \"\(word)\"")
            }
            guard bytes[index + k] == pointer[k] else {
                throw .at(index + k, .unexpectedCharacter, "invalid literal, expected \"\(word)\" but found \(describe(bytes[index + k]))")
            }
        }
        index += word.utf8CodeUnitCount
    }

    private func controlCharacter(_ byte: UInt8, at i: Int) -> JSONError {
        if byte == 0 {
            return .at(i, .nullCharacter, "NUL byte is not allowed in strings (PostgreSQL jsonb cannot store U+0000)")
        }
        return .at(i, .invalidString, "unescaped control character U+\(hexText(UInt16(byte))) in string")
    }

    private func describe(_ byte: UInt8) -> String {
        "'\(describeRaw(byte))'"
    }

    private func describeRaw(_ byte: UInt8) -> String {
        if byte >= 0x21, byte < 0x7F {
            return String(UnicodeScalar(byte))
        }
        return "0x" + hexByte(byte)
    }

    private func hexByte(_ byte: UInt8) -> String {
        let text = String(byte, radix: 16, uppercase: true)
        return byte < 0x10 ? "0" + text : text
    }

    private func hexText(_ unit: UInt16) -> String {
        let text = String(unit, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - text.count)) + text
    }
}
