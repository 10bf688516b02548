import EventStore
import Foundation
import JSON
import Postgres
import WaymarkCLI

/// The cases of `waymark bench append`, run one after another against one scratch database.
///
/// Every case checks its own outcome (rows in the table grew by exactly what it appended, no
/// append failed) and throws `BenchFailure` otherwise, so a fast but wrong run never prints a figure.
/// Payloads are built before a case's clock starts; a `CHECKPOINT` runs before each case so that
/// one case's dirty pages are not flushed on the next one's time.
struct BenchAppend {
    /// Events for the ceiling and the batched cases.
    let events: Int
    /// How long each single-append case runs.
    let seconds: Int
    /// Vehicle streams the batched events are spread over.
    let vehicleStreams = 10_000
    /// Events per `appendBatch` call (one event per vehicle stream in a batch).
    let batchSize = 500
    /// Rows per COPY (= per transaction) in the ceiling.
    let copyBatch = 5_000
    /// Trip streams each single-append writer cycles through.
    let streamsPerWriter = 64

    let pool: ConnectionPool
    let logger: Logger

    // MARK: - Setup and checks

    /// Creates the ceiling table, shaped like limits.md's `events` table with the event store's columns.
    func createCeilingTable() async throws {
        try await pool.withConnection { connection in
            try connection.execute("""
                DROP TABLE IF EXISTS bench_ceiling;
                CREATE TABLE bench_ceiling (
                    global_position bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    stream_id       text        NOT NULL,
                    stream_version  bigint      NOT NULL,
                    event_id        uuid        NOT NULL,
                    event_type      text        NOT NULL,
                    data            jsonb       NOT NULL,
                    metadata        jsonb       NOT NULL,
                    recorded_at     timestamptz NOT NULL,
                    hash            bytea       NOT NULL,
                    UNIQUE (stream_id, stream_version)
                )
                """)
            return ()
        }
    }

    func count(_ table: String) async throws -> Int {
        let result = try await pool.query("SELECT count(*) FROM " + Connection.quoteIdentifier(table))
        return Int(try result.first?.int64(0) ?? -1)
    }

    /// Flushes dirty pages before a case; skipped with a warning when the login may not checkpoint.
    func checkpoint() async {
        do {
            try await pool.query("CHECKPOINT")
        } catch {
            logger.warning("CHECKPOINT failed, cases may pay for each other's writes: \(error)")
        }
    }

    /// Logs the wall-clock bounds of a timed section, so profiles (`perf record -k realtime`) can be cut per case.
    private func logTimed(_ name: String, _ edge: String) {
        logger.debug("\(name): clock \(edge) at \(String(format: "%.3f", Date().timeIntervalSince1970)) (Unix time)")
    }

    private func expectGrowth(_ table: String, from before: Int, by expected: Int, case name: String) async throws {
        let after = try await count(table)
        guard after - before == expected else {
            throw BenchFailure("\(name): \(table) grew by \(after - before) rows, expected exactly \(expected) (before \(before), after \(after))")
        }
    }

    // MARK: - 1. Raw ceiling

    /// COPY FROM STDIN of `events` rows in `copyBatch`-row batches, one transaction per batch.
    func ceiling() async throws -> BenchTable.Row {
        var payload = BenchPayload(seed: 1)
        let metadata = BenchPayload.metadata.compactBytes()
        let recordedAt = PostgresText.timestamp(microseconds: Int64(Date().timeIntervalSince1970 * 1_000_000))
        var buffers: [[UInt8]] = []
        var dataBytes = 0
        var start = 0
        while start < events {
            let end = min(start + copyBatch, events)
            var out = [UInt8]()
            out.reserveCapacity((end - start) * 420)
            for index in start..<end {
                let vehicle = index % vehicleStreams
                let data = payload.location(vehicle: vehicle, sequence: index / vehicleStreams + 1).compactBytes()
                dataBytes += data.count
                BenchPayload.appendCopyRow(
                    streamId: "vehicle:bench/ceiling-v-\(vehicle)", version: index / vehicleStreams + 1, eventId: UUID(),
                    type: BenchPayload.locationType, data: data, metadata: metadata, recordedAt: recordedAt,
                    hash: BenchPayload.hash(index: index), into: &out)
            }
            buffers.append(out)
            start = end
        }
        logger.info("ceiling: \(buffers.count) COPY batches built, data text \(dataBytes / max(1, events)) bytes per event on average")

        let before = try await count("bench_ceiling")
        await checkpoint()
        let sent = buffers
        let name = "raw COPY ceiling, \(BenchTable.grouped(copyBatch))/tx"
        logTimed(name, "starts")
        let (copied, elapsed) = try await pool.withConnection { connection -> (Int, Duration) in
            let sql = "COPY bench_ceiling (stream_id, stream_version, event_id, event_type, data, metadata, recorded_at, hash) FROM STDIN"
            let clock = ContinuousClock()
            let started = clock.now
            var copied = 0
            for buffer in sent { copied += try connection.copyIn(sql, data: buffer) }
            return (copied, clock.now - started)
        }
        logTimed(name, "stops")
        guard copied == events else { throw BenchFailure("\(name): COPY reported \(copied) rows, expected \(events)") }
        try await expectGrowth("bench_ceiling", from: before, by: events, case: name)
        return BenchTable.Row(name: name, events: events, elapsed: elapsed)
    }

