import JSON
import Postgres
import ReadModels

/// Reads the fleet projection's table: Trip and Vehicle resources and the records they are
/// rendered from.
///
/// Through the `ReadRouter` when one is given, so a configured read replica answers what the
/// task's preference allows; else from `pool`. Errors are the database's: the caller words them.
package struct FleetReader: Sendable {
    package static let table = ReadModelTable.fleet

    package let pool: ConnectionPool
    package let router: ReadRouter?

    package init(pool: ConnectionPool, router: ReadRouter? = nil) {
        self.pool = pool
        self.router = router
    }

    /// A document, or a record (`ReadModelTable.companions`: the `record` column of its resource's row).
    private static func documentSQL(column: String) -> String {
        "SELECT \(column)::text FROM \(table.name) WHERE collection = $1 AND key = $2 AND \(column) IS NOT NULL"
    }
    private static let documentSQLs = (document: documentSQL(column: "document"), record: documentSQL(column: "record"))

    private static func rangeSQL(column: String) -> String {
        """
        SELECT key, \(column)::text FROM \(table.name)
        WHERE collection = $1 AND key >= $2 AND key < $3 AND key > $4 AND \(column) IS NOT NULL
        ORDER BY key LIMIT $5
        """
    }
    private static let rangeSQLs = (document: rangeSQL(column: "document"), record: rangeSQL(column: "record"))

    /// The document at `collection`/`key`, nil when there is none.
    package func document(_ collection: String, _ key: String) async throws -> JSONValue? {
        let (row, isRecord) = Self.table.storage(of: collection)
        guard let found = try await readQuery(isRecord ? Self.documentSQLs.record : Self.documentSQLs.document, [row, key]).first else { return nil }
        return try JSONValue.parse(try found.string(0))
    }

    /// Documents of `collection` whose key starts with `prefix` (which ends in "/"), in key order,
    /// after `after`, at most `limit`.
    package func documents(_ collection: String, prefix: String, after: String?, limit: Int) async throws -> [(key: String, document: JSONValue)] {
        // Keys under a prefix ending in "/" form the range [prefix, prefix with "/" → "0").
        let upper = String(prefix.dropLast()) + "0"
        let (row, isRecord) = Self.table.storage(of: collection)
        let result = try await readQuery(isRecord ? Self.rangeSQLs.record : Self.rangeSQLs.document, [row, prefix, upper, after ?? "", String(limit)])
        return try result.rows.map { row in (try row.string(0), try JSONValue.parse(try row.string(1))) }
    }

    /// A document query: through the router when there is one (reads without a task preference stay on the primary).
    private func readQuery(_ sql: String, _ parameters: [String?]) async throws -> QueryResult {
        if let router { return try await router.query(sql, parameters) }
        return try await pool.query(sql, parameters)
    }
}
