import EventStore
import Foundation
import JSON
import Projections
import ReadModels
import ReadSide

/// The driver feed projection's documents for the API, read by `DriverFeedReader`.
///
/// Read-your-writes per node: a read first waits (up to `consistencyTimeout`) until the driver
/// feed projection has applied this node's latest append, so a feed read right after a location
/// report, a plan or an offer through the same node includes it.
struct DriverFeedReadModel: Sendable {
    let reader: DriverFeedReader
    /// Read-your-writes: asks this node's runner, else polls the stored checkpoint.
    let waiter: ProjectionWaiter
    var consistencyTimeout: Duration = .seconds(5)

    /// The feed document of `key` (`providers/P/vehicles/V`), or nil when the vehicle has none.
    func feed(_ key: String) async throws(APIError) -> JSONValue? {
        do {
            return try await reader.feed(key)
        } catch {
            throw APIError(.unavailable, "could not read the driver feed; retry", underlying: error)
        }
    }

    /// Waits until the projection has applied `position`; false after `consistencyTimeout`.
    func waitUntilApplied(_ position: FeedPosition) async -> Bool {
        await waiter.waitUntilApplied(position, timeout: consistencyTimeout)
    }
}
