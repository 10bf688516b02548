import Foundation
import Postgres

/// Streams stored events out of PostgreSQL with `COPY ... TO STDOUT`, as NDJSON or CSV, in feed
/// order `(txid, global_position)`.
///
/// The server renders each line (`json_build_object`), so the client only moves bytes: memory is
/// one row at a time plus the caller's output buffer. Filter values travel as session settings
/// set with bound parameters (`set_config`), never spliced into the COPY text, which cannot take
/// parameters.
///
/// An NDJSON line: `{"globalPosition":"123","transactionId":"4567","streamId":"trip:acme/t-1",
/// "streamVersion":5,"eventId":"uuid","type":"TripCreated","data":{…},"metadata":{…},
/// "recordedTime":"2026-03-01T08:00:00.123456Z","hash":"hex"}`. `recordedTime` keeps
/// PostgreSQL's microseconds, so every hash can be recomputed from the file alone, and
/// `transactionId` with `globalPosition` gives the feed order the signed roots cover.
package struct EventExport: Sendable {
    package enum Format: String, Sendable, CaseIterable {
        case ndjson, csv
    }

    package var format: Format = .ndjson
    /// Only streams of this provider (`{category}:{provider}/…`); nil: every stream.
    package var provider: String?
    package var stream: String?
    /// Only events recorded at or after / before these times (microseconds since the Unix epoch).
    package var sinceMicros: Int64?
    package var untilMicros: Int64?
    /// Only streams of this category (`vehicle`, `trip`); nil: every category.
    package var category: String?

    package init(format: Format = .ndjson) {
        self.format = format
    }

    /// The `SELECT` of the rows, with the filters read from session settings set by `bindFilters`.
    var selectSQL: String {
        var conditions: [String] = []
        if provider != nil { conditions.append("split_part(split_part(stream_id, ':', 2), '/', 1) = current_setting('waymark.export_provider')") }
        if stream != nil { conditions.append("stream_id = current_setting('waymark.export_stream')") }
        if category != nil { conditions.append("category = current_setting('waymark.export_category')") }
        if sinceMicros != nil { conditions.append("recorded_at >= current_setting('waymark.export_since')::timestamptz") }
        if untilMicros != nil { conditions.append("recorded_at < current_setting('waymark.export_until')::timestamptz") }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let time = "to_char(recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"
        switch format {
        case .ndjson:
            return """
                SELECT json_build_object('globalPosition', global_position::text, 'transactionId', txid::text, 'streamId', stream_id,
                    'streamVersion', stream_version, 'eventId', event_id, 'type', event_type, 'data', data, 'metadata', metadata,
                    'recordedTime', \(time), 'hash', encode(hash, 'hex'))::text
                FROM events\(filter) ORDER BY events.txid, events.global_position
                """
        case .csv:
            return """
                SELECT global_position, txid::text AS transaction_id, stream_id, stream_version, event_id, event_type AS type, data, metadata,
                    \(time) AS recorded_time, encode(hash, 'hex') AS hash
                FROM events\(filter) ORDER BY events.txid, events.global_position
                """
        }
    }

    /// The COPY statement. NDJSON uses CSV mode with a quote and a delimiter that JSON text never
    /// contains unescaped (control characters), so each line arrives verbatim, with no COPY escaping to undo.
    var copySQL: String {
        switch format {
        case .ndjson: "COPY (\(selectSQL)) TO STDOUT WITH (FORMAT csv, DELIMITER E'\\x02', QUOTE E'\\x01')"
        case .csv: "COPY (\(selectSQL)) TO STDOUT WITH (FORMAT csv, HEADER)"
        }
    }

    private func bindFilters(on connection: Connection) throws {
        try connection.query("""
            SELECT set_config('waymark.export_provider', $1, false), set_config('waymark.export_stream', $2, false),
                   set_config('waymark.export_category', $3, false), set_config('waymark.export_since', $4, false),
                   set_config('waymark.export_until', $5, false)
            """, [provider ?? "", stream ?? "", category ?? "", sinceMicros.map(PostgresText.timestamp(microseconds:)) ?? "",
                  untilMicros.map(PostgresText.timestamp(microseconds:)) ?? ""])
    }

    /// Streams the export to `write` in chunks of about `chunkBytes`; `progress` gets the rows so
    /// far every 10,000 rows. Returns the number of events (the CSV header is not counted).
    package func run(on connection: Connection, chunkBytes: Int = 1 << 20, write: ([UInt8]) throws -> Void,
                     progress: (Int) -> Void = { _ in }) throws -> Int {
        try bindFilters(on: connection)
        var buffer = [UInt8]()
        buffer.reserveCapacity(chunkBytes + 4096)
        var rows = 0
        _ = try connection.copyOut(copySQL) { row in
            buffer.append(contentsOf: row)
            rows += 1
            if buffer.count >= chunkBytes {
                try write(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
            if rows % 10_000 == 0 { progress(rows) }
        }
        if !buffer.isEmpty { try write(buffer) }
        progress(rows)
        return format == .csv ? max(0, rows - 1) : rows
    }
}
