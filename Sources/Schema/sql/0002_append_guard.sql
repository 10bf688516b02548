-- The one-round-trip append path updates stream heads it has cached, guarded by their old
-- versions, and asserts that every guarded update matched. A mismatch means another writer moved
-- a head first: the whole transaction is aborted (SQLSTATE 40001) and retried on the locking path.
CREATE FUNCTION waymark_expect_count(actual bigint, expected bigint) RETURNS bigint
LANGUAGE plpgsql AS $$
BEGIN
    IF actual <> expected THEN
        RAISE EXCEPTION 'stream heads moved: % of % guarded updates matched', actual, expected
            USING ERRCODE = 'serialization_failure';
    END IF;
    RETURN actual;
END
$$;
GRANT EXECUTE ON FUNCTION waymark_expect_count(bigint, bigint) TO waymark_app;
