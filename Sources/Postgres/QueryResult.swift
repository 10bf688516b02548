import Foundation

/// The rows a statement returned, in text format, copied out of libpq.
package struct QueryResult: Sendable {
    package let columns: [String]
    package let rows: [Row]
    /// Rows affected by INSERT/UPDATE/DELETE (`PQcmdTuples`), 0 otherwise.
    package let affectedRows: Int

    package init(columns: [String], rows: [Row], affectedRows: Int) {
        self.columns = columns
        self.rows = rows
        self.affectedRows = affectedRows
    }

    /// The first row, if any.
    package var first: Row? { rows.first }
}

/// One row of a result: its values in text format, `nil` for SQL NULL.
package struct Row: Sendable {
    package let values: [String?]

    package init(values: [String?]) { self.values = values }

    package subscript(_ index: Int) -> String? { values[index] }

    /// The text value of a non-null column, or a `protocolViolation` error naming the column.
    package func string(_ index: Int) throws(PostgresError) -> String {
        guard index < values.count, let value = values[index] else {
            throw PostgresError(.protocolViolation, "column \(index) is NULL or missing")
        }
        return value
    }

    package func int64(_ index: Int) throws(PostgresError) -> Int64 {
        let text = try string(index)
        guard let value = Int64(text) else { throw PostgresError(.protocolViolation, "column \(index) is not an integer") }
        return value
    }

    package func uint64(_ index: Int) throws(PostgresError) -> UInt64 {
        let text = try string(index)
        guard let value = UInt64(text) else { throw PostgresError(.protocolViolation, "column \(index) is not an unsigned integer") }
        return value
    }

    package func bool(_ index: Int) throws(PostgresError) -> Bool {
        let text = try string(index)
        return text == "t"
    }

    /// A `bytea` column in PostgreSQL's hex output format (`\x0a1b...`).
    package func bytes(_ index: Int) throws(PostgresError) -> [UInt8] {
        let text = try string(index)
        guard let bytes = PostgresText.decodeHexBytea(text) else {
            throw PostgresError(.protocolViolation, "column \(index) is not bytea in hex format")
        }
        return bytes
    }

    /// A `uuid` column (PostgreSQL prints the canonical 8-4-4-4-12 lowercase form).
    package func uuid(_ index: Int) throws(PostgresError) -> UUID {
        let text = try string(index)
        guard let value = PostgresText.parseUUID(text) else { throw PostgresError(.protocolViolation, "column \(index) is not a uuid") }
        return value
    }
}
