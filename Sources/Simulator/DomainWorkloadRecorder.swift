import Foundation
import JSON
import Journey

/// Turns domain events into appendable workload events: stored type, JSON payload,
/// deterministic id and the stream's expected version.
///
/// Keeps each stream's version, so every append carries the version the store will see before it.
struct DomainWorkloadRecorder {
    private var versions: [String: Int64] = [:]
    private var ids: SeededRandom
    /// Events recorded so far.
    private(set) var eventCount = 0

    init(seed: UInt64) {
        // A generator of its own, so ids never shift the simulation's draws.
        ids = SeededRandom(seed: seed ^ 0x1D5E_ED1D_5EED_1D5E)
    }

    /// The append of `events` (type and encoded payload) to `stream`, or nil when there are none.
    mutating func append(_ stream: String, _ events: [(type: String, payload: Data)]) -> WorkloadAppend? {
        guard !events.isEmpty else { return nil }
        let expected = versions[stream] ?? 0
        var recorded: [WorkloadEvent] = []
        recorded.reserveCapacity(events.count)
        for event in events {
            let data: JSONValue
            do {
                data = try JSONValue.parse(event.payload)
            } catch {
                preconditionFailure("a domain event payload must be JSON (type \(event.type)): \(error)")
            }
            recorded.append(WorkloadEvent(id: nextId(), streamId: stream, expectedVersion: expected, type: event.type, data: data))
        }
        versions[stream] = expected + Int64(events.count)
        eventCount += events.count
        return WorkloadAppend(streamId: stream, expectedVersion: expected, events: recorded)
    }

    /// The append of trip events to `stream`.
    mutating func append(_ stream: String, trip events: [Trip.Event]) -> WorkloadAppend? {
        append(stream, events.map { event in (event.type, Self.payload { () throws(JourneyError) in try event.encodePayload() }) })
    }

    /// The append of vehicle events to `stream`.
    mutating func append(_ stream: String, vehicle events: [Vehicle.Event]) -> WorkloadAppend? {
        append(stream, events.map { event in (event.type, Self.payload { () throws(JourneyError) in try event.encodePayload() }) })
    }

    private static func payload(_ encode: () throws(JourneyError) -> Data) -> Data {
        do {
            return try encode()
        } catch {
            preconditionFailure("a decided event must encode: \(error.message)")
        }
    }

    /// A version-4 style UUID from the id generator.
    private mutating func nextId() -> UUID {
        let high = ids.next(), low = ids.next()
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &raw) { bytes in
            bytes.storeBytes(of: high.bigEndian, toByteOffset: 0, as: UInt64.self)
            bytes.storeBytes(of: low.bigEndian, toByteOffset: 8, as: UInt64.self)
        }
        raw.6 = (raw.6 & 0x0F) | 0x40
        raw.8 = (raw.8 & 0x3F) | 0x80
        return UUID(uuid: raw)
    }
}
