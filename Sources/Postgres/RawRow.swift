import CLibPQ
import Foundation

/// One row of a result, read in place from libpq's buffer (see `Connection.forEachRow`): text
/// format unless the statement asked for binary (then the `binary...` accessors read it). Valid
/// only inside the call that received it: never store it or a buffer it handed out.
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

    // MARK: - Binary format

    /// A column of a binary-format result holding a big-endian 8-byte integer (`bigint`, `xid8`).
    @inlinable
    package func binaryInt64(_ column: Int) throws -> Int64 {
        try withBytes(column) { bytes in
            guard bytes.count == 8 else { throw PostgresError(.protocolViolation, "column \(column) is not 8 bytes in binary format") }
            return Int64(bigEndian: UnsafeRawPointer(bytes.baseAddress!).loadUnaligned(as: Int64.self))
        }
    }

    /// A `timestamptz` column of a binary-format result, as microseconds since the Unix epoch
    /// (PostgreSQL sends microseconds since 2000-01-01 UTC).
    @inlinable
    package func binaryMicros(_ column: Int) throws -> Int64 {
        try binaryInt64(column) + 946_684_800_000_000
    }

    /// A `uuid` column of a binary-format result (its 16 bytes).
    package func binaryUUID(_ column: Int) throws -> UUID {
        try withBytes(column) { bytes in
            guard bytes.count == 16 else { throw PostgresError(.protocolViolation, "column \(column) is not a uuid in binary format") }
            var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: UnsafeRawBufferPointer(bytes)) }
            return UUID(uuid: uuid)
        }
    }

    /// Calls `body` with the JSON text of a `jsonb` column of a binary-format result (its send
    /// format is a version byte, 1, then the text).
    @inlinable
    package func withBinaryJSONB<T>(_ column: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) throws -> T {
        try withBytes(column) { bytes in
            guard bytes.count >= 1, bytes[0] == 1 else { throw PostgresError(.protocolViolation, "column \(column) is not jsonb version 1 in binary format") }
            return try body(UnsafeBufferPointer(rebasing: bytes.dropFirst()))
        }
    }

    /// A `bytea` column of a binary-format result (its bytes as they are).
    package func binaryBytes(_ column: Int) throws -> [UInt8] {
        try withBytes(column) { Array($0) }
    }
}
