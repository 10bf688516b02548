#!/usr/bin/env bash
# The fault tests (docs/operations.md: Faults survived): the server killed with SIGKILL under load, PostgreSQL
# stopped for 10 s under load. Builds (warnings are errors), starts a private PostgreSQL cluster for
# the crash test (the outage test starts and stops one of its own), runs them, stops the cluster
# again if this script started it. Kept out of scripts/test.sh: they kill processes on purpose.
set -euo pipefail
cd "$(dirname "$0")/.."

swift build --build-tests -Xswiftc -warnings-as-errors

BIN="$PWD/.build/debug/waymark"
DIR="${WAYMARK_TEST_DATA_DIR:-/tmp/waymark-test-faults-$(id -u)/pg}"
started=0
if ! "$BIN" db status --data-dir "$DIR" >/dev/null 2>&1; then
    "$BIN" db start --data-dir "$DIR" >/dev/null
    started=1
fi
URL="$("$BIN" db url --data-dir "$DIR")"
cleanup() {
    if [ "$started" = 1 ]; then "$BIN" db stop --data-dir "$DIR" >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT

export WAYMARK_TEST_DATABASE_URL="$URL"
export WAYMARK_TEST_KEEP_DATABASES=0
export WAYMARK_BIN="$BIN"
swift test --skip-build --filter 'FaultTests|aRiderWhoNeverReadsIsDropped'
