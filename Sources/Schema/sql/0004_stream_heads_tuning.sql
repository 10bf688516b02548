-- Stream heads are rewritten on every append: keep free space on each page so the new row
-- version fits beside the old one (a HOT update: no index entry, pruned in place), and vacuum
-- and analyze after a fixed number of changes rather than a fraction of the table.
ALTER TABLE streams SET (
    fillfactor = 50,
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 5000,
    autovacuum_analyze_scale_factor = 0,
    autovacuum_analyze_threshold = 5000
);
ALTER TABLE event_ids SET (autovacuum_vacuum_insert_threshold = 100000, autovacuum_analyze_threshold = 100000);

-- No query looks events up by global position alone (the feed reads by (txid, global_position),
-- idempotent retries get positions from event_ids); the index only cost a write per event.
DROP INDEX events_position_idx;
