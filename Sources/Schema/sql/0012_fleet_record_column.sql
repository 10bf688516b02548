-- The fleet projection rewrites a Vehicle resource and the record it is rendered from at every
-- location report (and a Trip with its record at every trip change). Each record now rides in a
-- `record` column of its resource's row (ReadModelTable.companions), so a report upserts one row,
-- not two. A row may hold a record without a resource, so `document` may be NULL; readers skip
-- such rows.
ALTER TABLE rm_fleet ALTER COLUMN document DROP NOT NULL;
ALTER TABLE rm_fleet ADD COLUMN record json;

DO $$
BEGIN
    ALTER TABLE rm_fleet ALTER COLUMN record SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
    NULL;
END
$$;

INSERT INTO rm_fleet (collection, key, document, record)
SELECT CASE collection WHEN 'vehicle_states' THEN 'vehicles' ELSE 'trips' END, key, NULL, document
FROM rm_fleet WHERE collection IN ('vehicle_states', 'trip_states')
ON CONFLICT (collection, key) DO UPDATE SET record = excluded.record;

DELETE FROM rm_fleet WHERE collection IN ('vehicle_states', 'trip_states');
