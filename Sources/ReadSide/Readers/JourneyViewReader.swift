import JSON
import Postgres
import ReadModels

/// Reads the journey projection's table: riders' views, share links, riders' trips and journey
/// styles.
///
/// Through the `ReadRouter` when one is given; a read outside any request (no task preference,
/// e.g. the journey hub's polling) waits for the replica to catch up with the primary first, so
/// it never shows a rider something older than the primary holds. Errors are the database's.
package struct JourneyViewReader: Sendable {
    package static let table = ReadModelTable.journey

    package let pool: ConnectionPool
    package let router: ReadRouter?

    package init(pool: ConnectionPool, router: ReadRouter? = nil) {
        self.pool = pool
        self.router = router
    }

    private static let documentsSQL = "SELECT key, document::text FROM \(table.name) WHERE collection = $1 AND key = ANY($2::text[])"

    /// Documents of `collection` by key (missing keys are left out), in one query.
    package func documents(_ collection: String, keys: [String]) async throws -> [String: JSONValue] {
        let parameters: [String?] = [collection, PostgresText.arrayLiteral(keys)]
        let result = if let router {
            try await router.query(Self.documentsSQL, parameters, unset: .replicaCaughtUp)
        } else {
            try await pool.query(Self.documentsSQL, parameters)
        }
        var found: [String: JSONValue] = [:]
        for row in result.rows { found[try row.string(0)] = try JSONValue.parse(try row.string(1)) }
        return found
    }
}
