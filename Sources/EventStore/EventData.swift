import Foundation
import JSON

/// An event to append: its id, type and JSON payload and metadata.
///
/// The id makes appends idempotent: appending an id that is already stored, with the same
/// type and data, returns the original positions and writes nothing.
package struct EventData: Sendable, Hashable {
    package let id: UUID
    package let type: String
    package let data: JSONValue
    package let metadata: JSONValue

    package init(id: UUID, type: String, data: JSONValue, metadata: JSONValue = .object(JSONObject())) {
        self.id = id
        self.type = type
        self.data = data
        self.metadata = metadata
    }
}

/// Events to append to one stream with an expected version.
package struct StreamAppend: Sendable, Hashable {
    package let streamId: String
    package let expectedVersion: ExpectedVersion
    package let events: [EventData]

    package init(streamId: String, expectedVersion: ExpectedVersion, events: [EventData]) {
        self.streamId = streamId
        self.expectedVersion = expectedVersion
        self.events = events
    }
}

/// What an append did.
package struct AppendResult: Sendable, Hashable {
    package let streamId: String
    /// Stream version of the first event of this append (for an empty append: the current version).
    package let firstVersion: Int64
    /// Stream version of the last event of this append, i.e. the stream's version after it.
    package let lastVersion: Int64
    /// Global positions of the appended events, in order.
    package let positions: [Int64]
    /// True when every event id was already stored: nothing was written and these are the original positions.
    package let deduplicated: Bool
    /// The id of the transaction that wrote the events; nil when this append wrote nothing new
    /// (empty, or a duplicate of events committed earlier).
    package let transactionId: UInt64?

    /// Where the last event of this append sits in the global feed, when this append wrote it.
    ///
    /// A reader (or projection) whose checkpoint is at or past this position has seen every
    /// event of the append: the feed is ordered by (transaction id, global position).
    package var feedPosition: FeedPosition? {
        guard let transactionId, let last = positions.last else { return nil }
        return FeedPosition(transactionId: transactionId, globalPosition: last)
    }
}
