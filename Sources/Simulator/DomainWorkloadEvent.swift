import Foundation
import JSON

/// One event of a workload, ready to append: its deterministic id, stream, the stream's
/// version before the append it belongs to, stored type string and JSON payload.
package struct WorkloadEvent: Sendable, Hashable {
    /// Derived from the workload's seed, so re-appending the same workload is idempotent.
    package let id: UUID
    package let streamId: String
    /// The stream's version before the append this event is part of (0: the stream is new).
    package let expectedVersion: Int64
    package let type: String
    package let data: JSONValue
}

/// The events one command appends to one stream, in order.
package struct WorkloadAppend: Sendable, Hashable {
    package let streamId: String
    /// The stream's version before this append (0: the stream does not exist yet).
    package let expectedVersion: Int64
    package let events: [WorkloadEvent]
}

/// Everything one simulated command appends: one append per stream, to be written in this order.
///
/// A trip command appends to its trip stream and then, for the vehicle sync it causes, to the
/// vehicle streams involved; a vehicle command appends to its vehicle stream only.
package struct WorkloadCommand: Sendable, Hashable {
    /// What was simulated, e.g. `Trip.updateTripStatus` (for logs and statistics).
    package let name: String
    package let appends: [WorkloadAppend]

    /// Every event of the command, in append order.
    package var events: [WorkloadEvent] { appends.flatMap(\.events) }
}
