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
    /// The table's layout: which collections ride in another's row (`ReadModelTable.companions`).
    package let layout: ReadModelTable

    package init(name: String) throws(ProjectionError) {
        guard !name.isEmpty, name.utf8.allSatisfy({ ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 95 }) else {
            throw ProjectionError(.invalidName, "projection name must be lowercase letters, digits and underscores, got \(name.debugDescription)")
        }
        self.name = name
        layout = ReadModelTable(projection: name)
        self.table = layout.name
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
        try connection.query("SELECT collection, key, \(columns("")) FROM \(table) ORDER BY collection, key").rows.flatMap { row in
            try splitRow(row, wanted: nil)
        }
    }

    /// The stored documents at `addresses` (those that exist), read outside any transaction.
    func readDocuments(_ addresses: [DocumentAddress], _ connection: Connection) throws -> [DocumentChange] {
        let rows = Set(addresses.map { DocumentAddress(collection: layout.storage(of: $0.collection).row, key: $0.key) })
            .sorted { ($0.collection, $0.key) < ($1.collection, $1.key) }
        let wanted = Set(addresses)
        return try connection.query("""
            SELECT t.collection, t.key, \(columns("t."))
            FROM unnest($1::text[], $2::text[]) AS a(collection, key)
            JOIN \(quotedTable) t ON t.collection = a.collection AND t.key = a.key
            """, [PostgresText.arrayLiteral(rows.map(\.collection)), PostgresText.arrayLiteral(rows.map(\.key))]).rows.flatMap { row in
            try splitRow(row, wanted: wanted)
        }
    }

    /// The stored columns after `collection, key`: the document, and the record where the layout has
    /// companions (`ReadModelTable.companions`).
    private func columns(_ prefix: String) -> String {
        layout.companions.isEmpty ? "\(prefix)document::text" : "\(prefix)document::text, \(prefix)record::text"
    }

    /// The documents one row holds (`collection, key`, then `columns`), those in `wanted` when given.
    private func splitRow(_ row: Row, wanted: Set<DocumentAddress>?) throws -> [DocumentChange] {
        let collection = try row.string(0), key = try row.string(1)
        var documents: [DocumentChange] = []
        if let text = row[2], wanted?.contains(DocumentAddress(collection: collection, key: key)) ?? true {
            documents.append(DocumentChange(collection: collection, key: key, document: try JSONValue.parse(text)))
        }
        if let records = layout.recordCollection(ofRow: collection), let text = row[3],
           wanted?.contains(DocumentAddress(collection: records, key: key)) ?? true {
            documents.append(DocumentChange(collection: records, key: key, document: try JSONValue.parse(text)))
        }
        return documents
    }

    /// `changes` by the row that stores them (`ReadModelTable.companions`), each row once, in the
    /// order of its first change; one lookup per change.
    private func rows(of changes: [DocumentChange]) -> [(address: DocumentAddress, document: DocumentChange?, record: DocumentChange?)] {
        var index: [DocumentAddress: Int] = [:]
        index.reserveCapacity(changes.count)
        var rows: [(address: DocumentAddress, document: DocumentChange?, record: DocumentChange?)] = []
        rows.reserveCapacity(changes.count)
        for change in changes {
            let (row, isRecord) = layout.storage(of: change.collection)
            let address = DocumentAddress(collection: row, key: change.key)
            let at: Int
            if let found = index[address] {
                at = found
            } else {
                at = rows.count
                index[address] = at
                rows.append((address, nil, nil))
            }
            if isRecord { rows[at].record = change } else { rows[at].document = change }
        }
        return rows
    }

    /// `documents` as COPY text for a fresh table, and its column list: a row per document, or a
    /// document and its record in one row where the layout has companions (`\N` for what a row
    /// does not hold).
    func copyRows(_ documents: [DocumentChange]) -> (columns: String, data: [UInt8]) {
        let withRecords = !layout.companions.isEmpty
        var out: [UInt8] = []
        for (address, document, record) in rows(of: documents.filter { !$0.isDeletion }) {
            PostgresText.appendCopyField(address.collection, into: &out)
            out.append(UInt8(ascii: "\t"))
            PostgresText.appendCopyField(address.key, into: &out)
            for column in withRecords ? [document, record] : [document] {
                out.append(UInt8(ascii: "\t"))
                if let bytes = column?.canonicalBytes { PostgresText.appendCopyField(bytes, into: &out) } else { out.append(contentsOf: Array("\\N".utf8)) }
            }
            out.append(UInt8(ascii: "\n"))
        }
        return (withRecords ? "collection, key, document, record" : "collection, key, document", out)
    }

    /// The statements of one batch: upserts, deletes, and the checkpoint moved from `from` to `to`
    /// only if it still is at `from` in `generation` (else the guard aborts the transaction).
    /// `changes` holds each document at most once (`PendingWrite` keeps the latest change of each).
    ///
    /// Each session prepares them once, under names of this projection; when a rebuild swaps
    /// another table in, PostgreSQL analyses them again and finds the new table by its name.
    func batchStatements(_ changes: [DocumentChange], from: Checkpoint, to: FeedPosition, events: Int) -> [Statement] {
        var statements = writeStatements(changes)
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

    /// The statements that write `changes` (each document at most once), without the checkpoint:
    /// into the projection's table, prepared once per session, or into `other` (a rebuild's table).
    func writeStatements(_ changes: [DocumentChange], into other: String? = nil) -> [Statement] {
        let table = other ?? quotedTable, prefix = other == nil ? self.table : nil
        return layout.companions.isEmpty ? documentStatements(changes, table, prefix) : pairedStatements(changes, table, prefix)
    }

    /// One row per document: upserts, then deletes.
    private func documentStatements(_ changes: [DocumentChange], _ quotedTable: String, _ prepared: String?) -> [Statement] {
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
                SELECT u.collection, u.key, d.value
                FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(collection, key, ord)
                JOIN string_to_table($3, E'\\x1e') WITH ORDINALITY AS d(value, ord) ON d.ord = u.ord
                ON CONFLICT (collection, key) DO UPDATE SET document = excluded.document
                """, [PostgresText.arrayLiteral(upserts.map(\.collection)), PostgresText.arrayLiteral(upserts.map(\.key)),
                      String(decoding: documents, as: UTF8.self)], preparedName: prepared.map { "waymark_upsert_" + $0 }))
        }
        if !deletes.isEmpty {
            statements.append(Statement("""
                DELETE FROM \(quotedTable) USING unnest($1::text[], $2::text[]) AS d(collection, key)
                WHERE \(quotedTable).collection = d.collection AND \(quotedTable).key = d.key
                """, [PostgresText.arrayLiteral(deletes.map(\.collection)), PostgresText.arrayLiteral(deletes.map(\.key))],
                preparedName: prepared.map { "waymark_delete_" + $0 }))
        }
        return statements
    }

    /// In an upsert of a table with companions, a column this batch leaves as it is (JSON text is
    /// never `-` alone).
    static let unchangedColumn = UInt8(ascii: "-")

    /// A document and its record in one row (`ReadModelTable.companions`): one upsert sets what
    /// changed of each row and keeps the rest; a deleted document or record is cleared, and a row
    /// left with neither is deleted.
    private func pairedStatements(_ changes: [DocumentChange], _ quotedTable: String, _ prepared: String?) -> [Statement] {
        let rows = rows(of: changes)
        var upserted: [DocumentAddress] = []
        var documents: [UInt8] = [], records: [UInt8] = []
        documents.reserveCapacity(rows.count * 1024)
        records.reserveCapacity(rows.count * 768)
        var cleared: [(address: DocumentAddress, document: Bool, record: Bool)] = []
        for (address, document, record) in rows {
            let setsDocument = document.map { !$0.isDeletion } ?? false, setsRecord = record.map { !$0.isDeletion } ?? false
            if setsDocument || setsRecord {
                if !upserted.isEmpty {
                    documents.append(Self.documentSeparator)
                    records.append(Self.documentSeparator)
                }
                upserted.append(address)
                if setsDocument { document!.writeCanonical(to: &documents) } else { documents.append(Self.unchangedColumn) }
                if setsRecord { record!.writeCanonical(to: &records) } else { records.append(Self.unchangedColumn) }
            }
            let dropsDocument = document?.isDeletion ?? false, dropsRecord = record?.isDeletion ?? false
            if dropsDocument || dropsRecord { cleared.append((address, dropsDocument, dropsRecord)) }
        }
        var statements: [Statement] = []
        if !upserted.isEmpty {
            statements.append(Statement("""
                INSERT INTO \(quotedTable) (collection, key, document, record)
                SELECT u.collection, u.key, NULLIF(d.value, '-'), NULLIF(r.value, '-')
                FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(collection, key, ord)
                JOIN string_to_table($3, E'\\x1e') WITH ORDINALITY AS d(value, ord) ON d.ord = u.ord
                JOIN string_to_table($4, E'\\x1e') WITH ORDINALITY AS r(value, ord) ON r.ord = u.ord
                ON CONFLICT (collection, key) DO UPDATE
                SET document = COALESCE(excluded.document, \(quotedTable).document), record = COALESCE(excluded.record, \(quotedTable).record)
                """, [PostgresText.arrayLiteral(upserted.map(\.collection)), PostgresText.arrayLiteral(upserted.map(\.key)),
                      String(decoding: documents, as: UTF8.self), String(decoding: records, as: UTF8.self)],
                preparedName: prepared.map { "waymark_upsert_" + $0 }))
        }
        if !cleared.isEmpty {
            let collections = PostgresText.arrayLiteral(cleared.map(\.address.collection)), keys = PostgresText.arrayLiteral(cleared.map(\.address.key))
            statements.append(Statement("""
                UPDATE \(quotedTable)
                SET document = CASE WHEN c.document THEN NULL ELSE \(quotedTable).document END,
                    record = CASE WHEN c.record THEN NULL ELSE \(quotedTable).record END
                FROM unnest($1::text[], $2::text[], $3::bool[], $4::bool[]) AS c(collection, key, document, record)
                WHERE \(quotedTable).collection = c.collection AND \(quotedTable).key = c.key
                """, [collections, keys, PostgresText.arrayLiteral(cleared.map { $0.document ? "t" : "f" }),
                      PostgresText.arrayLiteral(cleared.map { $0.record ? "t" : "f" })], preparedName: prepared.map { "waymark_clear_" + $0 }))
            statements.append(Statement("""
                DELETE FROM \(quotedTable) USING unnest($1::text[], $2::text[]) AS d(collection, key)
                WHERE \(quotedTable).collection = d.collection AND \(quotedTable).key = d.key
                  AND \(quotedTable).document IS NULL AND \(quotedTable).record IS NULL
                """, [collections, keys], preparedName: prepared.map { "waymark_delete_" + $0 }))
        }
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
