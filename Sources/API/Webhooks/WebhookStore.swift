import EventStore
import Foundation
import JSON
import Postgres

/// The `webhook_subscriptions` table: subscriptions and their delivery state.
///
/// Every change made through the API bumps `generation`; `saveProgress` writes only while the
/// generation it was given is current, so a dispatcher that read an older row never overwrites a
/// resume, a replay or a deletion.
package struct WebhookStore: Sendable {
    let pool: ConnectionPool

    package init(pool: ConnectionPool) {
        self.pool = pool
    }

    static let columns = """
        provider, id, url, secret, array_to_json(event_types)::text, array_to_json(trip_ids)::text, array_to_json(vehicle_ids)::text,
        (extract(epoch FROM created_at) * 1000000)::bigint, transaction_id, global_position, generation, paused, consecutive_failures,
        last_error, (extract(epoch FROM last_attempt_at) * 1000000)::bigint, (extract(epoch FROM last_delivered_at) * 1000000)::bigint,
        delivered_events
        """

    static func decode(_ row: Row) throws -> WebhookSubscription {
        func strings(_ index: Int) throws -> [String] {
            try JSONValue.parse(Array(try row.string(index).utf8)).arrayValue?.compactMap(\.stringValue) ?? []
        }
        return WebhookSubscription(
            provider: try row.string(0), id: try row.string(1), url: try row.string(2), secret: try row.string(3),
            eventTypes: try strings(4), tripIds: try strings(5), vehicleIds: try strings(6), createdAtMicros: try row.int64(7),
            checkpoint: FeedPosition(transactionId: try row.uint64(8), globalPosition: try row.int64(9)), generation: try row.int64(10),
            paused: try row.bool(11), consecutiveFailures: Int(try row.int64(12)), lastError: row[13],
            lastAttemptAtMicros: row[14].flatMap { Int64($0) }, lastDeliveredAtMicros: row[15].flatMap { Int64($0) },
            deliveredEvents: try row.int64(16))
    }

    /// A PostgreSQL array literal of `values` (each quoted and escaped).
    static func arrayLiteral(_ values: [String]) -> String {
        "{" + values.map { "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }.joined(separator: ",") + "}"
    }

    /// Stores a new subscription starting at the head of the feed; nil when the id is taken.
    ///
    /// The head is the last event below the oldest running transaction: anything committed later
    /// sorts after it in the feed, so the subscription sees every event from its creation on.
    package func create(_ subscription: WebhookSubscription) async throws -> WebhookSubscription? {
        let s = subscription
        return try await pool.withConnection { connection in
            let row = try connection.query("""
                WITH head AS (
                    SELECT txid::text::bigint AS t, global_position AS p FROM events
                    WHERE txid < pg_snapshot_xmin(pg_current_snapshot())
                    ORDER BY txid DESC, global_position DESC LIMIT 1)
                INSERT INTO webhook_subscriptions (provider, id, url, secret, event_types, trip_ids, vehicle_ids, transaction_id, global_position)
                VALUES ($1, $2, $3, $4, $5::text[], $6::text[], $7::text[], COALESCE((SELECT t FROM head), 0), COALESCE((SELECT p FROM head), 0))
                ON CONFLICT (provider, id) DO NOTHING
                RETURNING \(Self.columns)
                """, [s.provider, s.id, s.url, s.secret, Self.arrayLiteral(s.eventTypes), Self.arrayLiteral(s.tripIds), Self.arrayLiteral(s.vehicleIds)]).first
            return try row.map(Self.decode)
        }
    }

    package func list(provider: String) async throws -> [WebhookSubscription] {
        try await pool.withConnection { connection in
            try connection.query("SELECT \(Self.columns) FROM webhook_subscriptions WHERE provider = $1 ORDER BY created_at, id", [provider]).rows.map(Self.decode)
        }
    }

    package func get(provider: String, id: String) async throws -> WebhookSubscription? {
        try await pool.withConnection { connection in
            try connection.query("SELECT \(Self.columns) FROM webhook_subscriptions WHERE provider = $1 AND id = $2", [provider, id]).first.map(Self.decode)
        }
    }

    /// Every subscription of every provider (the dispatcher's view).
    package func all() async throws -> [WebhookSubscription] {
        try await pool.withConnection { connection in
            try connection.query("SELECT \(Self.columns) FROM webhook_subscriptions ORDER BY provider, id").rows.map(Self.decode)
        }
    }

    /// Deletes a subscription; false when there was none.
    package func delete(provider: String, id: String) async throws -> Bool {
        try await pool.withConnection { connection in
            try connection.query("DELETE FROM webhook_subscriptions WHERE provider = $1 AND id = $2", [provider, id]).affectedRows == 1
        }
    }

    /// Unpauses a subscription: delivery continues from its checkpoint. nil when there is none.
    package func resume(provider: String, id: String) async throws -> WebhookSubscription? {
        try await pool.withConnection { connection in
            try connection.query("""
                UPDATE webhook_subscriptions SET paused = false, consecutive_failures = 0, generation = generation + 1
                WHERE provider = $1 AND id = $2 RETURNING \(Self.columns)
                """, [provider, id]).first.map(Self.decode)
        }
    }

    /// Moves the checkpoint back so delivery starts again at global position `fromPosition`, and unpauses.
    ///
    /// The feed is ordered by (transaction id, position): the new checkpoint is just before the
    /// event at `fromPosition` (or the first one after it) within its transaction, so every event at
    /// or after that position is delivered again, with events of later transactions that hold lower
    /// positions (at least once, never fewer). nil when there is no such subscription.
    package func replay(provider: String, id: String, fromPosition: Int64) async throws -> WebhookSubscription? {
        try await pool.withConnection { connection in
            try connection.query("""
                WITH start AS (
                    SELECT txid::text::bigint AS t, global_position AS p FROM events
                    WHERE global_position >= $3::bigint ORDER BY global_position LIMIT 1)
                UPDATE webhook_subscriptions SET paused = false, consecutive_failures = 0, generation = generation + 1,
                    transaction_id = COALESCE((SELECT t FROM start), transaction_id),
                    global_position = COALESCE((SELECT p - 1 FROM start), global_position)
                WHERE provider = $1 AND id = $2 RETURNING \(Self.columns)
                """, [provider, id, String(fromPosition)]).first.map(Self.decode)
        }
    }

    /// What a delivery run changed.
    package struct Progress: Sendable {
        var checkpoint: FeedPosition
        var delivered: Int64
        var paused: Bool
        var consecutiveFailures: Int
        var lastError: String?
        var attempted: Bool
        var deliveredAny: Bool
    }

    /// Writes the dispatcher's progress if `generation` is still current; false when the row changed or is gone.
    package func saveProgress(provider: String, id: String, generation: Int64, _ progress: Progress) async throws -> Bool {
        try await pool.withConnection { connection in
            try connection.query("""
                UPDATE webhook_subscriptions SET transaction_id = $4::bigint, global_position = $5::bigint,
                    delivered_events = delivered_events + $6::bigint, paused = $7::boolean, consecutive_failures = $8::integer,
                    last_error = CASE WHEN $9::text IS NULL AND $7::boolean = false AND $8::integer = 0 THEN last_error ELSE $9::text END,
                    last_attempt_at = CASE WHEN $10::boolean THEN now() ELSE last_attempt_at END,
                    last_delivered_at = CASE WHEN $11::boolean THEN now() ELSE last_delivered_at END
                WHERE provider = $1 AND id = $2 AND generation = $3::bigint
                """, [provider, id, String(generation), String(progress.checkpoint.transactionId), String(progress.checkpoint.globalPosition),
                      String(progress.delivered), progress.paused ? "true" : "false", String(progress.consecutiveFailures), progress.lastError,
                      progress.attempted ? "true" : "false", progress.deliveredAny ? "true" : "false"]).affectedRows == 1
        }
    }

    /// The highest global position in the log (for lag), 0 when empty.
    package func headPosition() async throws -> Int64 {
        try await pool.withConnection { connection in
            try connection.query("SELECT COALESCE(max(global_position), 0) FROM events").first?.int64(0) ?? 0
        }
    }
}
