import EventStore
import Foundation
import JSON
import Postgres
import Schema
import WaymarkCLI

/// `waymark bench peer`: our event store beside the Python `eventsourcing` library (its PostgreSQL
/// recorder), on the same cluster, the same scratch database and the same vehicle-location payload.
///
/// The cases alternate, ours then the peer's, so both meet the same machine: one writer appending
/// one event at a time, `--writers` such writers, `--events` events in 500-event batches
/// (`appendBatch` / a `save()` of 500 aggregates with one new event each), and reading the whole
/// global log (`readAll` in pages of 5,000 / the notification log in pages of 5,000). The peer runs
/// as `python scripts/peer_bench.py CASE` in the venv of `scripts/peer-venv.sh`. Every case checks
/// its outcome (rows in the table grew by exactly what was appended; a read returned every row).
struct BenchPeer {
    static let databaseName = "waymark_bench_peer"
    /// The peer's table (the library names it after the application class).
    static let peerTable = "peerfleet_events"
    static let spec = CommandSpec(
        name: "bench peer", synopsis: "[--events N] [--seconds S] [--writers W] [--python PATH] [--script PATH] [--format text|markdown] [--keep]",
        summary: """
            Our appends and reads beside the Python eventsourcing library's PostgreSQL recorder, on the same
            cluster, scratch database and payload: 1 writer, W writers, 500-event batches, the whole log
            read. The peer runs in the venv scripts/peer-venv.sh makes.
            """,
        flags: [
            .value("events", "N", "events of the batch and read cases (200000)"),
            .value("seconds", "S", "how long each writer case runs (5)"),
            .value("writers", "W", "concurrent writers, at most 64 (8)"),
            .value("python", "PATH", "the venv's python (WAYMARK_PEER_PYTHON, .build/peer-venv/bin/python)"),
            .value("script", "PATH", "scripts/peer_bench.py (WAYMARK_PEER_SCRIPT)"),
        ] + BenchCommand.common)
    static let readPage = 5_000

    struct Options {
        var events = 200_000
        var seconds = 5
        var writers = 8
        var python = ".build/peer-venv/bin/python"
        var script = "scripts/peer_bench.py"
        var format = BenchTable.Format.text
        var keep = false

        /// Checks every value before anything touches a database (`spec` has checked the names): bad
        /// numbers, a missing interpreter or script are usage errors.
        init(_ flags: Flags, environment: [String: String], workingDirectory: String = FileManager.default.currentDirectoryPath) throws {
            events = try flags.int("events", default: events)
            seconds = try flags.int("seconds", default: seconds)
            writers = try flags.int("writers", default: writers)
            guard writers <= 64 else { throw UsageError("--writers must be at most 64, got \(writers)") }
            let formatText = flags.value("format") ?? "text"
            guard let parsed = BenchTable.Format(rawValue: formatText) else {
                throw UsageError("--format must be text or markdown, got \(formatText.debugDescription)")
            }
            format = parsed
            keep = flags.switches.contains("keep")
            func absolute(_ path: String) -> String { path.hasPrefix("/") ? path : workingDirectory + "/" + path }
            python = absolute(flags.value("python") ?? environment["WAYMARK_PEER_PYTHON"] ?? python)
            script = absolute(flags.value("script") ?? environment["WAYMARK_PEER_SCRIPT"] ?? script)
            guard FileManager.default.isExecutableFile(atPath: python) else {
                throw UsageError("--python \(python.debugDescription) is not an executable; create the peer's venv with scripts/peer-venv.sh (it prints the path)")
            }
            guard FileManager.default.fileExists(atPath: script) else {
                throw UsageError("--script \(script.debugDescription) does not exist; run from the checkout or pass the path of scripts/peer_bench.py")
            }
        }
    }

    /// One case of the peer, as `peer_bench.py` reported it.
    struct PeerResult {
        let events: Int
        let seconds: Double
        let rowsBefore: Int
        let rowsAfter: Int
        let cpuMicrosPerEvent: Double
        let library: String
        var rate: Double { seconds > 0 ? Double(events) / seconds : 0 }
    }

    let options: Options
    let url: String
    let logger: Logger

