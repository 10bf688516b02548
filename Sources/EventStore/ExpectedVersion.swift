/// The version a writer expects a stream to have before its append (optimistic concurrency).
package enum ExpectedVersion: Sendable, Hashable, CustomStringConvertible {
    /// Append whatever the stream's version is (location reports).
    case any
    /// The stream must not exist yet.
    case noStream
    /// The stream's current version must be exactly this (versions start at 1).
    case exact(Int64)

    /// Whether a stream whose current version is `current` (0 = no stream) satisfies this expectation.
    package func accepts(current: Int64) -> Bool {
        switch self {
        case .any: return true
        case .noStream: return current == 0
        case .exact(let version): return current == version
        }
    }

    package var description: String {
        switch self {
        case .any: return "any version"
        case .noStream: return "no stream"
        case .exact(let version): return "version \(version)"
        }
    }
}
