import JSON
import Postgres
import ReadModels

/// Reads the driver feed projection's table: one feed document per vehicle.
///
/// Always from the primary (`pool`): in-car screens read right after their own reports, and the
/// feed has no replica routing. Errors are the database's: the caller words them.
package struct DriverFeedReader: Sendable {
    package static let table = ReadModelTable.driverFeed

    package let pool: ConnectionPool

    package init(pool: ConnectionPool) {
        self.pool = pool
    }

    private static let feedSQL = "SELECT document::text FROM \(table.name) WHERE collection = $1 AND key = $2"

    /// The feed document of `key` (`providers/P/vehicles/V`), or nil when the vehicle has none.
    package func feed(_ key: String) async throws -> JSONValue? {
        guard let row = try await pool.query(Self.feedSQL, [DriverFeedProjection.feedsCollection, key]).first else { return nil }
        return try JSONValue.parse(try row.string(0))
    }
}
