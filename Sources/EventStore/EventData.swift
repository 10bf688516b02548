import Foundation
import JSON

/// An event to append: its id, type and JSON payload and metadata.
///
/// The id makes appends idempotent: appending an id that is already stored, with the same
/// type and data, returns the original positions and writes nothing.
///
/// The payload is either a `JSONValue` or, for events built on the hottest paths, its canonical
/// bytes written directly (`CanonicalJSONWriter`): the event store needs only those bytes (it
/// hashes and stores them), so no value tree is built for them. Equality and hashing follow the
/// JSON value (canonical bytes depend on nothing else), so both forms of one payload are equal.
package struct EventData: Sendable, Hashable {
    package let id: UUID
    package let type: String
    package let metadata: JSONValue
    private let payload: Payload

    private enum Payload: Sendable {
        case value(JSONValue)
        case canonical([UInt8])
    }

    package init(id: UUID, type: String, data: JSONValue, metadata: JSONValue = .object(JSONObject())) {
        self.id = id
        self.type = type
        self.payload = .value(data)
        self.metadata = metadata
    }

    /// An event whose payload is given as its canonical bytes, which must be what
    /// `JSONValue.canonicalBytes()` gives for the payload.
    package init(id: UUID, type: String, canonicalData: [UInt8], metadata: JSONValue = .object(JSONObject())) {
        self.id = id
        self.type = type
        self.payload = .canonical(canonicalData)
        self.metadata = metadata
    }

    /// The payload as a JSON value (parsed from the canonical bytes when it was given as those).
    package var data: JSONValue {
        switch payload {
        case .value(let value): return value
        case .canonical(let bytes):
            guard let value = try? JSONValue.parse(bytes) else { preconditionFailure("an event's canonical payload is not JSON") }
            return value
        }
    }

    /// The payload's canonical bytes (see `JSONValue.canonicalBytes()`).
    package var canonicalData: [UInt8] {
        switch payload {
        case .value(let value): value.canonicalBytes()
        case .canonical(let bytes): bytes
        }
    }

    package static func == (lhs: EventData, rhs: EventData) -> Bool {
        guard lhs.id == rhs.id, lhs.type == rhs.type, lhs.metadata == rhs.metadata else { return false }
        if case .value(let left) = lhs.payload, case .value(let right) = rhs.payload { return left == right }
        return lhs.canonicalData == rhs.canonicalData
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(type)
        hasher.combine(metadata)
        hasher.combine(data)
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
