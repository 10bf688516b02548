/// Serializes ``JSONValue`` into bytes, in compact or canonical form.
///
/// Both forms have no whitespace and the same string escaping; they differ in that the
/// canonical form sorts object members by key bytes and writes numbers as canonical decimals.
enum JSONWriter {
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    static func write(_ value: JSONValue, canonical: Bool, to out: inout [UInt8]) {
        switch value {
        case .null:
            out.append(contentsOf: [UInt8(ascii: "n"), UInt8(ascii: "u"), UInt8(ascii: "l"), UInt8(ascii: "l")])
        case .bool(true):
            out.append(contentsOf: [UInt8(ascii: "t"), UInt8(ascii: "r"), UInt8(ascii: "u"), UInt8(ascii: "e")])
        case .bool(false):
            out.append(contentsOf: [
                UInt8(ascii: "f"), UInt8(ascii: "a"), UInt8(ascii: "l"), UInt8(ascii: "s"), UInt8(ascii: "e"),
            ])
        case .number(let number):
            if canonical {
                number.appendCanonical(to: &out)
            } else {
                out.append(contentsOf: number.lexeme.utf8)
            }
        case .string(let string):
            writeString(string, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            var first = true
            for element in elements {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                write(element, canonical: canonical, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            var first = true
            if canonical, let order = object.positionsSortedByKeyBytes {
                for position in order {
                    if !first { out.append(UInt8(ascii: ",")) }
                    first = false
                    let (key, member) = object[position: position]
                    writeString(key, to: &out)
                    out.append(UInt8(ascii: ":"))
                    write(member, canonical: true, to: &out)
                }
            } else {
                // Written in the object's order: as it is, or already in key order when canonical.
                for (key, member) in object {
                    if !first { out.append(UInt8(ascii: ",")) }
                    first = false
                    writeString(key, to: &out)
                    out.append(UInt8(ascii: ":"))
                    write(member, canonical: canonical, to: &out)
                }
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Writes a quoted string: `"` and `\` escaped, U+0008/000C/000A/000D/0009 as short escapes,
    /// other code points below U+0020 as `\u00xx` (lowercase hex), everything else raw UTF-8.
    static func writeString(_ string: String, to out: inout [UInt8]) {
        var text = string
        out.append(UInt8(ascii: "\""))
        text.withUTF8 { bytes in
            var runStart = 0
            for i in 0..<bytes.count {
                let byte = bytes[i]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                if runStart < i {
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i]))
                }
                runStart = i + 1
                out.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""): out.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
                case 0x08: out.append(UInt8(ascii: "b"))
                case 0x0C: out.append(UInt8(ascii: "f"))
                case 0x0A: out.append(UInt8(ascii: "n"))
                case 0x0D: out.append(UInt8(ascii: "r"))
                case 0x09: out.append(UInt8(ascii: "t"))
                default:
                    out.append(UInt8(ascii: "u"))
                    out.append(UInt8(ascii: "0"))
                    out.append(UInt8(ascii: "0"))
                    out.append(hexDigits[Int(byte >> 4)])
                    out.append(hexDigits[Int(byte & 0x0F)])
                }
            }
            if runStart < bytes.count {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
