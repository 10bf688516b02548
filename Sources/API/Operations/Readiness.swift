import Postgres
import Projections

/// `/readyz`: whether this node can serve, which is whether its database answers.
///
/// Projection lag is shared by every node (the read models live in the database), so failing
/// readiness on it would take a whole deployment out of its load balancer at once. Lag is a
/// warning here and a metric; `/readyz?projections=true` is the strict check (503 when any
/// projection has not applied an event older than 5 s) for deploy gates and alerts. Asked of the
/// database, not of this node's runners, so a standby node reports the truth about the
/// projections another node maintains.
///
/// The feed is read only below the oldest running transaction (DESIGN.md §3), so one transaction
/// left open anywhere on the cluster holds every projection back, and the lag check above cannot
/// see it (the events it holds back are above the horizon). The horizon's age is reported apart:
/// as a warning, not as "not ready" — every node shares the horizon, and taking them all out of
/// service would turn a stalled read model into an outage.
struct Readiness: Sendable {
    let pool: ConnectionPool
    let projections: [String]
    var maximumLagSeconds = 5
    /// A horizon older than this is a warning in `/readyz`.
    var horizonWarningSeconds = 30.0

    struct Report: Sendable {
        var ready: Bool
        var behind: [String]
        var problem: String?
        var warnings: [String] = []
    }

    /// The oldest transaction holding the feed's horizon back.
    struct Horizon: Sendable {
        /// Seconds since the oldest transaction with a transaction id began; 0 when there is none.
        var ageSeconds: Double
        /// That transaction's backend, state and application, for the warning.
        var holder: String?
    }

    /// - Parameter projections: lagging projections make the report not ready (else a warning).
    func check(projections strict: Bool = false) async -> Report {
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
            let lag = "projections behind by more than \(maximumLagSeconds) s: \(behind.joined(separator: ", "))"
            var report = Report(ready: true, behind: behind)
            if !behind.isEmpty {
                if strict {
                    report.ready = false
                    report.problem = lag
                } else {
                    report.warnings.append(lag)
                }
            }
            let horizon = try await self.horizon()
            if horizon.ageSeconds > horizonWarningSeconds {
                report.warnings.append("the event feed's horizon is held back \(Int(horizon.ageSeconds)) s by an open transaction (\(horizon.holder ?? "not visible to this role")): projections wait until it ends")
            }
            return report
        } catch {
            return Report(ready: false, behind: [], problem: "database unreachable")
        }
    }

    /// The age of the cluster's oldest transaction that holds a transaction id (it bounds
    /// `pg_snapshot_xmin`), including prepared ones. Sessions of other roles show only when this
    /// role may read all statistics (superuser or `pg_read_all_stats`).
    func horizon() async throws -> Horizon {
        let result = try await pool.query("""
            SELECT extract(epoch FROM now() - started)::float8, holder FROM (
                SELECT xact_start AS started,
                       format('pid %s, %s, database %s, application %s', pid, state, datname, nullif(application_name, '')) AS holder
                FROM pg_stat_activity WHERE backend_xid IS NOT NULL AND pid <> pg_backend_pid() AND xact_start IS NOT NULL
                UNION ALL
                SELECT prepared, format('prepared transaction %s', gid) FROM pg_prepared_xacts
            ) t ORDER BY started LIMIT 1
            """)
        guard let row = result.rows.first else { return Horizon(ageSeconds: 0, holder: nil) }
        return Horizon(ageSeconds: max(0, Double(try row.string(0)) ?? 0), holder: row[1])
    }
}
