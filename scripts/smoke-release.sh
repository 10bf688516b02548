#!/usr/bin/env bash
# `make test-release`: the release binary answers every kind of request once and stays alive.
# Debug builds (what `make test` runs) once hid a crash that only the optimizer produced (a rider
# request read a garbage value in `handleRider`); this catches that class of failure.
# Not part of `make test`: a release build takes minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.build/release/waymark
ROOT=${SMOKE_DIR:-/tmp/waymark-smoke-$(id -u)}
DATA="$ROOT/pg"
mkdir -p "$ROOT"
"$BIN" db start --data-dir "$DATA" >/dev/null
URL=$("$BIN" db url --data-dir "$DATA")
DB="smoke_$$"
psql "$URL" -qc "CREATE DATABASE $DB" >/dev/null
export DATABASE_URL=${URL/\/postgres\?/\/$DB?}
export WAYMARK_JWT_SECRET="smoke-$$-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
LOG="$ROOT/serve.log"
"$BIN" migrate >/dev/null
WAYMARK_GRPC_PORT=off "$BIN" serve --port 0 >"$LOG" 2>&1 &
SERVER=$!
cleanup() {
    kill -INT "$SERVER" 2>/dev/null || true
    wait "$SERVER" 2>/dev/null || true
    psql "$URL" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1 || true
    "$BIN" db stop --data-dir "$DATA" >/dev/null 2>&1 || true
}
trap cleanup EXIT
for _ in $(seq 1 60); do grep -q "listening on http://" "$LOG" && break; sleep 0.5; done
BASE=$(grep -o "listening on http://[0-9.:]*" "$LOG" | head -1 | sed 's/listening on //')
[ -n "$BASE" ] || { cat "$LOG"; echo "smoke: the server did not start"; exit 1; }
SERVER_TOKEN=$("$BIN" token --role server --provider acme)
RIDER=$("$BIN" token --role consumer --provider acme --trip t-1 --consumer c-1)
DRIVER=$("$BIN" token --role driver --provider acme --vehicle v-1)
AUDITOR=$("$BIN" token --role auditor --provider acme)
failures=0
# expect STATUS METHOD PATH TOKEN [BODY]
expect() {
    local want=$1 method=$2 path=$3 token=$4 body=${5:-}
    local args=(-s -o "$ROOT/body" -w '%{http_code}' -X "$method" -H "Authorization: Bearer $token")
    [ -n "$body" ] && args+=(-H 'Content-Type: application/json' -d "$body")
    local got
    got=$(curl "${args[@]}" "$BASE$path" || echo 000)
    if [ "$got" != "$want" ]; then
        echo "smoke: $method $path answered $got, expected $want: $(head -c 300 "$ROOT/body")"
        failures=$((failures + 1))
    fi
}
# eventually STATUS METHOD PATH TOKEN: `expect` for a read of an eventually consistent read model
# (the route audit has no read-your-writes): retried for up to 5 s before it counts as a failure.
eventually() {
    local before=$failures
    for _ in $(seq 1 50); do
        failures=$before
        expect "$@" 2>/dev/null >"$ROOT/eventually" && [ "$failures" = "$before" ] && return 0
        sleep 0.1
    done
    cat "$ROOT/eventually"
}
P=/v1/providers/acme
expect 200 POST "$P/vehicles?vehicleId=v-1" "$SERVER_TOKEN" '{"vehicleState":"ONLINE","supportedTripTypes":["EXCLUSIVE"],"maximumCapacity":4,"vehicleType":{"category":"AUTO"},"lastLocation":{"location":{"latitude":52.52,"longitude":13.405}}}'
expect 200 POST "$P/trips?tripId=t-1" "$SERVER_TOKEN" '{"tripType":"EXCLUSIVE","pickupPoint":{"point":{"latitude":52.5,"longitude":13.4}},"dropoffPoint":{"point":{"latitude":52.53,"longitude":13.38}},"intermediateDestinations":[]}'
expect 200 PUT "$P/trips/t-1?updateMask=vehicleId" "$SERVER_TOKEN" '{"vehicleId":"v-1"}'
expect 200 PUT "$P/vehicles/v-1?updateMask=lastLocation" "$DRIVER" '{"lastLocation":{"location":{"latitude":52.51,"longitude":13.401}}}'
expect 200 POST "$P/vehicles:reportLocations" "$SERVER_TOKEN" '{"reports":[{"vehicleId":"v-1","location":{"location":{"latitude":52.509,"longitude":13.401}}}]}'
expect 200 GET "$P/trips/t-1" "$SERVER_TOKEN"
expect 200 GET "$P/vehicles/v-1" "$SERVER_TOKEN"
expect 200 GET "$P/journeyStyle" "$SERVER_TOKEN"
expect 200 GET "$P/trips/t-1/journey" "$RIDER"
expect 200 GET "$P/consumers/c-1/trips" "$RIDER"
expect 200 POST "$P/trips/t-1:share" "$SERVER_TOKEN" '{}'
expect 200 GET "$P/trips/t-1/history?include=vehicle" "$AUDITOR"
eventually 200 GET "$P/trips/t-1/routeAudit" "$AUDITOR"
expect 200 GET "$P/vehicles/v-1/driverFeed" "$DRIVER"
expect 200 GET "$P/webhooks" "$SERVER_TOKEN"
expect 200 GET "/v1/audit/roots" "$AUDITOR"
expect 404 GET "$P/trips/nope" "$SERVER_TOKEN"
expect 401 GET "$P/trips/t-1" "not-a-token"
expect 200 GET "/metrics" ""
kill -0 "$SERVER" 2>/dev/null || { echo "smoke: the server died"; tail -20 "$LOG"; exit 1; }
[ "$failures" -eq 0 ] || { echo "smoke: $failures failures"; exit 1; }
echo "smoke: the release binary answered every request and is still running"
