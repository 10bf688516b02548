import EventStore
import Foundation
import Journey
import Postgres
import Schema
import Simulator
import WaymarkCLI

/// `waymark bench export [--events N]`: `waymark export` beside a plain COPY of the same rows,
/// and `waymark verify`'s rate, on N events of one provider.
///
/// Loads N events (a simulated fleet with trips, topped up with location reports of a larger
/// fleet of the same provider; not timed) into the scratch database `waymark_bench_export`, then
/// measures in one run: the raw ceiling `COPY (SELECT <the columns> FROM events WHERE <provider>
/// ORDER BY txid, global_position) TO STDOUT`, bytes discarded; `EventExport` as NDJSON and as
/// CSV, written to /dev/null through the same write(2) path as stdout; and `ChainVerifier` over
/// every stream. Each case must see exactly N events.
struct BenchExport {
    static let databaseName = "waymark_bench_export"
    static let provider = "fleet"
    static let loadBatch = 5_000

    let events: Int
    let url: String
    let logger: Logger

    func run() async throws -> BenchTable {
        let pool = ConnectionPool(.init(conninfo: url, size: 1, name: "bench-export"))
        do {
            let table = try await measure(pool)
            await pool.shutdown()
            return table
        } catch {
            await pool.shutdown()
            throw error
        }
    }

