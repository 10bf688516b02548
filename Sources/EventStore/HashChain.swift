import Foundation
import JSON
import Signing

/// The per-stream hash chain that makes edits, deletions and reordering of events detectable.
///
/// For the event with stream version n:
///
///     hash(n) = SHA-256( hash(n-1)                      32 bytes; 32 zero bytes for version 1
///                      ‖ field(stream id)
///                      ‖ u64be(stream version)
///                      ‖ field(event id, lowercase 8-4-4-4-12 text)
///                      ‖ field(event type)
///                      ‖ field(canonical JSON of data)
///                      ‖ field(canonical JSON of metadata)
///                      ‖ i64be(recorded time, microseconds since the Unix epoch) )
///
///     field(x) = u32be(byte length of x) ‖ the UTF-8 bytes of x
///
/// "Canonical JSON" is `JSONValue.canonicalBytes()`: it depends only on the JSON value, so the
/// hash recomputed from PostgreSQL's `jsonb` text equals the one computed at append time.
/// This encoding is part of the stored data and must never change.
package enum HashChain {
    /// The "previous hash" of a stream's first event.
    package static let genesis = [UInt8](repeating: 0, count: 32)

    /// The hash of one event given the hash of its predecessor.
    package static func hash(previous: [UInt8], streamId: String, version: Int64, eventId: UUID, type: String,
                             canonicalData: [UInt8], canonicalMetadata: [UInt8], recordedAtMicros: Int64) -> [UInt8] {
        var buffer = [UInt8]()
        buffer.reserveCapacity(32 + 64 + canonicalData.count + canonicalMetadata.count + streamId.utf8.count + type.utf8.count)
        buffer.append(contentsOf: previous)
        appendField(streamId.utf8, to: &buffer)
        appendInteger(UInt64(bitPattern: version), to: &buffer)
        appendField(eventId.lowercasedText.utf8, to: &buffer)
        appendField(type.utf8, to: &buffer)
        appendField(canonicalData, to: &buffer)
        appendField(canonicalMetadata, to: &buffer)
        appendInteger(UInt64(bitPattern: recordedAtMicros), to: &buffer)
        return Digest.sha256(buffer)
    }

    /// The hash of a recorded event given its predecessor's hash.
    package static func hash(of event: RecordedEvent, previous: [UInt8]) -> [UInt8] {
        hash(previous: previous, streamId: event.streamId, version: event.streamVersion, eventId: event.id, type: event.type,
             canonicalData: event.data.canonicalBytes(), canonicalMetadata: event.metadata.canonicalBytes(),
             recordedAtMicros: event.recordedAtMicros)
    }

    /// What identifies an event's content for idempotency: stream, type and canonical data
    /// (metadata is left out: a retry carries a new request id).
    package static func payloadHash(streamId: String, type: String, canonicalData: [UInt8]) -> [UInt8] {
        var buffer = [UInt8]()
        buffer.reserveCapacity(16 + streamId.utf8.count + type.utf8.count + canonicalData.count)
        appendField(streamId.utf8, to: &buffer)
        appendField(type.utf8, to: &buffer)
        appendField(canonicalData, to: &buffer)
        return Digest.sha256(buffer)
    }

    /// The first event of `events` (consecutive versions of one stream, ascending) whose stored hash
    /// differs from the recomputed one, starting from `previous`; nil when the chain holds.
    package static func firstBreak(in events: [RecordedEvent], previous: [UInt8]) -> (event: RecordedEvent, expected: [UInt8])? {
        var previous = previous
        for event in events {
            let expected = hash(of: event, previous: previous)
            if expected != event.hash { return (event, expected) }
            previous = event.hash
        }
        return nil
    }

    private static func appendField(_ bytes: some Collection<UInt8>, to buffer: inout [UInt8]) {
        let count = UInt32(bytes.count)
        buffer.append(UInt8(truncatingIfNeeded: count >> 24))
        buffer.append(UInt8(truncatingIfNeeded: count >> 16))
        buffer.append(UInt8(truncatingIfNeeded: count >> 8))
        buffer.append(UInt8(truncatingIfNeeded: count))
        buffer.append(contentsOf: bytes)
    }

    private static func appendInteger(_ value: UInt64, to buffer: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) {
            buffer.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }
}
