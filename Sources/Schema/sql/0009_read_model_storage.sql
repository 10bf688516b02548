-- Read models rewrite a document for every vehicle and trip that changed in a batch: under
-- location reports, each vehicle's document several times a second. Keep free space on each page
-- so the new version fits beside the old one (a HOT update: no new index entry, the old version
-- pruned in place) instead of adding a primary-key entry per update that bottom-up index
-- deletion and vacuum must clean up later; vacuum after a fixed number of changes.
ALTER TABLE rm_journey SET (fillfactor = 70, autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 10000);
ALTER TABLE rm_fleet SET (fillfactor = 70, autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 10000);
ALTER TABLE rm_route_audit SET (fillfactor = 70, autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 10000);
ALTER TABLE rm_driver_feed SET (fillfactor = 70, autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 10000);

-- Documents large enough to be compressed (route audits, journey views with long polylines)
-- are compressed with lz4, several times cheaper than the default pglz to write and to read, when
-- this PostgreSQL was built with lz4 (Debian's and the official images are); else pglz stays.
DO $$
BEGIN
    ALTER TABLE rm_journey ALTER COLUMN document SET COMPRESSION lz4;
    ALTER TABLE rm_fleet ALTER COLUMN document SET COMPRESSION lz4;
    ALTER TABLE rm_route_audit ALTER COLUMN document SET COMPRESSION lz4;
    ALTER TABLE rm_driver_feed ALTER COLUMN document SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
    NULL;
END
$$;
