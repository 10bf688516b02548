import Foundation
import Postgres

/// Retention for vehicle telemetry: whole daily partitions of `events_vehicle` are exported,
/// verified, then dropped, while every vehicle stream keeps an anchor (its last archived version
/// and hash, in `audit_anchors`) so `ChainVerifier` continues its chain from there.
///
/// Trip streams live in `events_main` and never link to vehicle events, so their chains are
/// untouched. Only partitions that end at or before the cutoff and before today (UTC) qualify:
/// appends record the current time, so such a partition receives no new rows.
package enum VehicleArchive {
    /// A daily partition of vehicle events.
    package struct Partition: Sendable, Hashable {
        package let name: String
        /// The partition covers [start, start + 1 day).
        package let startMicros: Int64
        package var endMicros: Int64 { startMicros + 86_400_000_000 }
    }

    /// The daily partitions wholly before `cutoffMicros` and before the start of today (UTC), oldest first.
    package static func partitions(before cutoffMicros: Int64, nowMicros: Int64, on connection: Connection) throws -> [Partition] {
        let today = nowMicros - ((nowMicros % 86_400_000_000) + 86_400_000_000) % 86_400_000_000
        let rows = try connection.query("""
            SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = 'events_vehicle'::regclass AND c.relname ~ '^events_vehicle_[0-9]{8}$' ORDER BY c.relname
            """).rows
        var found: [Partition] = []
        for row in rows {
            let name = try row.string(0)
            let digits = Array(name.utf8.suffix(8)).map { Character(UnicodeScalar($0)) }
            let text = String(digits[0..<4]) + "-" + String(digits[4..<6]) + "-" + String(digits[6..<8]) + "T00:00:00.000000Z"
            guard let start = ExportFileVerifier.micros(text) else { continue }
            let partition = Partition(name: name, startMicros: start)
            if partition.endMicros <= cutoffMicros && partition.endMicros <= today { found.append(partition) }
        }
        return found
    }

    /// In one transaction: checks that the partitions still hold exactly the verified file's
    /// events, records each stream's anchor and the archive, and drops the partitions.
    package static func commit(_ partitions: [Partition], cutoffMicros: Int64, file: String, report: ExportFileVerifier.Report,
                               on connection: Connection) throws {
        guard let first = report.first, let last = report.last else { return }
        try connection.withTransaction { connection in
            var stored: Int64 = 0
            for partition in partitions {
                try connection.execute("LOCK TABLE \(Connection.quoteIdentifier(partition.name)) IN SHARE MODE")
                stored += try connection.query("SELECT count(*) FROM \(Connection.quoteIdentifier(partition.name))").first?.int64(0) ?? 0
            }
            guard stored == Int64(report.events) else {
                throw EventStoreError(.storage, "the partitions hold \(stored) events but the archive file \(report.events); nothing dropped")
            }
            let streams = report.heads.keys.sorted()
            var index = 0
            while index < streams.count {
                let slice = streams[index..<min(index + 5_000, streams.count)]
                try connection.query("""
                    INSERT INTO audit_anchors (stream_id, stream_version, hash, archived_at)
                    SELECT * , now() FROM unnest($1::text[], $2::bigint[], $3::bytea[])
                    ON CONFLICT (stream_id) DO UPDATE SET stream_version = excluded.stream_version, hash = excluded.hash, archived_at = excluded.archived_at
                    """, [PostgresText.arrayLiteral(slice.map { Optional($0) }),
                          PostgresText.arrayLiteral(slice.map { report.heads[$0]!.version }),
                          PostgresText.arrayLiteral(slice.map { Optional(PostgresText.hexBytea(report.heads[$0]!.hash)) })])
                index += 5_000
            }
            try connection.query("""
                INSERT INTO audit_archives (cutoff, file, event_count, first_txid, first_position, last_txid, last_position, partitions, archived_at)
                VALUES ($1::timestamptz, $2, $3, $4::xid8, $5, $6::xid8, $7, $8::text[], now())
                """, [PostgresText.timestamp(microseconds: cutoffMicros), file, String(report.events), String(first.transactionId),
                      String(first.globalPosition), String(last.transactionId), String(last.globalPosition),
                      PostgresText.arrayLiteral(partitions.map { Optional($0.name) })])
            for partition in partitions {
                try connection.execute("DROP TABLE \(Connection.quoteIdentifier(partition.name))")
            }
        }
    }
}
