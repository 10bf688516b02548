-- Read-model documents are stored as `text`, not `json`. No query looks inside them (every read
-- takes the whole document as text), and every document is written by our own canonical JSON
-- writer and parsed by the reader that loads it, so PostgreSQL's check that the text is JSON
-- only cost time: about 2.5 µs per kilobyte-sized document here, a fifth of an upsert's cost,
-- paid twice per location report by the fleet (resource and record) and once by the journey.
-- An ad-hoc query that looks inside casts the column (`document::json ->> 'name'`). The change
-- keeps fill factor and vacuum settings but resets the columns' compression, so lz4 is set again
-- where this PostgreSQL has it, as in migrations 9 and 10.
DO $$
DECLARE
    name text;
    col text;
BEGIN
    FOREACH name IN ARRAY ARRAY['rm_journey', 'rm_fleet', 'rm_route_audit', 'rm_driver_feed'] LOOP
        FOREACH col IN ARRAY CASE WHEN name = 'rm_fleet' THEN ARRAY['document', 'record'] ELSE ARRAY['document'] END LOOP
            EXECUTE format('ALTER TABLE %I ALTER COLUMN %I TYPE text', name, col);
            BEGIN
                EXECUTE format('ALTER TABLE %I ALTER COLUMN %I SET COMPRESSION lz4', name, col);
            EXCEPTION WHEN feature_not_supported THEN
                NULL;
            END;
        END LOOP;
    END LOOP;
END
$$;
