import Foundation
import JSON

/// A place in the global feed: the writing transaction's id, then the global position.
///
/// The feed is ordered by this pair, not by position alone: positions are taken before commit,
/// so a transaction that commits late can hold lower positions than events already visible.
package struct FeedPosition: Sendable, Hashable, Comparable, CustomStringConvertible {
    package let transactionId: UInt64
    package let globalPosition: Int64

    package init(transactionId: UInt64, globalPosition: Int64) {
        self.transactionId = transactionId
        self.globalPosition = globalPosition
    }

    /// Before the first event.
    package static let start = FeedPosition(transactionId: 0, globalPosition: 0)

    package static func < (a: FeedPosition, b: FeedPosition) -> Bool {
        (a.transactionId, a.globalPosition) < (b.transactionId, b.globalPosition)
    }

    /// `txid:position`, the form used in checkpoints and page tokens.
    package var description: String { "\(transactionId):\(globalPosition)" }

    /// Parses `txid:position`.
    package init?(_ text: String) {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let txid = UInt64(parts[0]), let position = Int64(parts[1]) else { return nil }
        self.init(transactionId: txid, globalPosition: position)
    }
}

/// An event as stored.
package struct RecordedEvent: Sendable, Hashable {
    package let globalPosition: Int64
    package let transactionId: UInt64
    package let streamId: String
    package let streamVersion: Int64
    package let id: UUID
    package let type: String
    package let data: JSONValue
    package let metadata: JSONValue
    /// Server time of the append, microseconds since the Unix epoch (PostgreSQL's precision).
    package let recordedAtMicros: Int64
    /// SHA-256 linking this event to the previous one of its stream (see `HashChain`).
    package let hash: [UInt8]
    /// What readers derived from the event, shared by the copies of one feed read (nil: nothing is
    /// shared; `EventMemo`). Not part of the event's equality or hash.
    package var memo: EventMemo? = nil

    package static func == (lhs: RecordedEvent, rhs: RecordedEvent) -> Bool {
        lhs.globalPosition == rhs.globalPosition && lhs.transactionId == rhs.transactionId && lhs.streamId == rhs.streamId
            && lhs.streamVersion == rhs.streamVersion && lhs.id == rhs.id && lhs.type == rhs.type && lhs.data == rhs.data
            && lhs.metadata == rhs.metadata && lhs.recordedAtMicros == rhs.recordedAtMicros && lhs.hash == rhs.hash
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(globalPosition)
        hasher.combine(transactionId)
        hasher.combine(streamId)
        hasher.combine(streamVersion)
        hasher.combine(id)
        hasher.combine(type)
        hasher.combine(data)
        hasher.combine(metadata)
        hasher.combine(recordedAtMicros)
        hasher.combine(hash)
    }

    package var feedPosition: FeedPosition { FeedPosition(transactionId: transactionId, globalPosition: globalPosition) }

    package var recordedAt: Date { Date(timeIntervalSince1970: Double(recordedAtMicros) / 1_000_000) }
}