    static func run(_ flags: Flags, environment: [String: String]) async throws {
        let options = try Options(flags, environment: environment)
        let settings = try Settings.load(environment, flags: flags)
        let logger = Logger(label: "waymark.bench", minimum: settings.logLevel)
        let database = try Database.open(settings, logger: logger)
        defer { database.close(logger: logger) }
        let admin = ConnectionPool(.init(conninfo: database.url, size: 1, name: "bench-admin"))
        let name = Connection.quoteIdentifier(databaseName)
        do {
            try await admin.query("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
            try await admin.query("CREATE DATABASE \(name)")
            let url = try BenchCommand.benchURL(database.url, database: databaseName)
            let outcome: Result<String, any Error>
            do {
                outcome = .success(try await BenchPeer(options: options, url: url, logger: logger).measure())
            } catch {
                outcome = .failure(error)
            }
            if options.keep {
                logger.info("kept scratch database \(databaseName)")
            } else {
                try await admin.query("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
            }
            printOut(try outcome.get())
        } catch {
            await admin.shutdown()
            throw error
        }
        await admin.shutdown()
    }

    func measure() async throws -> String {
        try await BenchStore.with(url: url, poolName: "bench", readPoolSize: 1, maxGroupEvents: 5000) { store, pool in
            try await cases(store: store, pool: pool)
        }
    }

    private func cases(store: EventStore, pool: ConnectionPool) async throws -> String {
        let version = try await pool.withConnection { connection in
            _ = try Migrator().migrate(connection)
            return try connection.query("SHOW server_version").first?.string(0) ?? "?"
        }
        let bench = BenchAppend(events: options.events, seconds: options.seconds, pool: pool, logger: logger)
        try await bench.createCeilingTable()
        _ = try await store.append([EventData(id: UUID(), type: BenchPayload.locationType, data: ["warm": true], metadata: BenchPayload.metadata)],
                                   to: "vehicle:bench/warm-up", expectedVersion: .noStream)

        let ceiling = try await bench.ceiling()
        logger.info("\(ceiling.name): \(String(format: "%.0f", ceiling.rate)) events/s")
        var pairs: [(name: String, ours: BenchTable.Row, peer: PeerResult)] = []
        func pair(_ name: String, _ ours: BenchTable.Row, _ peer: PeerResult) {
            logger.info("\(name): waymark \(String(format: "%.0f", ours.rate)) events/s, peer \(String(format: "%.0f", peer.rate)) events/s")
            pairs.append((name, ours, peer))
        }
        let seconds = String(options.seconds)
        pair("single-event appends, 1 writer", try await bench.singles(store: store, writers: 1),
             try await peer("single", ["--seconds", seconds], pool: pool))
        pair("single-event appends, \(options.writers) writers", try await bench.singles(store: store, writers: options.writers),
             try await peer("writers", ["--seconds", seconds, "--writers", String(options.writers)], pool: pool))
        pair("500-event batches (appendBatch / save of 500 aggregates)", try await bench.batched(store: store, submitters: 1),
             try await peer("batch", ["--events", String(options.events), "--batch", "500"], pool: pool))
        let peerRead = try await peer("read", ["--page", String(Self.readPage)], pool: pool)
        pair("read the whole log, pages of \(BenchTable.grouped(Self.readPage)) (readAll / notification log)",
             try await readAll(store: store, pool: pool, readAhead: false), peerRead)
        pair("the same, our next page read while the last is decoded (as rebuilds read) / the peer's read above",
             try await readAll(store: store, pool: pool, readAhead: true), peerRead)

        let header = ["case", "waymark events", "waymark events/s", "peer events", "peer events/s", "waymark ÷ peer"]
        let cells = pairs.map { name, ours, peer in
            [name, BenchTable.grouped(ours.events), BenchTable.grouped(Int(ours.rate.rounded())),
             BenchTable.grouped(peer.events), BenchTable.grouped(Int(peer.rate.rounded())), String(format: "%.2f", ratio(ours, peer))]
        }
        let behind = pairs.filter { ratio($0.ours, $0.peer) <= 1 }
        let library = pairs.first?.peer.library ?? "?"
        let batch = pairs[2]
        let notes = [
            "target waymark ahead of the peer on every shared figure: \(behind.isEmpty ? "met" : "NOT met (behind or equal on: " + behind.map(\.name).joined(separator: "; ") + ")") (ratios \(pairs.map { String(format: "%.2f", ratio($0.ours, $0.peer)) }.joined(separator: ", ")))",
            "raw COPY ceiling of this run: \(BenchTable.grouped(Int(ceiling.rate.rounded()))) events/s; 500-event batches reach \(String(format: "%.3f", batch.ours.rate / max(ceiling.rate, 1))) of it (waymark) and \(String(format: "%.3f", batch.peer.rate / max(ceiling.rate, 1))) (peer)",
            "peer: \(library) (eventsourcing.postgres recorder, table \(Self.peerTable) in the same scratch database, unix socket as ours); client CPU per event: \(pairs.map { String(format: "%.0f", $0.peer.cpuMicrosPerEvent) }.joined(separator: " / ")) µs",
            "PostgreSQL \(version); single-event cases ran \(options.seconds) s each over 64 streams per writer; batches: \(BenchTable.grouped(options.events)) events over 10,000 vehicle streams, one event per stream per batch; reads decode each event (waymark parses data and metadata JSON, the peer returns raw state bytes)",
        ]
        return BenchTable.render(header: header, cells: cells, notes: notes, format: options.format)
    }

    private func ratio(_ ours: BenchTable.Row, _ peer: PeerResult) -> Double {
        peer.rate > 0 ? ours.rate / peer.rate : 0
    }

    /// The whole global feed through `readAll`, pages of `readPage`; must return every row of `events`.
    /// With `readAhead`, the next page is requested before the current one is counted, as
    /// `Rebuilder.replay` reads (the read and its decoding run on a pool thread meanwhile).
    private func readAll(store: EventStore, pool: ConnectionPool, readAhead: Bool) async throws -> BenchTable.Row {
        let name = readAhead ? "readAll, read ahead" : "readAll"
        let inTable = Int(try await pool.query("SELECT count(*) FROM events").first?.int64(0) ?? -1)
        let clock = ContinuousClock()
        let started = clock.now
        var read = 0
        var page = try await store.readAll(after: .start, limit: Self.readPage)
        while let last = page.last {
            let after = FeedPosition(transactionId: last.transactionId, globalPosition: last.globalPosition)
            if readAhead {
                let next = Task { try await store.readAll(after: after, limit: Self.readPage) }
                read += page.count
                page = try await next.value
            } else {
                read += page.count
                page = try await store.readAll(after: after, limit: Self.readPage)
            }
        }
        let elapsed = clock.now - started
        guard read == inTable else { throw BenchFailure("\(name): read \(read) events, the events table holds \(inTable)") }
        return BenchTable.Row(name: name, events: read, elapsed: elapsed)
    }

    /// Runs one case of `peer_bench.py` and checks its outcome against the table.
    private func peer(_ name: String, _ arguments: [String], pool: ConnectionPool) async throws -> PeerResult {
        let command = [options.script, name, "--url", url] + arguments
        let python = options.python
        let outcome = try await BenchHTTP.offThread { try Subprocess.run(python, command) }
        guard outcome.status == 0 else {
            throw BenchFailure("peer \(name): \(python) \(command.joined(separator: " ")) exited with \(outcome.status): \(outcome.output)")
        }
        guard let line = outcome.stdout.split(separator: "\n").last, let json = try? JSONValue.parse(String(line)),
              let events = json["events"]?.int64Value, let seconds = json["seconds"]?.doubleValue,
              let before = json["rows_before"]?.int64Value, let after = json["rows_after"]?.int64Value else {
            throw BenchFailure("peer \(name): no result line in its output: \(outcome.output)")
        }
        let result = PeerResult(events: Int(events), seconds: seconds, rowsBefore: Int(before), rowsAfter: Int(after),
                                cpuMicrosPerEvent: json["client_cpu_us_per_event"]?.doubleValue ?? 0,
                                library: json["library"]?.stringValue ?? "?")
        let inTable = Int(try await pool.query("SELECT count(*) FROM " + Self.peerTable).first?.int64(0) ?? -1)
        let expectedGrowth = name == "read" ? 0 : result.events
        guard result.events > 0, result.rowsAfter == inTable, result.rowsAfter - result.rowsBefore == expectedGrowth,
              name != "read" || result.events == inTable else {
            throw BenchFailure("peer \(name): reported \(result.events) events, rows \(result.rowsBefore) -> \(result.rowsAfter); \(Self.peerTable) holds \(inTable)")
        }
        return result
    }
}
