-- Projection checkpoints and read-model tables.
--
-- A projector writes its documents and advances its checkpoint in one transaction, guarded by the
-- checkpoint it read (fencing): if another runner moved it, the batch is abandoned.
CREATE TABLE projection_checkpoints (
    name            text        PRIMARY KEY,
    transaction_id  xid8        NOT NULL DEFAULT '0',
    global_position bigint      NOT NULL DEFAULT 0,
    events_applied  bigint      NOT NULL DEFAULT 0,
    generation      bigint      NOT NULL DEFAULT 0,   -- bumped by each rebuild swap
    updated_at      timestamptz NOT NULL DEFAULT now()
);

-- One table per projection: JSON documents addressed by (collection, key).
CREATE TABLE rm_journey     (collection text NOT NULL, key text NOT NULL, document jsonb NOT NULL, PRIMARY KEY (collection, key));
CREATE TABLE rm_fleet       (collection text NOT NULL, key text NOT NULL, document jsonb NOT NULL, PRIMARY KEY (collection, key));
CREATE TABLE rm_route_audit (collection text NOT NULL, key text NOT NULL, document jsonb NOT NULL, PRIMARY KEY (collection, key));

GRANT SELECT, INSERT, UPDATE ON projection_checkpoints TO waymark_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON rm_journey, rm_fleet, rm_route_audit TO waymark_app;
