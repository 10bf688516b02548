import Foundation
import JSON
import Postgres
import WaymarkCLI

extension BenchAppend {
    /// pgbench's case (b) of limits.md: `clients` threads, each on a connection of its own, inserting
    /// one row per transaction (autocommit, `PQexecParams`) into the ceiling table for `seconds`.
    ///
    /// The raw rate of naive single-row writers: what group commit has to beat. Rows carry the same
    /// columns and payloads as the COPY ceiling; each client writes streams of its own, so no two
    /// inserts collide.
    func inserts(url: String, clients: Int) async throws -> BenchTable.Row {
        var payload = BenchPayload(seed: 300)
        let data = (0..<1024).map { payload.location(vehicle: $0, sequence: 1).compactString }
        let metadata = BenchPayload.metadata.compactString
        let name = "raw INSERT, 1 row/tx, \(clients) clients"
        let sql = "INSERT INTO bench_ceiling (stream_id, stream_version, event_id, event_type, data, metadata, recorded_at, hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
        let before = try await count("bench_ceiling")
        await checkpoint()
        let seconds = self.seconds
        // Connecting (a few ms per client, in parallel) is inside the window; it is not worth a barrier.
        let started = ContinuousClock.now
        let deadline = started + .seconds(seconds)
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for client in 0..<clients {
                group.addTask {
                    try await BenchHTTP.offThread {
                        let connection = try Connection(conninfo: url)
                        var inserted = 0
                        let recordedAt = PostgresText.timestamp(microseconds: Int64(Date().timeIntervalSince1970 * 1_000_000))
                        while ContinuousClock.now < deadline {
                            let hash = PostgresText.hexBytea(BenchPayload.hash(index: client << 32 | inserted))
                            try connection.query(sql, ["vehicle:bench/insert-c\(client)-\(inserted)", "1", UUID().uuidString, BenchPayload.locationType,
                                                       data[(inserted * clients + client) % data.count], metadata, recordedAt, hash])
                            inserted += 1
                        }
                        return inserted
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let elapsed = ContinuousClock.now - started
        let inserted = counts.reduce(0, +)
        guard inserted > 0 else { throw BenchFailure("\(name): no row inserted in \(seconds) s") }
        let after = try await count("bench_ceiling")
        guard after - before == inserted else {
            throw BenchFailure("\(name): bench_ceiling grew by \(after - before) rows, expected exactly \(inserted)")
        }
        return BenchTable.Row(name: name, events: inserted, elapsed: elapsed)
    }
}
