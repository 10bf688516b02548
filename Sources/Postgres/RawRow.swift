import CLibPQ
import Foundation

/// One row of a text-format result, read in place from libpq's buffer (see
/// `Connection.query(_:_:decode:)`). Valid only inside the `decode` call that received it: never
/// store it or a buffer it handed out.
package struct RawRow {
    @usableFromInline let result: OpaquePointer
    @usableFromInline let row: Int32
    package let columnCount: Int

    init(result: OpaquePointer, row: Int32, columnCount: Int) {
        self.result = result
        self.row = row
        self.columnCount = columnCount
    }

    @inlinable
    package func isNull(_ column: Int) -> Bool {
        PQgetisnull(result, row, Int32(column)) == 1
    }

    /// Calls `body` with the bytes of a non-null column's text form.
    @inlinable
    package func withBytes<T>(_ column: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) throws -> T {
        guard column < columnCount, !isNull(column) else {
            throw PostgresError(.protocolViolation, "column \(column) is NULL or missing")
        }
        let length = Int(PQgetlength(result, row, Int32(column)))
        let pointer = UnsafeRawPointer(PQgetvalue(result, row, Int32(column))!)
        return try body(UnsafeBufferPointer(start: pointer.assumingMemoryBound(to: UInt8.self), count: length))
    }

    package func string(_ column: Int) throws -> String {
        try withBytes(column) { String(decoding: $0, as: UTF8.self) }
    }

    package func int64(_ column: Int) throws -> Int64 {
        guard let value = try withBytes(column, PostgresText.parseInt64) else {
            throw PostgresError(.protocolViolation, "column \(column) is not an integer")
        }
        return value
    }

    package func uint64(_ column: Int) throws -> UInt64 {
        guard let value = try withBytes(column, PostgresText.parseUInt64) else {
            throw PostgresError(.protocolViolation, "column \(column) is not an unsigned integer")
        }
        return value
    }

    /// A `uuid` column (PostgreSQL prints the canonical 8-4-4-4-12 lowercase form).
    package func uuid(_ column: Int) throws -> UUID {
        guard let value = try withBytes(column, { PostgresText.parseUUID($0) }) else {
            throw PostgresError(.protocolViolation, "column \(column) is not a uuid")
        }
        return value
    }

    /// A `bytea` column in PostgreSQL's hex output format (`\x0a1b...`).
    package func bytes(_ column: Int) throws -> [UInt8] {
        guard let value = try withBytes(column, { PostgresText.decodeHexBytea($0) }) else {
            throw PostgresError(.protocolViolation, "column \(column) is not bytea in hex format")
        }
        return value
    }
}
