import EventStore
import Foundation
import JSON
import Postgres
import ReadModels
import ReadSide

/// SQL for one projection's table and checkpoint: load, guarded batch write, rebuild swap.
///
/// The table is the projection's `ReadModelTable`, the one the readers read; the projector's name
/// must be lowercase letters, digits and underscores, and the table is quoted as an identifier.
/// Values always travel as parameters.
package struct ReadModelStore: Sendable {
    package let name: String
    package let table: String

    package init(name: String) throws(ProjectionError) {
        guard !name.isEmpty, name.utf8.allSatisfy({ ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 95 }) else {
            throw ProjectionError(.invalidName, "projection name must be lowercase letters, digits and underscores, got \(name.debugDescription)")
        }
        self.name = name
        self.table = ReadModelTable(projection: name).name
        quotedTable = Connection.quoteIdentifier(table)
    }

    /// `table` quoted for SQL text (worked out once: it is in every batch's statements).
    let quotedTable: String

    /// Between two documents of one upsert: U+001E, the record separator, which JSON text never
    /// holds unescaped.
    static let documentSeparator: UInt8 = 0x1E

    /// Where a projection stands: its checkpoint and the rebuild generation it belongs to.
    package struct Checkpoint: Sendable, Hashable {
        package let position: FeedPosition
        package let eventsApplied: Int64
        package let generation: Int64
    }

    /// Makes sure the checkpoint row exists, then reads it and every document in one snapshot.
    func load(_ connection: Connection) throws -> (Checkpoint, [DocumentChange]) {
        try connection.query("INSERT INTO projection_checkpoints (name) VALUES ($1) ON CONFLICT (name) DO NOTHING", [name])
        try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        do {
            let checkpoint = try readCheckpoint(connection)
            let documents = try readDocuments(connection, table: quotedTable)
            try connection.execute("COMMIT")
            return (checkpoint, documents)
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
    }

    func readCheckpoint(_ connection: Connection) throws -> Checkpoint {
        guard let row = try connection.query(
            "SELECT transaction_id::text, global_position, events_applied, generation FROM projection_checkpoints WHERE name = $1",
            [name]).first else {
            return Checkpoint(position: .start, eventsApplied: 0, generation: 0)
        }
        return Checkpoint(position: FeedPosition(transactionId: try row.uint64(0), globalPosition: try row.int64(1)),
                          eventsApplied: try row.int64(2), generation: try row.int64(3))
    }

    func readDocuments(_ connection: Connection, table: String) throws -> [DocumentChange] {
        try connection.query("SELECT collection, key, document::text FROM \(table) ORDER BY collection, key").rows.map { row in
            DocumentChange(collection: try row.string(0), key: try row.string(1), document: try JSONValue.parse(try row.string(2)))
        }
    }

    /// The stored documents at `addresses` (those that exist), read outside any transaction.
    func readDocuments(_ addresses: [DocumentAddress], _ connection: Connection) throws -> [DocumentChange] {
        try connection.query("""
            SELECT t.collection, t.key, t.document::text
            FROM unnest($1::text[], $2::text[]) AS a(collection, key)
            JOIN \(quotedTable) t ON t.collection = a.collection AND t.key = a.key
            """, [PostgresText.arrayLiteral(addresses.map(\.collection)), PostgresText.arrayLiteral(addresses.map(\.key))]).rows.map { row in
            DocumentChange(collection: try row.string(0), key: try row.string(1), document: try JSONValue.parse(try row.string(2)))
        }
    }

    /// The statements of one batch: upserts, deletes, and the checkpoint moved from `from` to `to`
    /// only if it still is at `from` in `generation` (else the guard aborts the transaction).
    /// `changes` holds each document at most once (`PendingWrite` keeps the latest change of each).
    ///
    /// Each session prepares them once, under names of this projection; when a rebuild swaps
    /// another table in, PostgreSQL analyses them again and finds the new table by its name.
    func batchStatements(_ changes: [DocumentChange], from: Checkpoint, to: FeedPosition, events: Int) -> [Statement] {
        let upserts = changes.filter { !$0.isDeletion }
        let deletes = changes.filter(\.isDeletion)
        var statements: [Statement] = []
        if !upserts.isEmpty {
            // The documents travel as one text, separated by U+001E (which JSON text never holds
            // unescaped) and split by `string_to_table`: written once into one buffer, with no
            // `json[]` literal whose every quote is escaped here and unescaped by the server, and no
            // JSON array the server must parse to find where each document ends.
            var documents: [UInt8] = []
            documents.reserveCapacity(upserts.count * 1024)
            for (index, upsert) in upserts.enumerated() {
                if index > 0 { documents.append(Self.documentSeparator) }
                upsert.writeCanonical(to: &documents)
            }
            statements.append(Statement("""
                INSERT INTO \(quotedTable) (collection, key, document)
                SELECT u.collection, u.key, d.value::json
                FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(collection, key, ord)
                JOIN string_to_table($3, E'\\x1e') WITH ORDINALITY AS d(value, ord) ON d.ord = u.ord
                ON CONFLICT (collection, key) DO UPDATE SET document = excluded.document
                """, [PostgresText.arrayLiteral(upserts.map(\.collection)), PostgresText.arrayLiteral(upserts.map(\.key)),
                      String(decoding: documents, as: UTF8.self)], preparedName: "waymark_upsert_" + table))
        }
        if !deletes.isEmpty {
            statements.append(Statement("""
                DELETE FROM \(quotedTable) USING unnest($1::text[], $2::text[]) AS d(collection, key)
                WHERE \(quotedTable).collection = d.collection AND \(quotedTable).key = d.key
                """, [PostgresText.arrayLiteral(deletes.map(\.collection)), PostgresText.arrayLiteral(deletes.map(\.key))],
                preparedName: "waymark_delete_" + table))
        }
        statements.append(Statement("""
            WITH moved AS (
                UPDATE projection_checkpoints
                SET transaction_id = $2::xid8, global_position = $3, events_applied = events_applied + $4, updated_at = now()
                WHERE name = $1 AND transaction_id = $5::xid8 AND global_position = $6 AND generation = $7
                RETURNING 1
            )
            SELECT waymark_expect_count((SELECT count(*) FROM moved), 1)
            """, [name, String(to.transactionId), String(to.globalPosition), String(events),
                  String(from.position.transactionId), String(from.position.globalPosition), String(from.generation)],
            preparedName: "waymark_checkpoint_advance"))
        return statements
    }
}

/// An error of the projection runtime.
package struct ProjectionError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        package let name: String
        package var description: String { name }
        /// A projection name that cannot name a table.
        package static let invalidName = Code(name: "invalidName")
        /// Another runner moved the checkpoint (or a rebuild swapped the table): the batch was abandoned.
        package static let fenced = Code(name: "fenced")
        /// A batch read a record its projector had let go from memory without reading it back first.
        package static let recordNotRestored = Code(name: "recordNotRestored")
        /// No projection has that name.
        package static let unknownProjection = Code(name: "unknownProjection")
    }

    package let code: Code
    package let message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { "\(code): \(message)" }
}
