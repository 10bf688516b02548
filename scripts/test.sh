#!/usr/bin/env bash
# The whole test suite: build (warnings are errors), start a private PostgreSQL cluster, run every
# test against it, stop the cluster again if this script started it.
set -euo pipefail
cd "$(dirname "$0")/.."

swift build --build-tests -Xswiftc -warnings-as-errors

BIN="$PWD/.build/debug/waymark"
# Under /tmp so the unprivileged postgres user can always reach it, even when the checkout is not.
DIR="${WAYMARK_TEST_DATA_DIR:-/tmp/waymark-test-$(id -u)/pg}"
started=0
if ! "$BIN" db status --data-dir "$DIR" >/dev/null 2>&1; then
    "$BIN" db start --data-dir "$DIR" >/dev/null
    started=1
fi
URL="$("$BIN" db url --data-dir "$DIR")"
# Black-box API tests run many `waymark serve` processes at once (each holds about ten
# connections): give the test cluster room for them.
if [ "$(psql "$URL" -Atc 'SHOW max_connections')" -lt 1000 ]; then
    psql "$URL" -qc "ALTER SYSTEM SET max_connections = 1000" >/dev/null
    "$BIN" db stop --data-dir "$DIR" >/dev/null
    "$BIN" db start --data-dir "$DIR" >/dev/null
fi
# Tests keep their throwaway databases (see TestDatabase.dropsDatabases); they are dropped here,
# before and after the run, one at a time.
drop_test_databases() {
    psql "$URL" -Atc "SELECT datname FROM pg_database WHERE datname LIKE 'wm\_test\_%'" 2>/dev/null | while read -r name; do
        psql "$URL" -qc "DROP DATABASE IF EXISTS \"$name\" WITH (FORCE)" >/dev/null 2>&1 || true
    done
}
cleanup() {
    drop_test_databases
    if [ "$started" = 1 ]; then "$BIN" db stop --data-dir "$DIR" >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT
drop_test_databases

export WAYMARK_TEST_DATABASE_URL="$URL"
export WAYMARK_TEST_KEEP_DATABASES=1
export WAYMARK_BIN="$BIN"
# Three runs of the one test bundle, so that what disturbs timing stays apart: the HTTP module's
# tests (an in-process server, sensitive to a starved cooperative pool) first; then everything
# else in parallel; last the tests that hold one write transaction open for a long time (a whole
# import), which holds back every projection on the cluster while it runs. Every run happens;
# the script fails if any did. The fault tests (kill -9 of servers, a PostgreSQL of their own
# stopped; about 30 s together) run in the last run, away from the timing-sensitive ones;
# `make test-faults` runs them alone. The read-replica tests (a primary and a standby of their
# own, two servers, replay paused; about a minute and a half) run there too. The slow-client tests (2,000 streams, a reader that fills
# kernel buffers) run there too: they need the machine to themselves to fill buffers in time.
status=0
swift test --skip-build --filter 'HTTPTests\.' || status=1
swift test --skip-build --skip 'HTTPTests\.' --skip 'ExportImportTests|ArchiveCommandTests|FaultTests|SlowClientTests|ReadReplicaTests' || status=1
# The never-reading rider test still failed beside other load on the machine after it was made
# sturdier (its other rider missed the final update within 60 s): it runs in `make test-faults`.
swift test --skip-build --filter 'ExportImportTests|ArchiveCommandTests|FaultTests|SlowClientTests|ReadReplicaTests' --skip 'aRiderWhoNeverReadsIsDropped' || status=1
exit $status
