extension JSONValue: CustomStringConvertible {
    /// The compact UTF-8 text: member order as stored, no whitespace, numbers as their lexemes.
    ///
    /// Strings are escaped as in ``canonicalBytes()``. Parsing the result gives an equal value.
    package func compactBytes() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        JSONWriter.write(self, canonical: false, to: &out)
        return out
    }

    /// Appends ``compactBytes()`` to `out` (one buffer for many documents, without an array each).
    package func writeCompact(to out: inout [UInt8]) {
        JSONWriter.write(self, canonical: false, to: &out)
    }

    /// ``compactBytes()`` as a string.
    package var compactString: String {
        String(decoding: compactBytes(), as: UTF8.self)
    }

    /// The compact text (see ``compactString``).
    package var description: String { compactString }

    /// The canonical UTF-8 bytes, which depend only on the JSON value; the event store hashes them.
    ///
    /// This form is part of the stored hash chain and must never change once shipped.
    ///
    /// - No whitespace anywhere.
    /// - Objects: members sorted by the UTF-8 bytes of their keys (bytewise, ascending),
    ///   recursively. Arrays keep their order.
    /// - Strings (keys and values): `"` and `\` as `\"` and `\\`; U+0008, U+000C, U+000A,
    ///   U+000D, U+0009 as `\b`, `\f`, `\n`, `\r`, `\t`; other code points below U+0020 as
    ///   `\u00xx` with lowercase hex; everything else, including `/`, U+007F and all non-ASCII,
    ///   as raw UTF-8. (The parser never produces U+0000; a value built in Swift that contains it
    ///   is written as `\u0000`.)
    /// - Numbers: the exact decimal value: optional `-`, the integer part without leading zeros
    ///   (a single `0` when it is zero), then `.` and the fraction digits only if the fraction is
    ///   non-zero, with trailing zeros removed; never an exponent; negative zero is `0`.
    ///   `1e2` → `100`, `1.50` → `1.5`, `-0.0` → `0`, `1.5e-3` → `0.0015`. Computed with digit
    ///   arithmetic, never through `Double`.
    /// - `true`, `false`, `null` as such.
    ///
    /// So a value and its PostgreSQL `jsonb` re-rendering (keys re-ordered, whitespace changed,
    /// `1e2` printed as `100`, `\/` as `/`) have identical canonical bytes.
    package func canonicalBytes() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        JSONWriter.write(self, canonical: true, to: &out)
        return out
    }

    /// Appends ``canonicalBytes()`` to `out` (one buffer for many documents, without an array each).
    package func writeCanonical(to out: inout [UInt8]) {
        JSONWriter.write(self, canonical: true, to: &out)
    }

    /// ``canonicalBytes()`` as a string.
    package var canonicalString: String {
        String(decoding: canonicalBytes(), as: UTF8.self)
    }
}

extension Array where Element == UInt8 {
    /// The same bytes with no more than an eighth of spare capacity, copied when there is more: for
    /// encoded documents kept in memory, since the writer's buffer grows by doubling.
    package func withoutSpareCapacity() -> [UInt8] {
        guard capacity > count + count / 8 else { return self }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = buffer.initialize(fromContentsOf: self)
        }
    }
}
