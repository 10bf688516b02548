import Foundation
import JSON
import Postgres

extension EventStore {
    /// The stored events with the given ids (in no particular order); ids not stored are left out.
    ///
    /// For answering retries: a writer that supplies its own event ids can ask which of them are
    /// already stored, and as what, before it decides anything again. Each id is found through
    /// `event_ids` and its event read from its own partition (one index probe each), so the cost
    /// grows with the number of ids, not with the log.
    package func readEvents(ids: [UUID]) async throws(EventStoreError) -> [RecordedEvent] {
        guard !ids.isEmpty else { return [] }
        do {
            return try await pool.withConnection { connection in
                try Self.events(connection, Self.eventsByIdSQL, [PostgresText.arrayLiteral(ids.map(\.lowercasedText))])
            }
        } catch {
            throw EventStoreError.wrapping(error, "read events by id")
        }
    }

    /// `$1` (a `uuid[]`) joined to the `event_ids` rows of those ids, as `i`: each id probed on its
    /// own through the primary key. `OFFSET 0` keeps the planner from flattening the probe into a
    /// hash join over the whole table, which it chose for a `= ANY` of 500 ids as for a join (~20 ms
    /// a request at 200,000 ids, growing with the log). Used here and by the committers' locking path.
    static let eventIdProbeSQL = """
        unnest($1::uuid[]) AS q(event_id)
        CROSS JOIN LATERAL (SELECT * FROM event_ids WHERE event_id = q.event_id OFFSET 0) i
        """

    /// `$1` the ids. The lateral subquery names category, stream, version and recorded time, so
    /// each probe is pruned to one partition and answered by its `(stream_id, stream_version)` index.
    static let eventsByIdSQL = """
        SELECT e.* FROM \(eventIdProbeSQL)
        CROSS JOIN LATERAL (
            SELECT \(columns) FROM events
            WHERE category = split_part(i.stream_id, ':', 1) AND stream_id = i.stream_id
              AND stream_version = i.stream_version AND recorded_at = i.recorded_at
        ) e
        """
}

extension EventStore {
    /// The feed position of the last event committed so far (`.start` when there is none), for
    /// measuring how far a reader of the feed is behind (the benchmarks' lag samples).
    ///
    /// One backward step of the `(txid, global_position)` index. The text of `txid` must not be
    /// named `txid` (see `columns`): the bench's copy of this query named it so, and each sample
    /// sorted the whole table by the text, about 150 ms of three processes' CPU at 240,000 events.
    package func head() async throws(EventStoreError) -> FeedPosition {
        do {
            guard let row = try await pool.query(Self.headSQL).first else { return .start }
            return FeedPosition(transactionId: try row.uint64(0), globalPosition: try row.int64(1))
        } catch {
            throw EventStoreError.wrapping(error, "read the head of the feed")
        }
    }

    static let headSQL = "SELECT txid::text AS head_txid, global_position FROM events ORDER BY txid DESC, global_position DESC LIMIT 1"
}
