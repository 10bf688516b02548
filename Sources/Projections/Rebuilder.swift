import EventStore
import Foundation
import JSON
import Postgres
import ReadModels

/// Rebuilds and verifies read models from position zero.
///
/// A rebuild replays the whole feed into a fresh projector, loads its documents into a new table
/// with COPY, and swaps that table in under an exclusive lock after catching up with events that
/// arrived meanwhile, so readers see either the old model or the complete new one, never a half-built one.
package enum Rebuilder {
    /// What a rebuild did.
    package struct Report: Sendable {
        package let events: Int
        package let documents: Int
        package let position: FeedPosition
        package let seconds: Double
    }

    /// Folds the feed into `projector` from after `start` up to `target` (inclusive; nil: to the
    /// current end) and returns the documents that exist afterwards (with `keepingDeletions`, the
    /// documents deleted too, as deletions), the position and the event count.
    ///
    /// The next page is read while the current one is folded: the read and the parsing of its
    /// rows run on a connection thread of their own. The projector is drained once, after the last
    /// page: only the final documents are kept, and a drain renders and encodes every document
    /// changed since the previous one, so draining per page would encode a busy document (a
    /// vehicle reporting all the time) once per page.
    package static func replay(into projector: inout any Projector, store: EventStore, after start: FeedPosition = .start,
                               upTo target: FeedPosition? = nil, documents: inout [String: DocumentChange], keepingDeletions: Bool = false,
                               batchSize: Int = 5000, progress: (Int) -> Void = { _ in }) async throws -> (FeedPosition, Int) {
        var position = start
        var count = 0
        var batch = try await store.readAll(after: position, limit: batchSize)
        while true {
            var next: Task<[RecordedEvent], any Error>?
            if batch.count == batchSize, let last = batch.last?.feedPosition {
                next = Task { try await store.readAll(after: last, limit: batchSize) }
            }
            var reachedTarget = false
            for event in batch {
                if let target, event.feedPosition > target {
                    reachedTarget = true
                    break
                }
                projector.apply(event)
                position = event.feedPosition
                count += 1
            }
            progress(count)
            guard let next, !reachedTarget else {
                // A page read ahead past the target is not used, but not left running either.
                _ = try? await next?.value
                break
            }
            batch = try await next.value
        }
        for change in projector.drainChanges() {
            let id = change.collection + "\u{1}" + change.key
            if change.isDeletion, !keepingDeletions { documents.removeValue(forKey: id) } else { documents[id] = change }
        }
        return (position, count)
    }

    /// Rebuilds projection `make()` into a fresh table and swaps it in atomically.
    ///
    /// `conninfo` must be a login that may create, rename and drop tables (the migrating user).
    package static func rebuild(store: EventStore, conninfo: String, make: @escaping @Sendable () -> any Projector,
                                progress: @escaping @Sendable (Int) -> Void = { _ in }) async throws -> Report {
        let started = ContinuousClock.now
        let readModels = try ReadModelStore(name: make().name)
        let table = readModels.quotedTable, scratch = Connection.quoteIdentifier(readModels.table + "_rebuild")
        try await run(conninfo) { connection in
            try connection.execute("DROP TABLE IF EXISTS \(scratch)")
            try connection.execute("CREATE TABLE \(scratch) (LIKE \(table) INCLUDING ALL)")
            // LIKE copies columns, compression and indexes but not storage parameters (fillfactor, autovacuum).
            if let options = try connection.query("SELECT array_to_string(reloptions, ', ') FROM pg_class WHERE oid = $1::regclass",
                                                  [readModels.table]).first?[0], !options.isEmpty {
                try connection.execute("ALTER TABLE \(scratch) SET (\(options))")
            }
            try connection.query("INSERT INTO projection_checkpoints (name) VALUES ($1) ON CONFLICT (name) DO NOTHING", [readModels.name])
        }
        var projector = make()
        var documents: [String: DocumentChange] = [:]
        var (position, count) = try await replay(into: &projector, store: store, documents: &documents, progress: progress)
        let loaded = Array(documents.values)
        let (columns, rows) = readModels.copyRows(loaded)
        try await run(conninfo) { connection in _ = try connection.copyIn("COPY \(scratch) (\(columns)) FROM STDIN", data: rows) }

        // Catch up under the lock, then swap.
        // One session for the whole swap: a pool of one keeps the same connection across calls.
        let swap = ConnectionPool(.init(conninfo: conninfo, size: 1, name: "rebuild-swap"))
        defer { Task { await swap.shutdown() } }
        try await swap.withConnection { connection in
            try connection.execute("BEGIN")
            try connection.execute("LOCK TABLE \(table) IN ACCESS EXCLUSIVE MODE")
        }
        var late: [String: DocumentChange] = [:]
        let (finalPosition, lateCount) = try await replay(into: &projector, store: store, after: position, documents: &late, keepingDeletions: true)
        position = finalPosition
        count += lateCount
        let total = count, reached = position, lateChanges = late
        let name = readModels.name, plain = readModels.table
        try await swap.withConnection { connection in
            // If the session broke since BEGIN, its transaction is gone: never rename outside it.
            guard connection.inTransaction else {
                throw ProjectionError(.fenced, "the rebuild's session was lost before the swap; nothing was swapped")
            }
            // The late changes as a runner writes them (deletions too), into the new table.
            let changes = lateChanges.values.sorted { ($0.collection, $0.key) < ($1.collection, $1.key) }
            if !changes.isEmpty { _ = try connection.pipeline(readModels.writeStatements(changes, into: scratch)) }
            try connection.execute("ALTER TABLE \(table) RENAME TO \(Connection.quoteIdentifier(plain + "_old"))")
            try connection.execute("ALTER TABLE \(scratch) RENAME TO \(table)")
            try connection.execute("DROP TABLE \(Connection.quoteIdentifier(plain + "_old"))")
            try connection.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON \(table) TO waymark_app")
            try connection.query("""
                UPDATE projection_checkpoints SET transaction_id = $2::xid8, global_position = $3, events_applied = $4,
                    generation = generation + 1, updated_at = now()
                WHERE name = $1
                """, [name, String(reached.transactionId), String(reached.globalPosition), String(total)])
            // Other nodes cached documents of the old table (mirrors, journey views): "many" tells
            // them to re-read everything they watch. A hint after the commit, like a runner's.
            _ = try connection.pipeline([Statement("COMMIT")],
                                        hints: [ProjectionNotification.statement(projection: name, payload: ProjectionNotification.manyPayload)])
        }
        let elapsed = ContinuousClock.now - started
        return Report(events: count, documents: documents.count, position: position,
                      seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    /// Rebuilds the projection in memory up to the live checkpoint and lists every document that
    /// differs from the live table (empty when identical).
    package static func verify(store: EventStore, conninfo: String, make: @escaping @Sendable () -> any Projector) async throws -> [String] {
        let readModels = try ReadModelStore(name: make().name)
        let (checkpoint, live) = try await run(conninfo) { connection in try readModels.load(connection) }
        var projector = make()
        var rebuilt: [String: DocumentChange] = [:]
        _ = try await replay(into: &projector, store: store, upTo: checkpoint.position, documents: &rebuilt)
        var differences: [String] = []
        var liveByID: [String: DocumentChange] = [:]
        for document in live { liveByID[document.collection + "\u{1}" + document.key] = document }
        for id in Set(liveByID.keys).union(rebuilt.keys).sorted() {
            let a = liveByID[id], b = rebuilt[id]
            let where_ = "\(readModels.table) \((a ?? b)!.collection) \((a ?? b)!.key)"
            switch (a?.canonicalBytes, b?.canonicalBytes) {
            case (.some, .none): differences.append("\(where_): in the live model, not in the rebuild")
            case (.none, .some): differences.append("\(where_): in the rebuild, missing from the live model")
            case (.some(let x), .some(let y)) where x != y:
                differences.append("\(where_): live and rebuilt documents differ")
            default: break
            }
        }
        return differences
    }

    /// One blocking job on a fresh connection, off the cooperative pool.
    static func run<T: Sendable>(_ conninfo: String, _ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        let pool = ConnectionPool(.init(conninfo: conninfo, size: 1, name: "rebuild"))
        defer { Task { await pool.shutdown() } }
        return try await pool.withConnection(body)
    }
}
