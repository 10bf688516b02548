import EventStore
import Foundation
import Journey
import Postgres
import Projections
import Synchronization

/// Deletes finished trips that took no event for a while, as Fleet Engine deletes trips 7 days
/// after their last activity.
///
/// Every `Settings.interval`, the node that holds the sweep's advisory lock appends `TripDeleted`
/// to each COMPLETE or CANCELED trip whose stream took no event for `Settings.seconds`. The
/// deletion is an event like any other: the trip's history keeps it and says who deleted it
/// (`subject` "waymark-retention"), webhooks hear of it, and the projections drop the trip's
/// records, so a long-running fleet's finished trips stop growing their memory. A trip still in
/// progress is never deleted by a sweep, however quiet: that needs a `DeleteTrip` (after a cancel).
///
/// A sweep looks only at the trips whose last event falls between the previous sweep's cutoff
/// (`retention_sweeps`) and its own, so a trip is looked at once per quiet spell and a stream
/// deleted long ago is not read again. A trip that takes an event after the sweep selected it
/// stays: the deletion expects the version the sweep saw. A sweep that fails or is stopped keeps
/// the cutoff of its last finished page, and the next one looks at the rest again.
package final class TripRetention: Sendable {
    package struct Settings: Sendable, Hashable {
        /// Seconds without an event after which a finished trip is deleted (`WAYMARK_TRIP_RETENTION_SECONDS`,
        /// 7 days unless set, as Fleet Engine deletes trips 7 days after their last activity); 0 keeps
        /// trips until `DeleteTrip`.
        package var seconds: Int
        /// Time between sweeps (`WAYMARK_RETENTION_SWEEP_SECONDS`); the first runs one `firstDelay` after start.
        package var interval: Duration
        package var firstDelay: Duration
        /// Trips read per query (`WAYMARK_RETENTION_PAGE`); the cutoff is recorded after each page.
        package var page: Int

        package init(seconds: Int = 7 * 86_400, interval: Duration = .seconds(3600), firstDelay: Duration = .seconds(60), page: Int = 500) {
            self.seconds = seconds
            self.page = page
            self.interval = interval
            self.firstDelay = firstDelay
        }
    }

    /// What one sweep did.
    package struct Sweep: Sendable, Hashable {
        /// Trips whose last event fell in the sweep's window.
        package var examined = 0
        package var deleted = 0
    }

    /// Progress, for `/metrics`.
    struct Status: Sendable, Hashable {
        var sweeps = 0
        var deleted = 0
        var lastError: String?
    }

    static let sweepName = "trips"
    static let lockNamespace: Int32 = 0x5254  // "RT"

    package let settings: Settings
    private let trips: TripService
    private let pool: ConnectionPool
    private let state = Mutex(Status())
    private let loop = BackgroundTask()
    private let log: (@Sendable (String) -> Void)?

    init(store: EventStore, trips: TripService, settings: Settings, log: (@Sendable (String) -> Void)?) {
        self.settings = settings
        self.trips = trips
        self.log = log
        pool = ConnectionPool(.init(conninfo: store.configuration.conninfo, size: 1, setupStatements: store.configuration.setupStatements, name: "retention"))
    }

    /// Starts sweeping in the background (nothing when `seconds` is 0).
    package func start() {
        guard settings.seconds > 0 else { return }
        loop.start { await self.run() }
    }

    package func stop() async {
        await loop.stop()
        await pool.shutdown()
    }

    private func run() async {
        var wait = settings.firstDelay
        while !Task.isCancelled {
            try? await Task.sleep(for: wait)
            wait = settings.interval
            guard !Task.isCancelled else { return }
            do {
                if let sweep = try await sweep(now: Date()), sweep.deleted > 0 {
                    log?("retention: deleted \(sweep.deleted) of \(sweep.examined) finished trips quiet for \(settings.seconds) s")
                }
            } catch {
                state.withLock { $0.lastError = "\(error)" }
                log?("retention sweep failed (the next one looks at the same trips again): \(error)")
            }
        }
    }

    /// One sweep as of `now`: nil when another node holds the sweep's lock.
    package func sweep(now: Date) async throws -> Sweep? {
        let owned = try await pool.withConnection { connection in
            try connection.query("SELECT pg_try_advisory_lock($1, hashtext('retention'))", [String(Self.lockNamespace)]).first?.bool(0) ?? false
        }
        guard owned else { return nil }
        do {
            let sweep = try await sweepOwned(now: now)
            try await unlock()
            state.withLock {
                $0.sweeps += 1
                $0.deleted += sweep.deleted
                $0.lastError = nil
            }
            return sweep
        } catch {
            try? await unlock()
            throw error
        }
    }

    private func unlock() async throws {
        _ = try await pool.withConnection { connection in
            try connection.query("SELECT pg_advisory_unlock($1, hashtext('retention'))", [String(Self.lockNamespace)])
        }
    }

    private func sweepOwned(now: Date) async throws -> Sweep {
        let cutoff = Timestamp(now.addingTimeInterval(-Double(settings.seconds)))
        let cutoffText = cutoff.description
        // Where the previous sweep stopped; -infinity before the first.
        let from = try await pool.withConnection { connection in
            try connection.query("SELECT swept_before::text FROM retention_sweeps WHERE name = $1", [Self.sweepName]).first?.string(0) ?? "-infinity"
        }
        var sweep = Sweep()
        // Pages in (updated_at, stream_id) order, so a page ends where the next starts.
        var after: (at: String, stream: String)? = nil
        let limit = settings.page
        while true {
            let position = after
            let page = try await pool.withConnection { connection -> [(stream: String, version: Int64, at: String)] in
                try connection.query("""
                    SELECT stream_id, version, updated_at::text FROM streams
                    WHERE category = 'trip' AND updated_at >= $1::timestamptz AND updated_at < $2::timestamptz
                      AND ($3::timestamptz IS NULL OR (updated_at, stream_id) > ($3::timestamptz, $4::text))
                    ORDER BY updated_at, stream_id LIMIT \(limit)
                    """, [from, cutoffText, position?.at, position?.stream]).rows.map { (try $0.string(0), try $0.int64(1), try $0.string(2)) }
            }
            for row in page {
                try Task.checkCancellation()  // stopping: the next sweep starts from the last page recorded
                sweep.examined += 1
                guard let (category, provider, tripId) = EnvelopeDecoder.parse(row.stream), category == "trip" else { continue }
                let context = CommandContext(caller: Principal(role: .server, provider: provider, subject: "waymark-retention"),
                                             requestId: "retention-\(cutoffText)")
                if try await trips.expire(provider: provider, tripId: tripId, version: row.version, before: cutoff, context: context) {
                    sweep.deleted += 1
                }
            }
            guard page.count == limit, let last = page.last else { break }
            // Every trip whose last event came before this page's last one has been looked at: a
            // long first sweep that is stopped goes on from here.
            try await record(sweptBefore: last.at)
            after = (last.at, last.stream)
        }
        try await record(sweptBefore: cutoffText)
        return sweep
    }

    /// Moves the recorded cutoff forward to `sweptBefore` (never back).
    private func record(sweptBefore: String) async throws {
        _ = try await pool.withConnection { connection in
            try connection.query("""
                INSERT INTO retention_sweeps (name, swept_before) VALUES ($1, $2::timestamptz)
                ON CONFLICT (name) DO UPDATE SET swept_before = greatest(retention_sweeps.swept_before, excluded.swept_before), updated_at = now()
                """, [Self.sweepName, sweptBefore])
        }
    }

    package func metricLines() -> [String] {
        let status = state.withLock { $0 }
        return ["# HELP waymark_retention_sweeps_total Retention sweeps this node completed.",
                "# TYPE waymark_retention_sweeps_total counter", "waymark_retention_sweeps_total \(status.sweeps)",
                "# HELP waymark_retention_trips_deleted_total Finished trips this node deleted for retention.",
                "# TYPE waymark_retention_trips_deleted_total counter", "waymark_retention_trips_deleted_total \(status.deleted)"]
    }
}
