import JSON
import Postgres
import ReadModels

/// Reads the route audit projection's table: one audit document per trip.
///
/// The server reads one trip's audit through `pool` (the primary); `waymark report` reads in a
/// read-only session of its own and may not know the trip's provider, so it has a synchronous
/// lookup by trip id on a `Connection`. Errors are the database's: the caller words them.
package struct RouteAuditReader: Sendable {
    package static let table = ReadModelTable.routeAudit

    package let pool: ConnectionPool

    package init(pool: ConnectionPool) {
        self.pool = pool
    }

    private static let auditSQL = "SELECT key, document::text FROM \(table.name) WHERE collection = $1 AND key = $2"
    /// Keys `providers/P/trips/T` of any provider P.
    private static let anyProviderSQL = """
        SELECT key, document::text FROM \(table.name)
        WHERE collection = $1 AND key LIKE 'providers/%' AND split_part(key, '/', 3) = 'trips' AND split_part(key, '/', 4) = $2
          AND split_part(key, '/', 5) = '' ORDER BY key
        """

    /// The audit of trip `tripId` of `provider`, nil when the trip has none.
    package func audit(provider: String, tripId: String) async throws -> JSONValue? {
        let key = FleetResourceProjection.tripKey(provider: provider, tripId: tripId)
        guard let row = try await pool.query(Self.auditSQL, [RouteAuditProjection.auditsCollection, key]).first else { return nil }
        return try JSONValue.parse(try row.string(1))
    }

    /// The audits of trip `tripId` on `connection`, as key and document text in key order: of
    /// `provider` when given, else of every provider that has a trip of that id.
    package static func audits(ofTrip tripId: String, provider: String?, on connection: Connection) throws -> [(key: String, document: String)] {
        let result = if let provider {
            try connection.query(auditSQL, [RouteAuditProjection.auditsCollection, FleetResourceProjection.tripKey(provider: provider, tripId: tripId)])
        } else {
            try connection.query(anyProviderSQL, [RouteAuditProjection.auditsCollection, tripId])
        }
        return try result.rows.map { (try $0.string(0), try $0.string(1)) }
    }
}
