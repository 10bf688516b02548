import EventStore
import Foundation
import Journey
import JSON
import Postgres
import Simulator
import TestSupport

/// Loads a simulated workload into the event store at `url`: a small fleet with trips (about a
/// tenth of `events`), topped up with location reports, appended in large batches.
/// `clock` sets the recorded times (default: the wall clock).
/// `tripShare` is the most of `events` the fleet with trips may take (the rest are location reports).
func loadWorkload(_ url: String, events: Int, provider: String = "acme", tripShare: Double = 0.1, clock: (@Sendable () -> Int64)? = nil) async throws {
    var configuration = EventStore.Configuration(conninfo: url, readPoolSize: 1, committers: 2, maxGroupEvents: 20_000, listen: false)
    if let clock { configuration.clock = clock }
    let store = EventStore(configuration)
    do {
        let start = Timestamp(secondsSinceEpoch: 1_772_352_000)
        var batch: [StreamAppend] = []
        var batchEvents = 0
        var loaded = 0
        func flush() async throws {
            guard !batch.isEmpty else { return }
            for (append, result) in zip(batch, await store.appendBatch(batch)) {
                if case .failure(let error) = result { throw AuditTestError("append to \(append.streamId) failed: \(error)") }
            }
            batch = []
            batchEvents = 0
        }
        func add(_ command: WorkloadCommand, renaming: Bool = false) async throws {
            for append in command.appends {
                // The flood names its vehicles like the fleet's: give them streams of their own.
                let stream = renaming ? append.streamId.replacingOccurrences(of: "/vehicle-", with: "/flood-") : append.streamId
                batch.append(StreamAppend(streamId: stream, expectedVersion: append.expectedVersion == 0 ? .noStream : .exact(append.expectedVersion),
                                          events: append.events.map { EventData(id: $0.id, type: $0.type, data: $0.data, metadata: ["source": "test"]) }))
                batchEvents += append.events.count
                loaded += append.events.count
            }
            if batchEvents >= 5_000 { try await flush() }
        }
        let trips = max(1, min(200, events / 500))
        // Event ids come from the seed: each provider gets its own.
        let salt = provider.utf8.reduce(UInt64(0)) { $0 &* 31 &+ UInt64($1) }
        for command in DomainWorkload(seed: 0xA0D17 ^ salt, provider: provider, vehicles: max(2, trips / 4), trips: trips, start: start) {
            let n = command.appends.reduce(0) { $0 + $1.events.count }
            guard Double(loaded + n) <= Double(events) * tripShare || loaded == 0 else { break }
            try await add(command)
        }
        if events > loaded {
            for command in DomainWorkloadFlood(seed: 0xF1D ^ salt, provider: provider, vehicles: 50, events: events - loaded, start: start) {
                try await add(command, renaming: true)
            }
        }
        try await flush()
        await store.shutdown()
    } catch {
        await store.shutdown()
        throw error
    }
}

/// Runs SQL as the superuser with the append-only trigger bypassed (a tamperer's session).
func tamper(_ url: String, _ statements: [(String, [String?])]) async throws {
    try await Blocking.run {
        let superuser = try Connection(conninfo: url)
        try superuser.execute("SET session_replication_role = replica")
        for (sql, parameters) in statements { try superuser.query(sql, parameters) }
    }
}

/// One value from the database.
func scalar(_ url: String, _ sql: String, _ parameters: [String?] = []) async throws -> String? {
    try await Blocking.run { try Connection(conninfo: url).query(sql, parameters).first?[0] }
}

struct AuditTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Waits until every stored event sits below the cluster's xmin horizon (other tests' open
/// transactions hold it back), so feed readers and root writers see all of them.
func waitForHorizon(_ url: String) async throws {
    let deadline = Date().addingTimeInterval(60)
    while Date() < deadline {
        if try await scalar(url, "SELECT NOT EXISTS (SELECT 1 FROM events WHERE txid >= pg_snapshot_xmin(pg_current_snapshot()))") == "t" { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    throw AuditTestError("events did not fall below the xmin horizon within 60 s")
}
