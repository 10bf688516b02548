-- Tamper evidence over the global feed, and anchors that keep stream chains verifiable after
-- old vehicle partitions are archived.
--
-- audit_roots: signed checkpoints of the gap-safe feed. Root n covers the events after root n-1's
-- last feed position up to and including its own (in (txid, global_position) order, only ever
-- below the oldest running transaction, so the range can no longer change):
--     root(n) = HMAC-SHA256(key, "waymark.audit-root.v1" ‖ root(n-1) ‖ u64be(n) ‖ u64be(last txid)
--                               ‖ i64be(last position) ‖ u64be(event count) ‖ each event's hash)
-- with 32 zero bytes for root(0). One writer wins each number (primary key); rows are append-only.
CREATE TABLE audit_roots (
    root_number    bigint      PRIMARY KEY CHECK (root_number >= 1),
    first_txid     xid8        NOT NULL,
    first_position bigint      NOT NULL,
    last_txid      xid8        NOT NULL,
    last_position  bigint      NOT NULL,
    event_count    bigint      NOT NULL CHECK (event_count >= 1),
    previous_root  bytea       NOT NULL CHECK (length(previous_root) = 32),
    root           bytea       NOT NULL CHECK (length(root) = 32),
    created_at     timestamptz NOT NULL
);

-- audit_anchors: for a stream whose oldest events were archived, the last archived version and
-- its hash; `waymark verify` continues the chain from here.
CREATE TABLE audit_anchors (
    stream_id      text        PRIMARY KEY,
    stream_version bigint      NOT NULL CHECK (stream_version >= 1),
    hash           bytea       NOT NULL CHECK (length(hash) = 32),
    archived_at    timestamptz NOT NULL
);

CREATE TRIGGER audit_roots_append_only BEFORE UPDATE OR DELETE ON audit_roots
    FOR EACH ROW EXECUTE FUNCTION waymark_forbid_event_change();
CREATE TRIGGER audit_roots_no_truncate BEFORE TRUNCATE ON audit_roots
    FOR EACH STATEMENT EXECUTE FUNCTION waymark_forbid_event_change();

REVOKE ALL ON audit_roots, audit_anchors FROM PUBLIC;
GRANT SELECT, INSERT ON audit_roots TO waymark_app;
GRANT SELECT ON audit_anchors TO waymark_app;

-- audit_archives: each `waymark archive` run: which daily vehicle partitions it dropped (all
-- events recorded before `cutoff`), where it wrote them, and the feed range they spanned (a
-- signed root overlapping that range can only be rechecked with the archive file).
CREATE TABLE audit_archives (
    archive_id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    cutoff              timestamptz NOT NULL,
    file                text        NOT NULL,
    event_count         bigint      NOT NULL,
    first_txid          xid8        NOT NULL,
    first_position      bigint      NOT NULL,
    last_txid           xid8        NOT NULL,
    last_position       bigint      NOT NULL,
    partitions          text[]      NOT NULL,
    archived_at         timestamptz NOT NULL
);
REVOKE ALL ON audit_archives FROM PUBLIC;
GRANT SELECT ON audit_archives TO waymark_app;
