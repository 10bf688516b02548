import Foundation
import JSON
import Postgres

/// Decodes the rows of `EventStore.feedStatement` (binary format) into `RecordedEvent`s, in place.
///
/// One decoder per page: it keeps the last event type it made a `String` of and hands the same
/// string to the next event of that type (a page holds few types), so an event costs one
/// allocation fewer. Everything else is decoded per row: ids, stream, both JSON documents
/// (parsed straight from libpq's buffer) and the hash. Each event gets a memo of its own, which
/// the readers of the feed cache's copies share.
struct FeedRowDecoder {
    private var lastType = ""

    mutating func decode(_ row: RawRow) throws -> RecordedEvent {
        RecordedEvent(
            globalPosition: try row.binaryInt64(0), transactionId: UInt64(bitPattern: try row.binaryInt64(1)),
            streamId: try row.string(2), streamVersion: try row.binaryInt64(3), id: try row.binaryUUID(4),
            type: try type(row, 5),
            data: try row.withBinaryJSONB(6) { bytes throws(JSONError) in try JSONValue.parse(bytes) },
            metadata: try row.withBinaryJSONB(7) { bytes throws(JSONError) in try JSONValue.parse(bytes) },
            recordedAtMicros: try row.binaryMicros(8), hash: try row.binaryBytes(9), memo: EventMemo())
    }

    private mutating func type(_ row: RawRow, _ column: Int) throws -> String {
        let same = try row.withBytes(column) { bytes in lastType.withUTF8 { $0.elementsEqual(bytes) } }
        if !same { lastType = try row.string(column) }
        return lastType
    }
}
