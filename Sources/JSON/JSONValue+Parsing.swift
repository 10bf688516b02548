extension JSONValue {
    /// Parses one strict RFC 8259 JSON document.
    ///
    /// Rejects, with a ``JSONError`` whose code names the rule and whose offset is the 0-based
    /// byte offset of the problem: leading zeros, `+1`, `.5`, `1.`, `NaN`, `Infinity`
    /// (`invalidNumber`, `unexpectedCharacter`, `notRepresentable`); numbers whose normalized
    /// decimal exponent is beyond ±1000 (`numberOutOfRange`); trailing commas, comments and
    /// single quotes (`unexpectedCharacter`); unescaped control characters and invalid escapes
    /// (`invalidString`); malformed UTF-8 (`invalidUTF8`); `\u0000` and raw NUL in strings
    /// (`nullCharacter`); lone or reversed surrogate escapes (`loneSurrogate`); a key twice in one
    /// object, compared by UTF-8 bytes (`duplicateKey`); arrays and objects nested more than
    /// `maxDepth` levels (`tooDeep`); anything but whitespace after the value (`trailingData`);
    /// and input that ends early (`unexpectedEnd`).
    ///
    /// `maxDepth` bounds the recursion of the parser as well as the shape of accepted documents;
    /// keep it modest (the default 64 is plenty for events and API bodies).
    ///
    /// Contiguous collections (`[UInt8]`, `ArraySlice`, `Data`, `UnsafeRawBufferPointer`) are
    /// read in place; others are copied first.
    package static func parse(_ bytes: some Collection<UInt8>, maxDepth: Int = 64) throws(JSONError) -> JSONValue {
        let result = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONError) in try JSONParser.parse(buffer, maxDepth: maxDepth) }
        }
        if let result {
            return try result.get()
        }
        let copy = Array(bytes)
        return try parse(copy, maxDepth: maxDepth)
    }

    /// The byte form over a buffer read in place (not generic, so callers in other modules need no
    /// specialization: the feed decodes every event's JSON through it).
    package static func parse(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int = 64) throws(JSONError) -> JSONValue {
        try JSONParser.parse(bytes, maxDepth: maxDepth)
    }

    /// Parses one strict RFC 8259 JSON document from the UTF-8 of `text`.
    ///
    /// The same rules as the byte form; offsets are into `text.utf8`.
    package static func parse(_ text: String, maxDepth: Int = 64) throws(JSONError) -> JSONValue {
        var text = text
        let result = text.withUTF8 { buffer in
            Result { () throws(JSONError) in try JSONParser.parse(buffer, maxDepth: maxDepth) }
        }
        return try result.get()
    }
}
