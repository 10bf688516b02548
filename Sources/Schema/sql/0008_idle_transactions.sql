-- The event feed is read only below the oldest running transaction, so a session left idle
-- inside a transaction anywhere on this database would hold every projection back for as long
-- as it stays open. Sessions of this database end such a transaction after a minute.
-- (Change it with ALTER DATABASE ... SET idle_in_transaction_session_timeout; a role without
-- the right to alter the database keeps the server's setting, and /readyz warns instead.)
DO $$
BEGIN
    EXECUTE format('ALTER DATABASE %I SET idle_in_transaction_session_timeout = %L', current_database(), '60s');
EXCEPTION
    WHEN insufficient_privilege THEN
        RAISE NOTICE 'idle_in_transaction_session_timeout not set: only the database owner may set it';
END
$$;

-- The server (as waymark_app) reports the age of the oldest open transaction in /metrics and
-- /readyz; other roles' sessions show their transaction start only to readers of all statistics.
DO $$
BEGIN
    GRANT pg_read_all_stats TO waymark_app;
EXCEPTION
    WHEN unique_violation THEN
        NULL;  -- role membership is cluster-wide: another database's migration granted it at the same moment
    WHEN insufficient_privilege THEN
        RAISE NOTICE 'pg_read_all_stats not granted to waymark_app: the feed horizon metric sees only its own sessions';
END
$$;
