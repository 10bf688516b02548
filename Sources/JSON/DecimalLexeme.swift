/// Byte-level work on JSON number lexemes: grammar scan, range check and canonical rendering.
///
/// All arithmetic is on decimal digits, never through `Double`, so the canonical text is the
/// exact value of the lexeme. The range rule keeps canonical text bounded: the decimal exponent
/// of the first significant digit (`d.ddd × 10^e`) must be within ±``maxExponent``.
enum DecimalLexeme {
    /// The largest allowed magnitude of the normalized decimal exponent.
    static let maxExponent = 1000

    /// Exponent digits beyond this magnitude are consumed but no longer accumulated.
    private static let exponentSaturation = 1_000_000_000

    /// Scans the longest number starting at `start` and returns the index after it.
    ///
    /// The byte at `start` must be `-` or a digit. Throws `invalidNumber` for grammar
    /// violations (also when the input ends inside the number, as in `1.` or `1e`), `notRepresentable` for `-Infinity`, `numberOutOfRange` for the range rule.
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) throws(JSONError) -> Int {
        let end = bytes.count
        var i = start
        if bytes[i] == UInt8(ascii: "-") {
            i += 1
            if i < end, bytes[i] == UInt8(ascii: "I") {
                throw .at(start, .notRepresentable, "-Infinity is not representable in JSON")
            }
        }
        // Integer part.
        let intStart = i
        guard i < end, isDigit(bytes[i]) else {
            throw .at(i, .invalidNumber, "expected a digit in number")
        }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
            if i < end, isDigit(bytes[i]) {
                throw .at(i, .invalidNumber, "leading zero in number")
            }
        } else {
            while i < end, isDigit(bytes[i]) { i += 1 }
        }
        let intEnd = i
        // Fraction.
        var fracStart = i
        var fracEnd = i
        if i < end, bytes[i] == UInt8(ascii: ".") {
            i += 1
            fracStart = i
            guard i < end, isDigit(bytes[i]) else { throw .at(i, .invalidNumber, "expected a digit after '.' in number") }
            while i < end, isDigit(bytes[i]) { i += 1 }
            fracEnd = i
        }
        // Exponent.
        var exponent = 0
        if i < end, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            var negative = false
            if i < end, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") {
                negative = bytes[i] == UInt8(ascii: "-")
                i += 1
            }
            guard i < end, isDigit(bytes[i]) else { throw .at(i, .invalidNumber, "expected a digit in number exponent") }
            while i < end, isDigit(bytes[i]) {
                if exponent < exponentSaturation {
                    exponent = exponent * 10 + Int(bytes[i] &- UInt8(ascii: "0"))
                }
                i += 1
            }
            if negative { exponent = -exponent }
        }
        // Range: exponent of the first significant digit.
        let intCount = intEnd - intStart
        var firstSignificant: Int?  // position among integer+fraction digits
        for k in intStart..<intEnd where bytes[k] != UInt8(ascii: "0") {
            firstSignificant = k - intStart
            break
        }
        if firstSignificant == nil {
            for k in fracStart..<fracEnd where bytes[k] != UInt8(ascii: "0") {
                firstSignificant = intCount + (k - fracStart)
                break
            }
        }
        if let position = firstSignificant {
            let normalized = exponent + intCount - 1 - position
            if normalized > maxExponent || normalized < -maxExponent {
                throw .at(
                    start, .numberOutOfRange,
                    "number out of range: decimal exponent \(normalized) is beyond ±\(maxExponent) in number starting"
                )
            }
        }
        return i
    }

    /// Appends the canonical decimal text of a validated lexeme to `out`.
    ///
    /// Optional `-`, integer digits without leading zeros (`0` when the integer part is zero),
    /// then `.` and the fraction digits without trailing zeros only when the fraction is
    /// non-zero. No exponent; zero of any sign is `0`.
    static func appendCanonical(of lexeme: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        if isAlreadyCanonical(lexeme) {
            out.append(contentsOf: lexeme)
            return
        }
        let end = lexeme.count
        var i = 0
        let negative = end > 0 && lexeme[0] == UInt8(ascii: "-")
        if negative { i = 1 }
        let intStart = i
        while i < end, isDigit(lexeme[i]) { i += 1 }
        let intCount = i - intStart
        var fracStart = i
        var fracCount = 0
        if i < end, lexeme[i] == UInt8(ascii: ".") {
            i += 1
            fracStart = i
            while i < end, isDigit(lexeme[i]) { i += 1 }
            fracCount = i - fracStart
        }
        var exponent = 0
        if i < end, lexeme[i] == UInt8(ascii: "e") || lexeme[i] == UInt8(ascii: "E") {
            i += 1
            var expNegative = false
            if i < end, lexeme[i] == UInt8(ascii: "+") || lexeme[i] == UInt8(ascii: "-") {
                expNegative = lexeme[i] == UInt8(ascii: "-")
                i += 1
            }
            while i < end, isDigit(lexeme[i]) {
                if exponent < exponentSaturation {
                    exponent = exponent * 10 + Int(lexeme[i] &- UInt8(ascii: "0"))
                }
                i += 1
            }
            if expNegative { exponent = -exponent }
        }

        // The digit sequence D = integer digits followed by fraction digits, indexed 0..<n.
        let n = intCount + fracCount
        @inline(__always) func digit(_ k: Int) -> UInt8 {
            k < intCount ? lexeme[intStart + k] : lexeme[fracStart + k - intCount]
        }
        var first = 0
        while first < n, digit(first) == UInt8(ascii: "0") { first += 1 }
        if first == n {
            out.append(UInt8(ascii: "0"))
            return
        }
        var last = n - 1
        while digit(last) == UInt8(ascii: "0") { last -= 1 }

        // value = D[first...last] × 10^scale
        let scale = exponent - fracCount + (n - 1 - last)
        let significant = last - first + 1
        if negative { out.append(UInt8(ascii: "-")) }
        if scale >= 0 {
            for k in first...last { out.append(digit(k)) }
            out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: scale))
        } else {
            let integerDigits = significant + scale
            if integerDigits > 0 {
                for k in first..<(first + integerDigits) { out.append(digit(k)) }
                out.append(UInt8(ascii: "."))
                for k in (first + integerDigits)...last { out.append(digit(k)) }
            } else {
                out.append(UInt8(ascii: "0"))
                out.append(UInt8(ascii: "."))
                out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: -integerDigits))
                for k in first...last { out.append(digit(k)) }
            }
        }
    }

    /// Whether a validated lexeme is its own canonical text: no exponent, no trailing zero in a
    /// fraction, and not a negative zero (the grammar already rules out leading zeros).
    private static func isAlreadyCanonical(_ lexeme: UnsafeBufferPointer<UInt8>) -> Bool {
        var hasFraction = false
        for byte in lexeme {
            if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { return false }
            if byte == UInt8(ascii: ".") { hasFraction = true }
        }
        if hasFraction {
            // "-0.0", "1.50": a trailing zero; "-0.5" is canonical.
            return lexeme[lexeme.count - 1] != UInt8(ascii: "0")
        }
        // Integers: only "-0" differs from its canonical text.
        return !(lexeme.count == 2 && lexeme[0] == UInt8(ascii: "-") && lexeme[1] == UInt8(ascii: "0"))
    }

    /// Whether a lexeme is a plain integer (no fraction, no exponent).
    static func isPlainInteger(_ lexeme: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in lexeme where byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            return false
        }
        return true
    }

    @inline(__always) static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }
}
