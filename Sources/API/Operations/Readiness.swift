import Postgres
import Projections

/// `/readyz`: the database answers and every projection has applied all events older than 5 s.
///
/// Asked of the database, not of this node's runners, so a standby node reports the truth about
/// the projections another node maintains.
struct Readiness: Sendable {
    let pool: ConnectionPool
    let projections: [String]
    var maximumLagSeconds = 5

    struct Report: Sendable {
        var ready: Bool
        var behind: [String]
        var problem: String?
    }

    func check() async -> Report {
        do {
            let result = try await pool.query("""
                SELECT p.name, EXISTS (
                    SELECT 1 FROM events e
                    WHERE (e.txid, e.global_position) > (coalesce(c.transaction_id, '0'::xid8), coalesce(c.global_position, 0))
                      AND e.txid < pg_snapshot_xmin(pg_current_snapshot())
                      AND e.recorded_at < now() - make_interval(secs => $2::int)
                )
                FROM unnest($1::text[]) AS p(name) LEFT JOIN projection_checkpoints c ON c.name = p.name
                ORDER BY p.name
                """, [PostgresText.arrayLiteral(projections), String(maximumLagSeconds)])
            let behind = try result.rows.compactMap { row in try row.bool(1) ? try row.string(0) : nil }
            return Report(ready: behind.isEmpty, behind: behind, problem: behind.isEmpty ? nil : "projections behind by more than \(maximumLagSeconds) s: \(behind.joined(separator: ", "))")
        } catch {
            return Report(ready: false, behind: [], problem: "database unreachable")
        }
    }
}
