import EventStore
import Foundation
import Journey
import Postgres
import Projections
import Synchronization

/// Deletes trips and vehicles that took no event for a while, as Fleet Engine deletes both 7 days
/// after their last activity.
///
/// Every `Settings.interval`, the node that holds the sweep's advisory lock looks at the trips and
/// then the vehicles whose streams took no event for their retention period (`Settings.tripSeconds`,
/// `Settings.vehicleSeconds`):
/// - a COMPLETE or CANCELED trip, or one in progress that no vehicle serves, gets `TripDeleted`;
/// - a trip in progress on a vehicle is abandoned only if the vehicle is quiet for as long too (a
///   trip whose vehicle still reports is being driven, whatever its own stream says): it is then
///   canceled (which takes it off the vehicle, as any cancel does) and deleted; otherwise the
///   vehicle's own sweep looks at it again once the vehicle is quiet;
/// - a quiet vehicle first has its quiet current trips canceled and deleted, then gets
///   `VehicleDeleted`; a vehicle with a current trip that is not quiet stays.
///
/// Each deletion is an event like any other: the history keeps it and says who did it (`subject`
/// "waymark-retention"), webhooks hear of it, and the projections drop the records, so a
/// long-running fleet's memory does not grow with every trip it ever served.
///
/// A sweep looks only at the streams whose last event falls between the previous sweep's cutoff
/// (`retention_sweeps`, one row per kind) and its own, so a stream is looked at once per quiet
/// spell and one deleted long ago is not read again. A stream that takes an event after the sweep
/// selected it stays: the deletion expects the version the sweep saw. A sweep that fails or is
/// stopped keeps the cutoff of its last finished page, and the next one looks at the rest again.
package final class RetentionSweep: Sendable {
    package struct Settings: Sendable, Hashable {
        /// Seconds without an event after which a trip is deleted (`WAYMARK_TRIP_RETENTION_SECONDS`,
        /// 7 days unless set, as Fleet Engine); 0 keeps trips until `DeleteTrip`.
        package var tripSeconds: Int
        /// Seconds without an event after which a vehicle is deleted (`WAYMARK_VEHICLE_RETENTION_SECONDS`,
        /// 7 days unless set, as Fleet Engine); 0 keeps vehicles until `DeleteVehicle`.
        package var vehicleSeconds: Int
        /// Time between sweeps (`WAYMARK_RETENTION_SWEEP_SECONDS`); the first runs one `firstDelay` after start.
        package var interval: Duration
        package var firstDelay: Duration
        /// Streams read per query (`WAYMARK_RETENTION_PAGE`); the cutoff is recorded after each page.
        package var page: Int

        package init(tripSeconds: Int = 7 * 86_400, vehicleSeconds: Int = 7 * 86_400, interval: Duration = .seconds(3600),
                     firstDelay: Duration = .seconds(60), page: Int = 500) {
            self.tripSeconds = tripSeconds
            self.vehicleSeconds = vehicleSeconds
            self.page = page
            self.interval = interval
            self.firstDelay = firstDelay
        }

        /// Whether any sweep runs.
        package var enabled: Bool { tripSeconds > 0 || vehicleSeconds > 0 }
    }

    /// What one sweep did.
    package struct Sweep: Sendable, Hashable {
        /// Streams whose last event fell in the sweep's windows.
        package var examined = 0
        /// Trips deleted, of them trips in progress canceled first.
        package var tripsDeleted = 0
        package var tripsCanceled = 0
        package var vehiclesDeleted = 0
    }

    /// Progress, for `/metrics`.
    struct Status: Sendable, Hashable {
        var sweeps = 0
        /// What the completed sweeps did, summed.
        var totals = Sweep()
        var lastError: String?
    }

    static let lockNamespace: Int32 = 0x5254  // "RT"

    package let settings: Settings
    private let trips: TripService
    private let vehicles: VehicleService
    private let pool: ConnectionPool
    private let state = Mutex(Status())
    private let loop = BackgroundTask()
    private let log: (@Sendable (String) -> Void)?

    init(store: EventStore, trips: TripService, vehicles: VehicleService, settings: Settings, log: (@Sendable (String) -> Void)?) {
        self.settings = settings
        self.trips = trips
        self.vehicles = vehicles
        self.log = log
        pool = ConnectionPool(.init(conninfo: store.configuration.conninfo, size: 1, setupStatements: store.configuration.setupStatements, name: "retention"))
    }

    /// Starts sweeping in the background (nothing when both periods are 0).
    package func start() {
        guard settings.enabled else { return }
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
                if let sweep = try await sweep(now: Date()), sweep.tripsDeleted + sweep.vehiclesDeleted > 0 {
                    log?("retention: deleted \(sweep.tripsDeleted) trips (\(sweep.tripsCanceled) canceled first) and \(sweep.vehiclesDeleted) vehicles of \(sweep.examined) quiet streams")
                }
            } catch {
                state.withLock { $0.lastError = "\(error)" }
                log?("retention sweep failed (the next one looks at the same streams again): \(error)")
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
            var sweep = Sweep()
            // Each kind's cutoff; nil when that kind is kept.
            func cutoff(_ seconds: Int) -> Timestamp? { seconds > 0 ? Timestamp(now.addingTimeInterval(-Double(seconds))) : nil }
            let tripCutoff = cutoff(settings.tripSeconds)
            if let tripCutoff { try await sweepTrips(before: tripCutoff, into: &sweep) }
            if let vehicleCutoff = cutoff(settings.vehicleSeconds) { try await sweepVehicles(before: vehicleCutoff, tripsBefore: tripCutoff, into: &sweep) }
            try await unlock()
            state.withLock {
                $0.sweeps += 1
                $0.totals.examined += sweep.examined
                $0.totals.tripsDeleted += sweep.tripsDeleted
                $0.totals.tripsCanceled += sweep.tripsCanceled
                $0.totals.vehiclesDeleted += sweep.vehiclesDeleted
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

    /// Who the sweep's writes are by.
    private static func context(provider: String, cutoff: Timestamp) -> CommandContext {
        CommandContext(caller: Principal(role: .server, provider: provider, subject: "waymark-retention"), requestId: "retention-\(cutoff)")
    }

    private func sweepTrips(before cutoff: Timestamp, into sweep: inout Sweep) async throws {
        var counts = sweep
        try await quietStreams(category: "trip", name: "trips", cutoff: cutoff) { provider, tripId, version in
            counts.examined += 1
            let outcome = try await trips.expire(provider: provider, tripId: tripId, version: version, before: cutoff,
                                                 context: Self.context(provider: provider, cutoff: cutoff))
            if outcome.deleted { counts.tripsDeleted += 1 }
            if outcome.canceled { counts.tripsCanceled += 1 }
        }
        sweep = counts
    }

    /// `tripCutoff`: when a current trip of a quiet vehicle is quiet too (nil: trips are kept).
    private func sweepVehicles(before cutoff: Timestamp, tripsBefore tripCutoff: Timestamp?, into sweep: inout Sweep) async throws {
        var counts = sweep
        try await quietStreams(category: "vehicle", name: "vehicles", cutoff: cutoff) { provider, vehicleId, version in
            counts.examined += 1
            let context = Self.context(provider: provider, cutoff: cutoff)
            let outcome = try await vehicles.expire(provider: provider, vehicleId: vehicleId, version: version, before: cutoff, context: context) { (tripId: String) async throws(APIError) -> Bool in
                // A current trip of the quiet vehicle: canceled and deleted if it is quiet too (and trips are swept at all).
                guard let tripCutoff else { return false }
                let retired = try await trips.retire(provider: provider, tripId: tripId, before: tripCutoff, context: context)
                if retired { counts.tripsDeleted += 1; counts.tripsCanceled += 1 }
                return retired
            }
            if outcome { counts.vehiclesDeleted += 1 }
        }
        sweep = counts
    }

    /// Calls `body` for each stream of `category` whose last event falls between the previous
    /// sweep's cutoff for `name` and `cutoff`, page by page, recording the cutoff as it goes.
    private func quietStreams(category: String, name: String, cutoff: Timestamp,
                              _ body: (_ provider: String, _ id: String, _ version: Int64) async throws -> Void) async throws {
        let cutoffText = cutoff.description
        // Where the previous sweep stopped; -infinity before the first.
        let from = try await pool.withConnection { connection in
            try connection.query("SELECT swept_before::text FROM retention_sweeps WHERE name = $1", [name]).first?.string(0) ?? "-infinity"
        }
        // Pages in (updated_at, stream_id) order, so a page ends where the next starts.
        var after: (at: String, stream: String)? = nil
        let limit = settings.page
        while true {
            let position = after
            let page = try await pool.withConnection { connection -> [(stream: String, version: Int64, at: String)] in
                try connection.query("""
                    SELECT stream_id, version, updated_at::text FROM streams
                    WHERE category = $5 AND updated_at >= $1::timestamptz AND updated_at < $2::timestamptz
                      AND ($3::timestamptz IS NULL OR (updated_at, stream_id) > ($3::timestamptz, $4::text))
                    ORDER BY updated_at, stream_id LIMIT \(limit)
                    """, [from, cutoffText, position?.at, position?.stream, category]).rows.map { (try $0.string(0), try $0.int64(1), try $0.string(2)) }
            }
            for row in page {
                try Task.checkCancellation()  // stopping: the next sweep starts from the last page recorded
                guard let (kind, provider, id) = EnvelopeDecoder.parse(row.stream), kind == category else { continue }
                try await body(provider, id, row.version)
            }
            guard page.count == limit, let last = page.last else { break }
            // Every stream whose last event came before this page's last one has been looked at:
            // a long first sweep that is stopped goes on from here.
            try await record(name, sweptBefore: last.at)
            after = (last.at, last.stream)
        }
        try await record(name, sweptBefore: cutoffText)
    }

    /// Moves the recorded cutoff of `name` forward to `sweptBefore` (never back).
    private func record(_ name: String, sweptBefore: String) async throws {
        _ = try await pool.withConnection { connection in
            try connection.query("""
                INSERT INTO retention_sweeps (name, swept_before) VALUES ($1, $2::timestamptz)
                ON CONFLICT (name) DO UPDATE SET swept_before = greatest(retention_sweeps.swept_before, excluded.swept_before), updated_at = now()
                """, [name, sweptBefore])
        }
    }

    package func metricLines() -> [String] {
        let status = state.withLock { $0 }
        return ["# HELP waymark_retention_sweeps_total Retention sweeps this node completed.",
                "# TYPE waymark_retention_sweeps_total counter", "waymark_retention_sweeps_total \(status.sweeps)",
                "# HELP waymark_retention_trips_deleted_total Trips this node deleted for retention.",
                "# TYPE waymark_retention_trips_deleted_total counter", "waymark_retention_trips_deleted_total \(status.totals.tripsDeleted)",
                "# HELP waymark_retention_trips_canceled_total Trips in progress this node canceled (then deleted) for retention.",
                "# TYPE waymark_retention_trips_canceled_total counter", "waymark_retention_trips_canceled_total \(status.totals.tripsCanceled)",
                "# HELP waymark_retention_vehicles_deleted_total Vehicles this node deleted for retention.",
                "# TYPE waymark_retention_vehicles_deleted_total counter", "waymark_retention_vehicles_deleted_total \(status.totals.vehiclesDeleted)"]
    }
}