    // MARK: - 2. appendBatch

    /// `events` location events over `vehicleStreams` streams (`.any`), in `batchSize`-event
    /// `appendBatch` calls with one event per stream per call, from `submitters` concurrent tasks.
    func batched(store: EventStore, submitters: Int) async throws -> BenchTable.Row {
        var payload = BenchPayload(seed: UInt64(100 + submitters))
        var batches: [[StreamAppend]] = []
        var start = 0
        while start < events {
            let end = min(start + batchSize, events)
            batches.append((start..<end).map { index in
                let vehicle = index % vehicleStreams
                let event = EventData(id: UUID(), type: BenchPayload.locationType,
                                      data: payload.location(vehicle: vehicle, sequence: index / vehicleStreams + 1),
                                      metadata: BenchPayload.metadata)
                return StreamAppend(streamId: "vehicle:bench/b\(submitters)-v-\(vehicle)", expectedVersion: .any, events: [event])
            })
            start = end
        }
        let name = "appendBatch \(batchSize), \(submitters) submitter\(submitters == 1 ? "" : "s")"

        let before = try await count("events")
        await checkpoint()
        let all = batches
        let clock = ContinuousClock()
        logTimed(name, "starts")
        let started = clock.now
        let appended = try await withThrowingTaskGroup(of: Int.self) { group in
            for submitter in 0..<submitters {
                group.addTask {
                    var appended = 0
                    // Submitter s takes batches s, s + n, s + 2n, ...: neighbouring batches touch disjoint streams.
                    for index in stride(from: submitter, to: all.count, by: submitters) {
                        let results = await store.appendBatch(all[index])
                        for (append, result) in zip(all[index], results) {
                            switch result {
                            case .failure(let error):
                                throw BenchFailure("\(name): append to \(append.streamId) failed: \(error)")
                            case .success(let done):
                                guard done.positions.count == append.events.count, !done.deduplicated else {
                                    throw BenchFailure("\(name): append to \(append.streamId) returned \(done.positions.count) positions for \(append.events.count) events (deduplicated: \(done.deduplicated))")
                                }
                                appended += done.positions.count
                            }
                        }
                        guard results.count == all[index].count else {
                            throw BenchFailure("\(name): appendBatch returned \(results.count) results for \(all[index].count) appends")
                        }
                    }
                    return appended
                }
            }
            return try await group.reduce(0, +)
        }
        let elapsed = clock.now - started
        logTimed(name, "stops")
        guard appended == events else { throw BenchFailure("\(name): \(appended) events acknowledged, expected \(events)") }
        try await expectGrowth("events", from: before, by: events, case: name)
        return BenchTable.Row(name: name, events: events, elapsed: elapsed)
    }

    // MARK: - 3./4. Single-event appends

    /// `writers` tasks, each appending one event per call and awaiting it, for `seconds`.
    ///
    /// Each writer owns `streamsPerWriter` trip streams, cycles through them and passes `.exact`
    /// with the version it tracked (`.noStream` for the first event), so no two writers conflict
    /// and every append must succeed.
    func singles(store: EventStore, writers: Int) async throws -> BenchTable.Row {
        var payload = BenchPayload(seed: UInt64(200 + writers))
        let payloads = (0..<1024).map { payload.location(vehicle: $0, sequence: 1) }
        let perWriter = streamsPerWriter
        let streams = (0..<writers).map { writer in
            (0..<perWriter).map { "trip:bench/s\(writers)-w\(writer)-t-\($0)" }
        }
        let name = "single append, \(writers) writer\(writers == 1 ? "" : "s")"

        let before = try await count("events")
        await checkpoint()
        let clock = ContinuousClock()
        logTimed(name, "starts")
        let started = clock.now
        let deadline = started + .seconds(seconds)
        let appended = try await withThrowingTaskGroup(of: Int.self) { group in
            for writer in 0..<writers {
                let owned = streams[writer]
                group.addTask {
                    var versions = [Int64](repeating: 0, count: owned.count)
                    var appended = 0
                    while clock.now < deadline {
                        let slot = appended % owned.count
                        let current = versions[slot]
                        let event = EventData(id: UUID(), type: BenchPayload.tripType,
                                              data: payloads[(appended * writers + writer) % payloads.count],
                                              metadata: BenchPayload.metadata)
                        let result: AppendResult
                        do {
                            result = try await store.append([event], to: owned[slot], expectedVersion: current == 0 ? .noStream : .exact(current))
                        } catch {
                            throw BenchFailure("\(name): append to \(owned[slot]) at version \(current) failed: \(error)")
                        }
                        guard result.firstVersion == current + 1, result.lastVersion == current + 1,
                              result.positions.count == 1, !result.deduplicated else {
                            throw BenchFailure("\(name): append to \(owned[slot]) after version \(current) returned versions \(result.firstVersion)...\(result.lastVersion)")
                        }
                        versions[slot] = current + 1
                        appended += 1
                    }
                    return appended
                }
            }
            return try await group.reduce(0, +)
        }
        let elapsed = clock.now - started
        logTimed(name, "stops")
        guard appended > 0 else { throw BenchFailure("\(name): no event appended in \(seconds) s") }
        try await expectGrowth("events", from: before, by: appended, case: name)
        return BenchTable.Row(name: name, events: appended, elapsed: elapsed)
    }
}
