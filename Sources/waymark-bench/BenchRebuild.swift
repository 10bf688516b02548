import EventStore
import Foundation
import Journey
import Postgres
import Projections
import Schema
import Simulator
import WaymarkCLI

/// `waymark bench rebuild [--events N]`: how fast each catalog projection rebuilds from the
/// feed, against the raw ceiling of reading the same feed with COPY.
///
/// Loads N events (a simulated fleet with trips, topped up with location reports of a larger
/// fleet; not timed) into the scratch database `waymark_bench_rebuild`, then measures side by
/// side: `COPY (SELECT * FROM events ORDER BY txid, global_position) TO STDOUT`, discarded, and a
/// full `Rebuilder.rebuild` of every catalog projection. Each rebuild must report exactly N events.
struct BenchRebuild {
    static let databaseName = "waymark_bench_rebuild"
    /// Events per `appendBatch` while loading.
    static let loadBatch = 5_000

    let events: Int
    let url: String
    let logger: Logger

    /// Loads the workload, runs the cases and returns the table.
    func run() async throws -> BenchTable {
        try await BenchStore.with(url: url, poolName: "bench-rebuild", readPoolSize: 2, maxGroupEvents: 20_000) { store, pool in
            try await measure(store: store, pool: pool)
        }
    }

    private func measure(store: EventStore, pool: ConnectionPool) async throws -> BenchTable {
        let migrated = try await pool.withConnection { connection in
            (try Migrator().migrate(connection).count, try connection.query("SHOW server_version").first?.string(0) ?? "?")
        }
        logger.info("scratch database \(Self.databaseName) migrated (\(migrated.0) migrations), PostgreSQL \(migrated.1)")
        let (tripEvents, loadSeconds) = try await load(store)
        let stored = Int(try await pool.query("SELECT count(*) FROM events").first?.int64(0) ?? -1)
        guard stored == events else { throw BenchFailure("loaded \(stored) events, expected \(events)") }
        _ = try? await pool.query("VACUUM ANALYZE events")
        _ = try? await pool.query("CHECKPOINT")

        var rows: [BenchTable.Row] = [try await ceiling(pool)]
        logger.info("\(rows[0].name): \(String(format: "%.2f", rows[0].seconds)) s")
        for entry in ProjectionCatalog.all {
            let clock = ContinuousClock()
            let started = clock.now
            let report = try await Rebuilder.rebuild(store: store, conninfo: url, make: entry.make)
            let elapsed = clock.now - started
            guard report.events == events else {
                throw BenchFailure("rebuild \(entry.name): replayed \(report.events) events, expected \(events)")
            }
            let row = BenchTable.Row(name: "rebuild \(entry.name) (\(BenchTable.grouped(report.documents)) documents)", events: events, elapsed: elapsed)
            logger.info("\(row.name): \(String(format: "%.2f", row.seconds)) s")
            rows.append(row)
        }
        let draft = BenchTable(rows: rows, notes: [])
        let rebuilds = rows.dropFirst()
        let met = rebuilds.allSatisfy { draft.ratio($0) >= 0.25 }
        let ratios: [String] = rebuilds.map { row in
            let name = String(row.name.split(separator: " ")[1])
            return name + ": " + String(format: "%.3f", draft.ratio(row))
        }
        let target = "target every rebuild >= 0.25 of the COPY ceiling: " + (met ? "met" : "NOT met") + " (" + ratios.joined(separator: ", ") + ")"
        let load = "PostgreSQL \(migrated.1); \(BenchTable.grouped(events)) events: \(BenchTable.grouped(tripEvents)) from a simulated fleet with trips, "
            + "the rest location and remaining-route reports; loaded in \(String(format: "%.1f", loadSeconds)) s (not timed)"
        let method = "ceiling: COPY (SELECT * FROM events ORDER BY txid, global_position) TO STDOUT, bytes discarded; "
            + "rebuild: Rebuilder.rebuild (read feed in 5,000-event pages, fold, COPY into a fresh table, swap)"
        let notes = [target, load, method]
        return BenchTable(rows: rows, notes: notes)
    }

    /// Appends the workload in large ordered batches; returns the trip workload's event count and the seconds it took.
    private func load(_ store: EventStore) async throws -> (Int, Double) {
        let clock = ContinuousClock()
        let started = clock.now
        let start = Timestamp(secondsSinceEpoch: 1_772_352_000)
        let trips = min(500, events / 2_000)
        let fleet = DomainWorkload(seed: 0xBE4C, provider: "fleet", vehicles: max(2, trips / 4), trips: trips, start: start)
        var batch: [StreamAppend] = []
        var batchEvents = 0
        var loaded = 0
        func flush() async throws {
            guard !batch.isEmpty else { return }
            let results = await store.appendBatch(batch)
            for (append, result) in zip(batch, results) {
                if case .failure(let error) = result { throw BenchFailure("loading: append to \(append.streamId) failed: \(error)") }
            }
            loaded += batchEvents
            batch = []
            batchEvents = 0
            if loaded % 100_000 < Self.loadBatch { logger.info("loaded \(BenchTable.grouped(loaded)) events") }
        }
        func add(_ command: WorkloadCommand) async throws {
            for append in command.appends {
                batch.append(StreamAppend(streamId: append.streamId,
                                          expectedVersion: append.expectedVersion == 0 ? .noStream : .exact(append.expectedVersion),
                                          events: append.events.map { EventData(id: $0.id, type: $0.type, data: $0.data) }))
                batchEvents += append.events.count
            }
            if batchEvents >= Self.loadBatch { try await flush() }
        }
        var tripEvents = 0
        for command in fleet {
            let n = command.appends.reduce(0) { $0 + $1.events.count }
            guard tripEvents + n <= events else { break }
            tripEvents += n
            try await add(command)
        }
        for command in DomainWorkloadFlood(seed: 0xF100D, provider: "flood", vehicles: 2_000, events: events - tripEvents, start: start) {
            try await add(command)
        }
        try await flush()
        let elapsed = clock.now - started
        return (tripEvents, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    /// The raw ceiling: the whole feed in feed order through COPY TO STDOUT, bytes discarded.
    private func ceiling(_ pool: ConnectionPool) async throws -> BenchTable.Row {
        let (rows, elapsed) = try await pool.withConnection { connection -> (Int, Duration) in
            let clock = ContinuousClock()
            let started = clock.now
            var bytes = 0
            let rows = try connection.copyOut("COPY (SELECT * FROM events ORDER BY txid, global_position) TO STDOUT") { bytes += $0.count }
            _ = bytes
            return (rows, clock.now - started)
        }
        guard rows == events else { throw BenchFailure("ceiling: COPY returned \(rows) rows, expected \(events)") }
        return BenchTable.Row(name: "raw COPY TO STDOUT of the feed", events: events, elapsed: elapsed)
    }
}
