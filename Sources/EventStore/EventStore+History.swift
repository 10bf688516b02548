import Foundation
import Postgres

/// Which events of a stream a history read returns: by type and by recorded (server) time.
///
/// Every condition is optional; an empty filter selects the whole stream. The time bounds are
/// inclusive, in microseconds since the Unix epoch (PostgreSQL's precision), so an event recorded
/// exactly at a bound is selected.
package struct StreamFilter: Sendable, Hashable {
    /// Event types to return; nil: every type.
    package var types: [String]?
    /// Only events recorded at or after this instant.
    package var recordedFrom: Int64?
    /// Only events recorded at or before this instant.
    package var recordedThrough: Int64?

    package init(types: [String]? = nil, recordedFrom: Int64? = nil, recordedThrough: Int64? = nil) {
        self.types = types
        self.recordedFrom = recordedFrom
        self.recordedThrough = recordedThrough
    }

    /// The narrower of two filters: both type lists must admit a type, both time ranges the time.
    package func intersected(with other: StreamFilter) -> StreamFilter {
        let types: [String]? = switch (self.types, other.types) {
        case (nil, nil): nil
        case (let a?, nil): a
        case (nil, let b?): b
        case (let a?, let b?): a.filter(b.contains)
        }
        return StreamFilter(types: types, recordedFrom: [recordedFrom, other.recordedFrom].compactMap { $0 }.max(),
                            recordedThrough: [recordedThrough, other.recordedThrough].compactMap { $0 }.min())
    }

    /// True when no event can pass (an empty type list, or a range that ends before it starts).
    package var isEmpty: Bool {
        if let types, types.isEmpty { return true }
        if let recordedFrom, let recordedThrough, recordedFrom > recordedThrough { return true }
        return false
    }
}

extension EventStore {
    /// Events of `stream` after stream version `version` that pass `filter`, in stream order, at most `limit`.
    ///
    /// For history pages: the next page starts after the last version returned. The read walks the
    /// stream's `(stream_id, stream_version)` index; the time bounds also prune a vehicle stream to
    /// the daily partitions they cover, so a window of a long-lived vehicle's telemetry reads only
    /// those days.
    package func readStream(_ stream: String, after version: Int64, filter: StreamFilter, limit: Int = 1000) async throws(EventStoreError) -> [RecordedEvent] {
        if filter.isEmpty || limit <= 0 { return [] }
        var conditions = ["category = $1", "stream_id = $2", "stream_version > $3"]
        var parameters: [String?] = [PreparedAppend.category(of: stream), stream, String(version), String(limit)]
        if let types = filter.types {
            parameters.append(PostgresText.arrayLiteral(types))
            conditions.append("event_type = ANY($\(parameters.count)::text[])")
        }
        if let from = filter.recordedFrom {
            parameters.append(String(from))
            conditions.append("recorded_at >= 'epoch'::timestamptz + $\(parameters.count)::bigint * interval '1 microsecond'")
        }
        if let through = filter.recordedThrough {
            parameters.append(String(through))
            conditions.append("recorded_at <= 'epoch'::timestamptz + $\(parameters.count)::bigint * interval '1 microsecond'")
        }
        let bound = parameters
        let sql = "SELECT \(Self.columns) FROM events WHERE \(conditions.joined(separator: " AND ")) ORDER BY stream_version LIMIT $4"
        do {
            return try await pool.withConnection { connection in
                try Self.events(connection, sql, bound)
            }
        } catch {
            throw EventStoreError.wrapping(error, "read history of \(stream)")
        }
    }

    /// How many events of `stream` were recorded at or before `instant` (microseconds since the
    /// Unix epoch), without reading them.
    ///
    /// For bounding a replay before it reads: the last version recorded by then, less the first
    /// version still stored (older vehicle days may have been archived), plus one. Two index probes
    /// per partition, whatever the stream's length; the first probe filters by time only the rows
    /// of the instant's own day. Exact while a stream's recorded times grow with its versions (the
    /// committers' clock never goes back); a bound, not a promise, where they do not.
    package func eventCount(_ stream: String, recordedThrough instant: Int64) async throws(EventStoreError) -> Int64 {
        let sql = """
            SELECT COALESCE((SELECT stream_version FROM events
                             WHERE category = $1 AND stream_id = $2
                               AND recorded_at <= 'epoch'::timestamptz + $3::bigint * interval '1 microsecond'
                             ORDER BY stream_version DESC LIMIT 1)
                            - (SELECT stream_version FROM events WHERE category = $1 AND stream_id = $2
                               ORDER BY stream_version LIMIT 1) + 1, 0)
            """
        do {
            let result = try await pool.query(sql, [PreparedAppend.category(of: stream), stream, String(instant)])
            return try result.first?.int64(0) ?? 0
        } catch {
            throw EventStoreError.wrapping(error, "count events of \(stream)")
        }
    }

    /// Every event of `stream` that passes `filter`, in stream order, read page by page.
    ///
    /// For replays that need a stream's whole past (time travel); memory grows with the result.
    package func readWholeStream(_ stream: String, filter: StreamFilter = StreamFilter(), pageSize: Int = 5000) async throws(EventStoreError) -> [RecordedEvent] {
        var events: [RecordedEvent] = []
        var after: Int64 = 0
        while true {
            let page = try await readStream(stream, after: after, filter: filter, limit: pageSize)
            events += page
            guard page.count == pageSize, let last = page.last else { return events }
            after = last.streamVersion
        }
    }
}
