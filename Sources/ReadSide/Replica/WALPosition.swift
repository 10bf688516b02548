/// A position in PostgreSQL's write-ahead log (a `pg_lsn`), written `16/B374D848`.
///
/// The consistency token of a write: the primary's WAL insert position after the write and its
/// projection committed. A replica that has replayed up to it shows everything the write caused.
package struct WALPosition: Comparable, Hashable, Sendable, CustomStringConvertible {
    package let value: UInt64

    package init(_ value: UInt64) {
        self.value = value
    }

    /// Parses PostgreSQL's text form: two groups of 1 to 8 hex digits around a slash; nil otherwise.
    package init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ (1...8).contains($0.count) && $0.allSatisfy(\.isHexDigit) }),
              let high = UInt64(parts[0], radix: 16), let low = UInt64(parts[1], radix: 16) else { return nil }
        value = high << 32 | low
    }

    package var description: String {
        String(value >> 32, radix: 16, uppercase: true) + "/" + String(value & 0xFFFF_FFFF, radix: 16, uppercase: true)
    }

    package static func < (lhs: WALPosition, rhs: WALPosition) -> Bool { lhs.value < rhs.value }
}
