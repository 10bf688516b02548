-- Read-model documents are stored as `json`, not `jsonb`. No query looks inside them: every read
-- takes the whole document as text (`document::text`), and a projection rewrites a document whole.
-- `jsonb` made PostgreSQL parse each written document into its binary form and print it back on
-- every read, about a third of the cost of writing a row (3.5 µs of 12 for a vehicle record here);
-- `json` only checks that the text is JSON and keeps it as written. The writers write canonical
-- JSON (members sorted by key bytes, canonical numbers), so a rebuilt document is byte for byte
-- the live one, as it was when `jsonb` normalised them. Changing the type keeps the tables' fill
-- factor and vacuum settings but resets the column's compression, so lz4 is set again where this
-- PostgreSQL has it, as in migration 9.
DO $$
DECLARE
    name text;
BEGIN
    FOREACH name IN ARRAY ARRAY['rm_journey', 'rm_fleet', 'rm_route_audit', 'rm_driver_feed'] LOOP
        EXECUTE format('ALTER TABLE %I ALTER COLUMN document TYPE json USING document::json', name);
        BEGIN
            EXECUTE format('ALTER TABLE %I ALTER COLUMN document SET COMPRESSION lz4', name);
        EXCEPTION WHEN feature_not_supported THEN
            NULL;
        END;
    END LOOP;
END
$$;
