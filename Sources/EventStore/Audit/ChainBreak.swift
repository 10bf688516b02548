import Signing

/// The first broken link of one stream's hash chain, as `ChainVerifier` found it.
package struct ChainBreak: Sendable, Hashable, CustomStringConvertible {
    /// What is wrong at `version`.
    package enum Kind: Sendable, Hashable {
        /// The stored hash differs from the one recomputed from the row and its predecessor
        /// (the row was edited, or rows were swapped or renumbered).
        case hashMismatch(expected: [UInt8], found: [UInt8])
        /// Version `version` is missing; the next stored one is `found` (rows were deleted).
        case gap(found: Int64)
        /// The stream's head row (`streams`) names version `headVersion`, but the stored events end at `version - 1`.
        case missingTail(headVersion: Int64)
        /// The head row's hash differs from the hash of the stream's last event.
        case headMismatch(expected: [UInt8], found: [UInt8])
        /// Events exist beyond the head row's version, or the stream has events and no head row.
        case headBehind(headVersion: Int64?)
    }

    package let streamId: String
    package let version: Int64
    package let kind: Kind

    package init(streamId: String, version: Int64, kind: Kind) {
        self.streamId = streamId
        self.version = version
        self.kind = kind
    }

    /// One line: stream, version, and the expected and found values.
    package var description: String {
        switch kind {
        case .hashMismatch(let expected, let found):
            "\(streamId) version \(version): hash mismatch: expected \(Digest.hex(expected)), found \(Digest.hex(found))"
        case .gap(let found):
            "\(streamId) version \(version): missing: expected version \(version), found version \(found) (gap)"
        case .missingTail(let head):
            "\(streamId) version \(version): missing: the stream head is at version \(head), the stored events end at version \(version - 1)"
        case .headMismatch(let expected, let found):
            "\(streamId) version \(version): head hash mismatch: expected \(Digest.hex(expected)) (last event), found \(Digest.hex(found)) (streams.last_hash)"
        case .headBehind(let head):
            if let head {
                "\(streamId) version \(version): stored beyond the stream head (head version \(head))"
            } else {
                "\(streamId) version \(version): the stream has events but no head row"
            }
        }
    }
}