    private func measure(_ pool: ConnectionPool) async throws -> BenchTable {
        let migrated = try await pool.withConnection { connection in
            (try Migrator().migrate(connection).count, try connection.query("SHOW server_version").first?.string(0) ?? "?")
        }
        logger.info("scratch database \(Self.databaseName) migrated (\(migrated.0) migrations), PostgreSQL \(migrated.1)")
        let loadSeconds = try await load()
        let stored = Int(try await pool.query("SELECT count(*) FROM events").first?.int64(0) ?? -1)
        guard stored == events else { throw BenchFailure("loaded \(stored) events, expected \(events)") }
        _ = try? await pool.query("VACUUM ANALYZE")
        _ = try? await pool.query("CHECKPOINT")
        let load = try await pool.query("SELECT pg_size_pretty(sum(pg_total_relation_size(c.oid))) FROM pg_class c JOIN pg_inherits i ON i.inhrelid = c.oid").first?.string(0) ?? "?"

        var rows: [BenchTable.Row] = []
        func done(_ row: BenchTable.Row) {
            logger.info("\(row.name): \(String(format: "%.2f", row.seconds)) s")
            rows.append(row)
        }
        var export = EventExport(format: .ndjson)
        export.provider = Self.provider
        let events = self.events
        let (ceilingRows, ceilingBytes, ceilingTime) = try await pool.withConnection { connection -> (Int, Int, Duration) in
            // The same rows and columns as the export, without the per-row JSON rendering.
            let sql = """
                COPY (SELECT global_position, txid, stream_id, stream_version, event_id, event_type, data, metadata, recorded_at, hash
                      FROM events WHERE split_part(split_part(stream_id, ':', 2), '/', 1) = 'fleet' ORDER BY events.txid, events.global_position) TO STDOUT
                """
            let started = ContinuousClock.now
            var bytes = 0
            let rows = try connection.copyOut(sql) { bytes += $0.count }
            return (rows, bytes, ContinuousClock.now - started)
        }
        guard ceilingRows == events else { throw BenchFailure("ceiling: COPY returned \(ceilingRows) rows, expected \(events)") }
        done(BenchTable.Row(name: "raw COPY (SELECT ... WHERE provider) TO STDOUT", events: events, elapsed: ceilingTime))
        var sizes: [String] = ["raw COPY \(ceilingBytes / 1_000_000) MB"]
        for format in EventExport.Format.allCases {
            export.format = format
            let exporter = export
            let (count, bytes, elapsed) = try await pool.withConnection { connection -> (Int, Int, Duration) in
                let sink = open("/dev/null", O_WRONLY)
                defer { close(sink) }
                var bytes = 0
                let started = ContinuousClock.now
                let count = try exporter.run(on: connection, write: { chunk in
                    bytes += chunk.count
                    _ = chunk.withUnsafeBytes { write(sink, $0.baseAddress, $0.count) }
                })
                return (count, bytes, ContinuousClock.now - started)
            }
            guard count == events else { throw BenchFailure("export \(format): \(count) events, expected \(events)") }
            done(BenchTable.Row(name: "waymark export --format \(format.rawValue)", events: events, elapsed: elapsed))
            sizes.append("\(format.rawValue) \(bytes / 1_000_000) MB")
        }
        let (verification, verifyTime) = try await pool.withConnection { connection -> (ChainVerification, Duration) in
            let started = ContinuousClock.now
            let report = try ChainVerifier().run(on: connection)
            return (report, ContinuousClock.now - started)
        }
        guard verification.events == events, verification.breaks.isEmpty else {
            throw BenchFailure("verify: \(verification.events) events, \(verification.breaks.count) breaks")
        }
        done(BenchTable.Row(name: "waymark verify (\(BenchTable.grouped(verification.streams)) streams)", events: events, elapsed: verifyTime))

        let draft = BenchTable(rows: rows, notes: [])
        let exports = rows.filter { $0.name.hasPrefix("waymark export") }
        let ratios = exports.map { "\($0.name.split(separator: " ").last!): \(String(format: "%.3f", draft.ratio($0)))" }.joined(separator: ", ")
        let met = exports.allSatisfy { draft.ratio($0) >= 0.5 }
        var loadAverage = "?"
        if let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) { loadAverage = text.split(separator: " ").prefix(3).joined(separator: " ") }
        let notes = [
            "target export >= 0.5 of the raw COPY: " + (met ? "met" : "NOT met") + " (\(ratios))",
            "PostgreSQL \(migrated.1); \(BenchTable.grouped(events)) events of one provider (a simulated fleet with trips, the rest location reports), "
                + "loaded in \(String(format: "%.1f", loadSeconds)) s (not timed); event partitions \(load); output " + sizes.joined(separator: ", "),
            "export: EventExport (COPY of server-rendered lines, 1 MiB chunks written to /dev/null); verify: ChainVerifier (5,000-row keyset pages, "
                + "JSON parsed and hashed in Swift, one head lookup per stream)",
            "load average after the run: \(loadAverage)",
        ]
        return BenchTable(rows: rows, notes: notes)
    }

    /// Appends the workload in large ordered batches; returns the seconds it took.
    private func load() async throws -> Double {
        let store = EventStore(EventStore.Configuration(conninfo: url, readPoolSize: 1, committers: 2, maxGroupEvents: 20_000, listen: false))
        let started = ContinuousClock.now
        do {
            let start = Timestamp(secondsSinceEpoch: 1_772_352_000)
            let trips = min(500, events / 2_000)
            let fleet = DomainWorkload(seed: 0xE4B0, provider: Self.provider, vehicles: max(2, trips / 4), trips: trips, start: start)
            var batch: [StreamAppend] = []
            var batchEvents = 0
            var loaded = 0
            func flush() async throws {
                guard !batch.isEmpty else { return }
                for (append, result) in zip(batch, await store.appendBatch(batch)) {
                    if case .failure(let error) = result { throw BenchFailure("loading: append to \(append.streamId) failed: \(error)") }
                }
                if (loaded - batchEvents) / 100_000 != loaded / 100_000 { logger.info("loaded \(BenchTable.grouped(loaded)) events") }
                batch = []
                batchEvents = 0
            }
            func add(_ command: WorkloadCommand, renaming: Bool) async throws {
                for append in command.appends {
                    // The flood names its vehicles like the fleet's: give them streams of their own.
                    let stream = renaming ? append.streamId.replacingOccurrences(of: "/vehicle-", with: "/flood-") : append.streamId
                    batch.append(StreamAppend(streamId: stream, expectedVersion: append.expectedVersion == 0 ? .noStream : .exact(append.expectedVersion),
                                              events: append.events.map { EventData(id: $0.id, type: $0.type, data: $0.data) }))
                    batchEvents += append.events.count
                    loaded += append.events.count
                }
                if batchEvents >= Self.loadBatch { try await flush() }
            }
            for command in fleet {
                let n = command.appends.reduce(0) { $0 + $1.events.count }
                guard loaded + n <= events else { break }
                try await add(command, renaming: false)
            }
            for command in DomainWorkloadFlood(seed: 0xF100E, provider: Self.provider, vehicles: 2_000, events: events - loaded, start: start) {
                try await add(command, renaming: true)
            }
            try await flush()
            await store.shutdown()
        } catch {
            await store.shutdown()
            throw error
        }
        return (ContinuousClock.now - started).seconds
    }
}
