import Foundation
import JSON
import Postgres
import Signing

/// What a verification run saw.
package struct ChainVerification: Sendable {
    package var streams = 0
    package var events = 0
    /// The first break of each broken stream, in stream order.
    package var breaks: [ChainBreak] = []
}

/// Recomputes every stream's hash chain (see `HashChain`) from the stored rows and reports the
/// first broken link of each stream: an edited or swapped row (hash mismatch), a deleted row (a
/// gap in the versions), a deleted tail or a head row that disagrees with the events.
///
/// Reads the events in `(stream_id, stream_version)` order in keyset pages of `pageSize` rows,
/// each page its own statement: memory stays bounded by one page, and no transaction is held
/// open (a long one would hold back the xmin horizon, and with it every projection). Events
/// appended while it runs are either verified or left for the next run; they never cause a
/// false report. A stream whose oldest events were archived continues from its anchor
/// (`audit_anchors`).
package struct ChainVerifier: Sendable {
    /// Only this stream; nil: every stream.
    package var stream: String?
    /// Only events recorded at or after this time (microseconds since the Unix epoch); a
    /// stream's chain is then checked from the stored hash of the event before the first one.
    package var sinceMicros: Int64?
    package var pageSize = 5_000

    package init(stream: String? = nil, sinceMicros: Int64? = nil) {
        self.stream = stream
        self.sinceMicros = sinceMicros
    }

    /// The chain state of the stream being walked.
    private struct Cursor {
        let streamId: String
        var lastVersion: Int64
        var lastHash: [UInt8]
        var broken: Bool
    }

    /// Runs the verification on `connection`; `progress` gets the number of events read so far after each page.
    package func run(on connection: Connection, progress: (Int) -> Void = { _ in }) throws -> ChainVerification {
        var report = ChainVerification()
        var afterStream = ""
        var afterVersion: Int64 = 0
        var cursor: Cursor?
        while true {
            var sql = """
                SELECT stream_id, stream_version, event_id, event_type, data::text, metadata::text,
                       (extract(epoch FROM recorded_at) * 1000000)::bigint, hash
                FROM events WHERE (stream_id, stream_version) > ($1, $2::bigint)
                """
            var parameters: [String?] = [afterStream, String(afterVersion), String(pageSize)]
            if let stream {
                parameters.append(stream)
                sql += " AND stream_id = $\(parameters.count)"
            }
            if let sinceMicros {
                parameters.append(PostgresText.timestamp(microseconds: sinceMicros))
                sql += " AND recorded_at >= $\(parameters.count)::timestamptz"
            }
            sql += " ORDER BY stream_id, stream_version LIMIT $3"
            let rows = try connection.query(sql, parameters).rows
            if rows.isEmpty { break }
            for row in rows {
                let streamId = try row.string(0)
                let version = try row.int64(1)
                if cursor?.streamId != streamId {
                    if let finished = cursor { try finish(finished, on: connection, into: &report) }
                    report.streams += 1
                    cursor = try start(streamId, firstVersion: version, on: connection, into: &report)
                }
                report.events += 1
                guard var current = cursor, !current.broken else { continue }
                let found = try row.bytes(7)
                if version != current.lastVersion + 1 {
                    report.breaks.append(ChainBreak(streamId: streamId, version: current.lastVersion + 1, kind: .gap(found: version)))
                    current.broken = true
                } else {
                    let expected = HashChain.hash(
                        previous: current.lastHash, streamId: streamId, version: version, eventId: try row.uuid(2), type: try row.string(3),
                        canonicalData: try JSONValue.parse(try row.string(4)).canonicalBytes(),
                        canonicalMetadata: try JSONValue.parse(try row.string(5)).canonicalBytes(),
                        recordedAtMicros: try row.int64(6))
                    if expected != found {
                        report.breaks.append(ChainBreak(streamId: streamId, version: version, kind: .hashMismatch(expected: expected, found: found)))
                        current.broken = true
                    }
                    current.lastVersion = version
                    current.lastHash = found
                }
                cursor = current
            }
            afterStream = try rows[rows.count - 1].string(0)
            afterVersion = try rows[rows.count - 1].int64(1)
            progress(report.events)
            if rows.count < pageSize { break }
        }
        if let finished = cursor { try finish(finished, on: connection, into: &report) }
        if stream == nil && sinceMicros == nil {
            try headsWithoutEvents(on: connection, into: &report)
        }
        return report
    }

    /// The chain state before a stream's first row in this run: genesis for version 1, else the
    /// stored hash of the version before it (a `--since` run) or the stream's archive anchor.
    private func start(_ streamId: String, firstVersion: Int64, on connection: Connection, into report: inout ChainVerification) throws -> Cursor {
        if firstVersion == 1 { return Cursor(streamId: streamId, lastVersion: 0, lastHash: HashChain.genesis, broken: false) }
        let previous = try connection.query("""
            SELECT hash FROM events WHERE category = split_part($1, ':', 1) AND stream_id = $1 AND stream_version = $2
            UNION ALL
            SELECT hash FROM audit_anchors WHERE stream_id = $1 AND stream_version = $2
            LIMIT 1
            """, [streamId, String(firstVersion - 1)]).first
        if let previous {
            return Cursor(streamId: streamId, lastVersion: firstVersion - 1, lastHash: try previous.bytes(0), broken: false)
        }
        // Nothing stored before this row: unless an anchor sits further back (which is its own
        // gap), the versions from 1 (or after the anchor) are missing.
        let anchor = try connection.query("SELECT stream_version FROM audit_anchors WHERE stream_id = $1", [streamId]).first
        let missing = try anchor.map { try $0.int64(0) + 1 } ?? 1
        if sinceMicros != nil, anchor == nil {
            // The predecessor lies before the `--since` range and is gone: name the version right before the first one checked.
            report.breaks.append(ChainBreak(streamId: streamId, version: firstVersion - 1, kind: .gap(found: firstVersion)))
        } else {
            report.breaks.append(ChainBreak(streamId: streamId, version: missing, kind: .gap(found: firstVersion)))
        }
        return Cursor(streamId: streamId, lastVersion: firstVersion - 1, lastHash: [], broken: true)
    }

    /// Compares the end of a walked stream with its head row.
    private func finish(_ cursor: Cursor, on connection: Connection, into report: inout ChainVerification) throws {
        guard !cursor.broken else { return }
        let head = try connection.query("SELECT version, last_hash FROM streams WHERE stream_id = $1", [cursor.streamId]).first
        guard let head else {
            report.breaks.append(ChainBreak(streamId: cursor.streamId, version: cursor.lastVersion, kind: .headBehind(headVersion: nil)))
            return
        }
        let headVersion = try head.int64(0)
        if headVersion == cursor.lastVersion {
            let found = try head.bytes(1)
            if found != cursor.lastHash {
                report.breaks.append(ChainBreak(streamId: cursor.streamId, version: headVersion, kind: .headMismatch(expected: cursor.lastHash, found: found)))
            }
        } else if headVersion < cursor.lastVersion {
            report.breaks.append(ChainBreak(streamId: cursor.streamId, version: cursor.lastVersion, kind: .headBehind(headVersion: headVersion)))
        } else {
            // The head moved on: either events were appended after this run read the stream
            // (fine), or the stream's last events were deleted.
            let later = try connection.query("""
                SELECT count(*) FROM events WHERE category = split_part($1, ':', 1) AND stream_id = $1 AND stream_version > $2
                """, [cursor.streamId, String(cursor.lastVersion)]).first?.int64(0) ?? 0
            if later == 0 {
                report.breaks.append(ChainBreak(streamId: cursor.streamId, version: cursor.lastVersion + 1, kind: .missingTail(headVersion: headVersion)))
            }
        }
    }

    /// Streams whose head row exists but whose every event (and anchor) is gone.
    private func headsWithoutEvents(on connection: Connection, into report: inout ChainVerification) throws {
        let rows = try connection.query("""
            SELECT s.stream_id, s.version FROM streams s
            WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.category = s.category AND e.stream_id = s.stream_id)
              AND NOT EXISTS (SELECT 1 FROM audit_anchors a WHERE a.stream_id = s.stream_id)
            ORDER BY s.stream_id LIMIT 1000
            """).rows
        for row in rows {
            report.breaks.append(ChainBreak(streamId: try row.string(0), version: 1, kind: .missingTail(headVersion: try row.int64(1))))
        }
        // Streams archived whole: the anchor must be the head.
        let archived = try connection.query("""
            SELECT s.stream_id, s.version, s.last_hash, a.stream_version, a.hash FROM streams s JOIN audit_anchors a USING (stream_id)
            WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.category = s.category AND e.stream_id = s.stream_id)
              AND (a.stream_version <> s.version OR a.hash <> s.last_hash)
            ORDER BY s.stream_id LIMIT 1000
            """).rows
        for row in archived {
            let (head, anchor) = (try row.int64(1), try row.int64(3))
            if head == anchor {
                report.breaks.append(ChainBreak(streamId: try row.string(0), version: head, kind: .headMismatch(expected: try row.bytes(4), found: try row.bytes(2))))
            } else {
                report.breaks.append(ChainBreak(streamId: try row.string(0), version: anchor + 1, kind: .missingTail(headVersion: head)))
            }
        }
    }
}
