#!/usr/bin/env bash
# `make test-browser`: serves the demo with a simulated fleet on a private PostgreSQL cluster and
# checks the rider's page in headless Chromium (scripts/browser_check.py). Not part of `make test`.
# Screenshots go to $BROWSER_TEST_OUT (default /tmp/waymark-browser-<uid>/shots).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${WAYMARK_BIN:-.build/debug/waymark}
ROOT=${BROWSER_TEST_DIR:-/tmp/waymark-browser-$(id -u)}
DATA="$ROOT/pg"
OUT=${BROWSER_TEST_OUT:-$ROOT/shots}
mkdir -p "$ROOT"
"$BIN" db start --data-dir "$DATA" >/dev/null
URL=$("$BIN" db url --data-dir "$DATA")
DB="browser_$$"
psql "$URL" -qc "CREATE DATABASE $DB" >/dev/null
DB_URL=${URL/\/postgres\?/\/$DB?}
LOG="$ROOT/serve.log"
DATABASE_URL="$DB_URL" WAYMARK_JWT_SECRET="browser-test-$$-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')" WAYMARK_GRPC_PORT=off "$BIN" serve --demo --simulate --port 0 \
    --vehicles 8 --trips-per-minute 8 --speedup 4 >"$LOG" 2>&1 &
SERVER=$!
cleanup() {
    kill -INT "$SERVER" 2>/dev/null || true
    wait "$SERVER" 2>/dev/null || true
    psql "$URL" -qc "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true
    "$BIN" db stop --data-dir "$DATA" >/dev/null 2>&1 || true
}
trap cleanup EXIT
for _ in $(seq 1 60); do
    grep -q "listening on http://" "$LOG" && break
    sleep 0.5
done
BASE=$(grep -o "listening on http://[0-9.:]*" "$LOG" | head -1 | sed 's/listening on //')
[ -n "$BASE" ] || { cat "$LOG"; echo "the server did not start"; exit 1; }
# Give the simulator time to get trips going and to find out whether the server plans routes.
sleep 15
EXTRA=()
grep -q "does not offer :planRoute" "$LOG" || EXTRA+=(--require-remaining)
python3 scripts/browser_check.py "$BASE" "$OUT" "${EXTRA[@]}"
