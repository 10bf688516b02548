import Foundation
import JSON
import Postgres
import Signing

/// Loads an NDJSON export (see `EventExport`) into an empty event store, keeping every event's
/// global position, stream version, id, recorded time and hash, then sets the stream heads,
/// the event-id index and the position sequence, and verifies every chain before committing.
///
/// The file is read in chunks and streamed with `COPY FROM STDIN` into a temporary table, so
/// memory stays bounded by a chunk. Everything happens in one transaction: a file that does
/// not parse, or whose chains do not verify, leaves the database as empty as it was. All
/// imported events share the import's transaction id, so the new feed order is global-position
/// order (the exported `transactionId`s are not kept: they name transactions of another cluster).
package struct EventImport: Sendable {
    /// What a finished import did.
    package struct Report: Sendable {
        package var events = 0
        package var streams = 0
        package var verification = ChainVerification()
    }

    package init() {}

    /// Imports from `read`, which returns the next chunk of the file (empty at the end).
    /// `progress` gets the number of lines loaded so far.
    package func run(on connection: Connection, read: () throws -> [UInt8], progress: (Int) -> Void = { _ in }) throws -> Report {
        try connection.withTransaction { connection in
            try connection.execute("LOCK TABLE streams, event_ids IN EXCLUSIVE MODE")
            let occupied = try connection.query("SELECT EXISTS (SELECT 1 FROM events) OR EXISTS (SELECT 1 FROM streams)").first?.bool(0) ?? true
            guard !occupied else { throw EventStoreError(.invalidEvent, "import needs an empty event store: this database already holds events") }
            try connection.execute("""
                CREATE TEMPORARY TABLE import_events (
                    global_position bigint, stream_id text, stream_version bigint, event_id uuid, event_type text,
                    data jsonb, metadata jsonb, recorded_at timestamptz, hash bytea, payload_hash bytea
                ) ON COMMIT DROP
                """)
            var lines = 0
            try connection.copyIn("COPY import_events FROM STDIN") { send in
                var out = [UInt8]()
                out.reserveCapacity(1 << 20)
                try NDJSONLines.forEach(read: read) { bytes in
                    lines += 1
                    try Self.appendRow(Array(bytes), line: lines, into: &out)
                    if out.count >= 1 << 20 {
                        try send(out)
                        out.removeAll(keepingCapacity: true)
                        progress(lines)
                    }
                }
                if !out.isEmpty { try send(out) }
                progress(lines)
            }
            try connection.execute("ANALYZE import_events")
            try connection.execute("""
                SELECT waymark_ensure_vehicle_partition(day) FROM (
                    SELECT DISTINCT (recorded_at AT TIME ZONE 'UTC')::date AS day FROM import_events WHERE split_part(stream_id, ':', 1) = 'vehicle'
                ) days
                """)
            try connection.execute("""
                INSERT INTO events (global_position, category, stream_id, stream_version, event_id, event_type, data, metadata, recorded_at, hash)
                SELECT global_position, split_part(stream_id, ':', 1), stream_id, stream_version, event_id, event_type, data, metadata, recorded_at, hash
                FROM import_events ORDER BY global_position
                """)
            try connection.execute("""
                INSERT INTO event_ids (event_id, stream_id, stream_version, global_position, payload_hash, recorded_at)
                SELECT event_id, stream_id, stream_version, global_position, payload_hash, recorded_at FROM import_events
                """)
            let streams = try connection.query("""
                INSERT INTO streams (stream_id, category, version, last_hash, created_at, updated_at)
                SELECT DISTINCT ON (stream_id) stream_id, split_part(stream_id, ':', 1), stream_version, hash,
                       min(recorded_at) OVER (PARTITION BY stream_id), recorded_at
                FROM import_events ORDER BY stream_id, stream_version DESC
                """).affectedRows
            try connection.execute("SELECT setval('events_global_position_seq', greatest((SELECT max(global_position) FROM events), 1))")
            var report = Report(events: lines, streams: streams)
            report.verification = try ChainVerifier().run(on: connection)
            if !report.verification.breaks.isEmpty {
                let first = report.verification.breaks.prefix(5).map(\.description).joined(separator: "; ")
                throw EventStoreError(.invalidEvent, "the file's hash chains do not verify (\(report.verification.breaks.count) broken streams; nothing imported): \(first)")
            }
            return report
        }
    }

    /// Parses one NDJSON line and appends its row in COPY text format.
    static func appendRow(_ bytes: [UInt8], line: Int, into out: inout [UInt8]) throws {
        func bad(_ what: String) -> EventStoreError { EventStoreError(.invalidEvent, "line \(line): \(what)") }
        let value: JSONValue
        do { value = try JSONValue.parse(bytes) } catch { throw bad("not valid JSON (\(error))") }
        guard case .object = value else { throw bad("not a JSON object") }
        func text(_ name: String) throws -> String {
            guard case .string(let s)? = value[name] else { throw bad("\(name) must be a string") }
            return s
        }
        let position = try text("globalPosition")
        guard Int64(position) != nil else { throw bad("globalPosition must be a whole number in a string") }
        let streamId = try text("streamId")
        guard let version = value["streamVersion"]?.int64Value, version >= 1 else { throw bad("streamVersion must be a whole number ≥ 1") }
        let eventId = try text("eventId")
        guard UUID(uuidString: eventId) != nil else { throw bad("eventId must be a UUID") }
        let type = try text("type")
        guard let data = value["data"], let metadata = value["metadata"] else { throw bad("data and metadata are required") }
        let recorded = try text("recordedTime")
        let hash = try text("hash")
        guard hash.utf8.count == 64, hash.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
            throw bad("hash must be 64 lowercase hex digits")
        }
        let canonicalData = data.canonicalBytes()
        let payloadHash = HashChain.payloadHash(streamId: streamId, type: type, canonicalData: canonicalData)
        let tab = UInt8(ascii: "\t")
        out.append(contentsOf: position.utf8); out.append(tab)
        PostgresText.appendCopyField(streamId, into: &out); out.append(tab)
        out.append(contentsOf: String(version).utf8); out.append(tab)
        out.append(contentsOf: eventId.utf8); out.append(tab)
        PostgresText.appendCopyField(type, into: &out); out.append(tab)
        PostgresText.appendCopyField(canonicalData, into: &out); out.append(tab)
        PostgresText.appendCopyField(metadata.canonicalBytes(), into: &out); out.append(tab)
        PostgresText.appendCopyField(recorded, into: &out); out.append(tab)
        out.append(contentsOf: "\\\\x".utf8); out.append(contentsOf: hash.utf8); out.append(tab)
        out.append(contentsOf: "\\\\x".utf8); out.append(contentsOf: Digest.hex(payloadHash).utf8)
        out.append(UInt8(ascii: "\n"))
    }
}
