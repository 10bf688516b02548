#!/usr/bin/env bash
# Property-based API conformance run: Schemathesis generates requests from the OpenAPI document the
# server serves ($WAYMARK_URL/openapi.json), sends them with the bearer token, and fails on any 5xx
# (not_a_server_error) or any response the document does not describe (response_schema_conformance).
#
# Environment:
#   WAYMARK_URL        base URL of the running server (required), e.g. http://127.0.0.1:8080
#   WAYMARK_TOKEN      server-role bearer JWT for WAYMARK_PROVIDER (required)
#   WAYMARK_PROVIDER   provider the token is for; every generated path uses it (default waymark-test)
#   WAYMARK_PY         the tools' python (default: what scripts/pytools.sh prints, which installs them)
#   SCHEMATHESIS_MAX_EXAMPLES  examples per operation and phase (default 20)
#   SCHEMATHESIS_SEED          seed of the generator (default 20240501: the same requests every run)
#   SCHEMATHESIS_PHASES        default examples,coverage,fuzzing,stateful
#   SCHEMATHESIS_MAX_TIME      seconds: a time budget instead (fuzzing and stateful then repeat until
#                              it is spent); unset by default, the run ends when the examples are done
#   SCHEMATHESIS_REPORT_DIR    when set, a JUnit report and a VCR cassette of every request go there
#   SCHEMATHESIS_TIMEOUT       seconds after which a hung run is killed and fails (default 300; a
#                              healthy run takes well under a minute)
# Extra arguments are passed on to `schemathesis run` (e.g. --include-operation-id GetTrip).
# Exit status: 0 when every check passed, non-zero otherwise (Schemathesis' own).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"

: "${WAYMARK_URL:?set WAYMARK_URL to the server base URL, e.g. http://127.0.0.1:8080}"
: "${WAYMARK_TOKEN:?set WAYMARK_TOKEN to a server-role bearer JWT}"
export WAYMARK_PROVIDER="${WAYMARK_PROVIDER:-waymark-test}"
export WAYMARK_TOKEN
base_url="${WAYMARK_URL%/}"

py="${WAYMARK_PY:-}"
if [ -z "$py" ]; then
    py="$("$root/scripts/pytools.sh" | tail -n 1)"
elif [[ "$py" == */* ]]; then
    py="$(realpath -ms "$py")"  # absolute (symlinks kept: a venv python is one); the run changes directory
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/waymark-schemathesis.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# The token and the provider reach Schemathesis through its config file's ${VAR} substitution, so
# the token never appears on a command line. Generated paths always name the token's provider;
# everything else is generated.
cat >"$work/schemathesis.toml" <<'EOF'
headers = { Authorization = "Bearer ${WAYMARK_TOKEN}" }

[parameters]
"path.provider" = "${WAYMARK_PROVIDER}"

[generation]
# NUL bytes in IDs and strings are legal JSON but only exercise the HTTP stack's rejection paths.
allow-x00 = false
database = "none"

# SearchVehicles orders other than PICKUP_POINT_STRAIGHT_DISTANCE need a router and answer the
# documented 501 UNIMPLEMENTED; that is the only 5xx any operation may return.
[[operations]]
include-path = "/v1/providers/{provider}/vehicles:search"
include-method = "POST"
checks.not_a_server_error.expected-statuses = ["2XX", "3XX", "4XX", "501"]

# StreamJourney is a Server-Sent Events stream that stays open while the trip goes on: read its first
# event and stop, instead of waiting out the request timeout on every case (the events are checked
# against the documented JourneyEvent schema).
[[operations]]
include-operation-id = "StreamJourney"
max-stream-events = 1

# StreamDriverFeed likewise stays open while the vehicle exists.
[[operations]]
include-operation-id = "StreamDriverFeed"
max-stream-events = 1
EOF

extra=()
if [ -n "${SCHEMATHESIS_MAX_TIME:-}" ]; then
    extra+=(--max-time "$SCHEMATHESIS_MAX_TIME")
fi
if [ -n "${SCHEMATHESIS_REPORT_DIR:-}" ]; then
    mkdir -p "$SCHEMATHESIS_REPORT_DIR"
    extra+=(--report junit,vcr --report-dir "$(realpath "$SCHEMATHESIS_REPORT_DIR")")
fi

cd "$work"  # Schemathesis looks for schemathesis.toml and writes caches in the current directory
limit="${SCHEMATHESIS_TIMEOUT:-300}"
set -x +e
timeout --kill-after=10 "$limit" "$py" -m schemathesis.cli --config-file "$work/schemathesis.toml" run "$base_url/openapi.json" \
    --url "$base_url" \
    --checks not_a_server_error,response_schema_conformance \
    --phases "${SCHEMATHESIS_PHASES:-examples,coverage,fuzzing,stateful}" \
    --max-examples "${SCHEMATHESIS_MAX_EXAMPLES:-20}" \
    --seed "${SCHEMATHESIS_SEED:-20240501}" \
    --workers 1 \
    --request-timeout 10 \
    --wait-for-schema 15 \
    --no-color \
    "${extra[@]}" \
    "$@"
{ status=$?; set +x; } 2>/dev/null
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    echo "schemathesis_run: no result after ${limit} s; killed (is the server hanging?)" >&2
fi
exit "$status"
