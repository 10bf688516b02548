-- The event log: one logical table, one global feed, stored in two separately tuned shapes.
--   events_main     trip and other low-volume streams, kept forever, unique (stream_id, stream_version)
--   events_vehicle  vehicle streams (telemetry), sub-partitioned by day on recorded_at so old days
--                   can be archived by detaching and dropping whole partitions.
-- Feed order is (txid, global_position), read only below the oldest running transaction
-- (pg_snapshot_xmin), so a reader never skips an event that commits late with a lower position.

-- The server's role may read and append events but never change or delete them.
DO $$
BEGIN
    CREATE ROLE waymark_app NOLOGIN;
EXCEPTION
    WHEN duplicate_object OR unique_violation THEN NULL;  -- roles are cluster-wide; another database made it
END
$$;

CREATE SEQUENCE events_global_position_seq AS bigint;

CREATE TABLE streams (
    stream_id   text        PRIMARY KEY,
    category    text        NOT NULL,
    version     bigint      NOT NULL CHECK (version >= 1),
    last_hash   bytea       NOT NULL CHECK (length(last_hash) = 32),
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL
);

CREATE TABLE events (
    global_position bigint      NOT NULL DEFAULT nextval('events_global_position_seq'),
    txid            xid8        NOT NULL DEFAULT pg_current_xact_id(),
    category        text        NOT NULL,
    stream_id       text        NOT NULL,
    stream_version  bigint      NOT NULL CHECK (stream_version >= 1),
    event_id        uuid        NOT NULL,
    event_type      text        NOT NULL,
    data            jsonb       NOT NULL,
    metadata        jsonb       NOT NULL,
    recorded_at     timestamptz NOT NULL,
    hash            bytea       NOT NULL CHECK (length(hash) = 32)
) PARTITION BY LIST (category);

CREATE TABLE events_vehicle PARTITION OF events FOR VALUES IN ('vehicle') PARTITION BY RANGE (recorded_at);
CREATE TABLE events_main PARTITION OF events DEFAULT;

-- Feed reads in (txid, global_position) order, on every partition.
CREATE INDEX events_feed_idx ON events (txid, global_position);
-- Lookups by position (history paging, answers to idempotent retries).
CREATE INDEX events_position_idx ON events (global_position);
-- Stream reads; on the trip side also the backstop against two events with one version.
CREATE UNIQUE INDEX events_main_stream_version_key ON events_main (stream_id, stream_version);
-- (daily vehicle partitions get their own unique (stream_id, stream_version) index when created)

ALTER TABLE events_main SET (autovacuum_vacuum_insert_threshold = 10000, autovacuum_analyze_threshold = 10000);

-- Event-id dedupe lives apart from the events: a unique index cannot span time partitions.
CREATE TABLE event_ids (
    event_id        uuid        PRIMARY KEY,
    stream_id       text        NOT NULL,
    stream_version  bigint      NOT NULL,
    global_position bigint      NOT NULL,
    payload_hash    bytea       NOT NULL,
    recorded_at     timestamptz NOT NULL
);

-- Creates the daily partition of vehicle events for `day` (UTC) if it does not exist yet.
CREATE FUNCTION waymark_ensure_vehicle_partition(day date) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
    name text := 'events_vehicle_' || to_char(day, 'YYYYMMDD');
BEGIN
    IF to_regclass(name) IS NULL THEN
        BEGIN
            EXECUTE format(
                'CREATE TABLE %I PARTITION OF events_vehicle FOR VALUES FROM (%L) TO (%L)',
                name, (day::timestamp AT TIME ZONE 'UTC'), ((day + 1)::timestamp AT TIME ZONE 'UTC'));
            EXECUTE format('CREATE UNIQUE INDEX %I ON %I (stream_id, stream_version)', name || '_stream_version_key', name);
            EXECUTE format('ALTER TABLE %I SET (autovacuum_vacuum_insert_threshold = 100000, autovacuum_analyze_threshold = 100000)', name);
        EXCEPTION WHEN duplicate_table THEN
            NULL;  -- made concurrently by another node
        END;
    END IF;
    RETURN name;
END
$$;

-- Append-only: no UPDATE, DELETE or TRUNCATE of events, even for the table's owner.
CREATE FUNCTION waymark_forbid_event_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'events are append-only: % on % is not allowed', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION waymark_forbid_event_change();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION waymark_forbid_event_change();

REVOKE ALL ON events, events_main, events_vehicle, streams, event_ids FROM PUBLIC;
GRANT SELECT, INSERT ON events TO waymark_app;
GRANT SELECT, INSERT, UPDATE ON streams TO waymark_app;
GRANT SELECT, INSERT ON event_ids TO waymark_app;
GRANT USAGE, SELECT ON SEQUENCE events_global_position_seq TO waymark_app;
GRANT EXECUTE ON FUNCTION waymark_ensure_vehicle_partition(date) TO waymark_app;
