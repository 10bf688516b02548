#!/usr/bin/env bash
# Runs every benchmark of Waymark in one go and writes a generated BENCHMARKS.md:
# machine facts, each bench's exact command and Markdown output, and a summary of the issue
# targets as the benches (and, for bench http, this script) computed them from the same run.
#
#   scripts/bench-report.sh                  # the full run (make bench), ~20-30 min
#   BENCH_QUICK=1 scripts/bench-report.sh    # tiny sizes, a smoke of the assembly (make bench-quick)
#
# Settings (environment):
#   WAYMARK_BIN   the binary (default .build/release/waymark)
#   BENCH_OUT     where the report goes (default BENCHMARKS.md; quick mode: .build/bench-quick/BENCHMARKS.md)
#   DATABASE_URL  the cluster to measure on; unset: the embedded cluster in BENCH_DATA_DIR
#                 (default .waymark/bench-pg), started here if it is not running and stopped afterwards
#   BENCH_ONLY    space-separated subset of: append rebuild http ingest export grpc peer memory
# Exit status: 0 when every bench ran and checked its outcome, 1 otherwise (the report still says which failed).
set -uo pipefail

cd "$(dirname "$0")/.."
root="$PWD"
bin="${WAYMARK_BIN:-.build/release/waymark}"
quick="${BENCH_QUICK:-0}"
if [ "$quick" = 1 ]; then out="${BENCH_OUT:-.build/bench-quick/BENCHMARKS.md}"; else out="${BENCH_OUT:-BENCHMARKS.md}"; fi
logs="$root/.build/bench-logs"
mkdir -p "$logs" "$(dirname "$out")"
[ -x "$bin" ] || { echo "bench-report: no binary at $bin (swift build -c release)" >&2; exit 1; }
# `waymark bench` runs the waymark-bench binary built beside it.
[ -x "$(dirname "$bin")/waymark-bench" ] || { echo "bench-report: no waymark-bench next to $bin (swift build -c release builds both)" >&2; exit 1; }

# The options of each bench: full run and quick smoke.
declare -A full=(
    [append]="--events 200000 --seconds 5"
    [rebuild]="--events 1000000"
    [http]="--seconds 10 --connections 64 --vehicles 510 --propagation batch"
    [ingest]="--seconds 10"
    [export]="--events 300000"
    [grpc]="--seconds 10"
    [peer]="--events 200000 --seconds 5 --writers 8"
    [memory]=""
)
declare -A small=(
    [append]="--events 2000 --seconds 1"
    [rebuild]="--events 2000"
    [http]="--seconds 1 --connections 4 --vehicles 25 --report-rate 200 --propagation batch --batch-reports 3"
    [ingest]="--seconds 1 --vehicles 200 --reports 50 --connections 4 --rate-seconds 2"
    [export]="--events 2000"
    [grpc]="--seconds 1 --vehicles 10 --connections 1 --streams 2"
    [peer]="--events 2000 --seconds 1 --writers 2"
    [memory]="--vehicles 200 --trips 20 --streams 10 --seconds 1 --report-rate 200"
)
benches=(append rebuild http ingest export grpc peer memory)
[ -n "${BENCH_ONLY:-}" ] && read -r -a benches <<<"$BENCH_ONLY"

# `bench memory` exists only once another branch adds it: run it only if the binary knows it.
has_memory=0
if "$bin" help 2>/dev/null | grep -q "bench memory" || "$bin" bench memory --help >/dev/null 2>&1; then has_memory=1; fi

# The cluster.
started_cluster=0
if [ -z "${DATABASE_URL:-}" ]; then
    data_dir="${BENCH_DATA_DIR:-$root/.waymark/bench-pg}"
    if ! "$bin" db status --data-dir "$data_dir" >/dev/null 2>&1; then
        "$bin" db start --data-dir "$data_dir" >>"$logs/cluster.log" 2>&1 || { echo "bench-report: could not start PostgreSQL in $data_dir (see $logs/cluster.log)" >&2; exit 1; }
        started_cluster=1
    fi
    DATABASE_URL="$("$bin" db url --data-dir "$data_dir")"
    export DATABASE_URL
    where="the embedded cluster in \`$data_dir\`"
else
    where="\`DATABASE_URL\` (set by the caller)"
fi
stop_cluster() { [ "$started_cluster" = 1 ] && "$bin" db stop --data-dir "$data_dir" >>"$logs/cluster.log" 2>&1; }
trap stop_cluster EXIT

# The peer's venv (eventsourcing from PyPI), created once.
peer_python=""
if printf '%s\n' "${benches[@]}" | grep -qx peer; then
    peer_python="$(scripts/peer-venv.sh 2>"$logs/peer-venv.log" | tail -n 1)" || peer_python=""
fi

sql() { psql "$DATABASE_URL" -AtXc "$1" 2>/dev/null || echo "?"; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
escape() { sed 's/|/\\|/g'; }

commit="\`$(git rev-parse --short HEAD 2>/dev/null || echo '?')\`"
[ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] && commit="$commit with uncommitted changes"
case "$bin" in *release*) build="release build \`$bin\`" ;; *) build="**not a release build**: \`$bin\`" ;; esac
started_at="$(date -u '+%Y-%m-%d %H:%M:%S UTC')"
load_before="$(loadavg)"
pg_settings=""
for setting in shared_buffers fsync synchronous_commit wal_sync_method max_wal_size max_connections; do
    pg_settings+="\`$setting = $(sql "SHOW $setting")\`, "
done

body="$(mktemp)"; summary="$(mktemp)"
trap 'stop_cluster; rm -f "$body" "$summary"' EXIT
failed=()
total_start=$SECONDS

# Runs one bench, appends its section to $body and its target lines to $summary.
run_bench() {
    local name="$1" options command status started load0 elapsed output
    if [ "$quick" = 1 ]; then options="${small[$name]}"; else options="${full[$name]}"; fi
    command="$bin bench $name $options --format markdown"
    if [ "$name" = peer ]; then
        if [ -z "$peer_python" ]; then
            printf '\n## %s\n\nNot run: the peer venv could not be created (%s).\n' "$name" "$(tail -n 1 "$logs/peer-venv.log" | escape)" >>"$body"
            failed+=("$name"); printf '| %s | not run: no peer venv |\n' "$name" >>"$summary"; return
        fi
        command="$bin bench peer $options --python $peer_python --format markdown"
    fi
    echo "bench-report: $command" >&2
    load0="$(loadavg)"; started=$SECONDS
    local -a arguments
    read -r -a arguments <<<"$options"
    [ "$name" = peer ] && arguments+=(--python "$peer_python")
    output="$("$bin" bench "$name" "${arguments[@]}" --format markdown 2>"$logs/$name.log")"
    status=$?
    elapsed=$((SECONDS - started))
    {
        printf '\n## %s\n\n```bash\n%s\n```\n\n' "$name" "$command"
        printf 'Ran %s s; load average %s before, %s after.\n\n' "$elapsed" "$load0" "$(loadavg)"
        if [ $status -eq 0 ]; then
            printf '%s\n' "$output"
        else
            printf '**FAILED** (exit %s). Last lines of its log:\n\n```\n%s\n```\n' "$status" "$(tail -n 15 "$logs/$name.log")"
        fi
    } >>"$body"
    if [ $status -ne 0 ]; then failed+=("$name"); printf '| %s | FAILED (exit %s): no figures |\n' "$name" "$status" >>"$summary"; return; fi
    # The targets the bench computed itself: its "target ...: met/NOT met (...)" notes.
    printf '%s\n' "$output" | sed -n 's/^- \(target[ :].*\)$/\1/p' | escape | while IFS= read -r line; do
        printf '| %s | %s |\n' "$name" "$line" >>"$summary"
    done
    [ "$name" = http ] && http_targets "$output"
    if ! printf '%s\n' "$output" | grep -q '^- target[ :]'; then
        [ "$name" = http ] || printf '| %s | no issue target for this bench; figures only |\n' "$name" >>"$summary"
    fi
}

# bench http prints its figures but no verdicts: compare them with the issue's targets here.
http_targets() {
    local output="$1" journey p99 target achieved
    journey="$(printf '%s\n' "$output" | awk -F'|' '$2 ~ /^ *GetJourney *$/ { gsub(/ /, "", $5); print $5; exit }')"
    if [ -z "$journey" ] || [ "$journey" = "-" ]; then
        printf '| http | target GetJourney >= 1.0 x nginx serving the same bytes: not measured (no nginx row) |\n' >>"$summary"
    else
        awk -v r="$journey" 'BEGIN { printf "| http | target GetJourney >= 1.0 x nginx serving the same bytes: %s (%s) |\n", (r >= 1.0 ? "met" : "NOT met"), r }' >>"$summary"
    fi
    # The first row under a "target reports/s" header: target rate, achieved rate, ..., p99 (5th column).
    read -r target achieved p99 < <(printf '%s\n' "$output" | awk -F'|' '
        /^\| *target reports\/s/ { header = 1; next }
        header && /^\|---/ { next }
        header { gsub(/[ ,]/, "", $2); gsub(/[ ,]/, "", $3); gsub(/[ ms]/, "", $6); print $2, $3, $6; exit }')
    if [ -z "${p99:-}" ]; then
        printf '| http | target propagation p99 < 100 ms at 5,000 reports/s: no propagation figures in the output |\n' >>"$summary"
    else
        awk -v t="$target" -v a="$achieved" -v p="$p99" 'BEGIN {
            verdict = (p < 100 && a >= 0.95 * t && t >= 5000) ? "met" : "NOT met"
            why = (t < 5000 || a < 0.95 * t) ? sprintf("; driven at %s of %s reports/s asked, the target is p99 at 5,000", a, t) : ""
            printf "| http | target propagation p99 < 100 ms at 5,000 reports/s: %s (p99 %s ms%s) |\n", verdict, p, why }' >>"$summary"
    fi
}

for name in "${benches[@]}"; do
    if [ "$name" = memory ] && [ "$has_memory" = 0 ]; then
        printf '\n## memory\n\nNot run: this build has no `waymark bench memory`.\n' >>"$body"
        continue
    fi
    run_bench "$name"
done
total=$((SECONDS - total_start))

{
    printf '# Benchmarks\n\n'
    printf '<!-- Generated by scripts/bench-report.sh (make bench%s); edits here are overwritten. -->\n\n' "$([ "$quick" = 1 ] && echo '-quick, BENCH_QUICK=1: tiny sizes, a smoke of the assembly, not figures to quote')"
    printf 'Generated by `%s` on %s, in %s min. Every bench below ran one after another in this run, on %s; ' \
        "$([ "$quick" = 1 ] && echo 'make bench-quick' || echo 'make bench')" "$started_at" "$((total / 60))" "$where"
    printf 'each figure is compared with the reference (raw PostgreSQL, nginx, or the peer library) measured in the same run, '
    printf 'because the machine is shared and noisy: compare ratios, not absolute rates across runs. '
    printf 'Every case checks its outcome (row counts, statuses) and a bench that fails prints no figures.\n\n'
    [ "$quick" = 1 ] && printf '**Quick mode (BENCH_QUICK=1): tiny sizes to check that every bench runs and the report assembles. These are not figures to quote.**\n\n'
    [ "$quick" = 1 ] || printf 'Sizes: each command below shows its options. To keep `make bench` short, `export` runs on 300,000 events (its default is 1,000,000; `rebuild` runs on the issue'"'"'s 1,000,000), propagation is driven by `reportLocations` batches (`--propagation batch`) and every timed case runs 5 s (appends, peer) or 10 s (http, ingest, grpc); the rest are the benches'"'"' defaults.\n\n'
    printf 'How the benches work, their history and where the time goes: [docs/performance-notes.md](docs/performance-notes.md).\n\n'
    printf '## Machine\n\n| item | value |\n|---|---|\n'
    printf '| `nproc` | %s |\n' "$(nproc)"
    printf '| CPU (`lscpu`) | %s |\n' "$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1 | escape)"
    printf '| memory | %s |\n' "$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
    printf '| OS / kernel | %s / %s |\n' "$(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")" "$(uname -r)"
    printf '| PostgreSQL | %s; %s |\n' "$(sql 'SHOW server_version')" "${pg_settings%, }"
    printf '| Swift | %s |\n' "$(swift --version 2>/dev/null | head -n 1 | escape)"
    printf '| commit | %s; %s |\n' "$commit" "$build"
    printf '| load average (1/5/15 min) | %s at the start, %s at the end (other work shares the cores) |\n' "$load_before" "$(loadavg)"
    printf '\n## Targets met in this run\n\n'
    printf 'Each line is the verdict of the bench itself (or, for `bench http`, of scripts/bench-report.sh from the bench'"'"'s figures), from this run only.\n\n'
    printf '| bench | target: verdict (measured ratio) |\n|---|---|\n'
    cat "$summary"
    [ ${#failed[@]} -gt 0 ] && printf '\nFailed or not run: %s.\n' "${failed[*]}"
    cat "$body"
} >"$out"

echo "bench-report: wrote $out in $total s${failed[*]:+; failed: ${failed[*]}}" >&2
[ ${#failed[@]} -eq 0 ]
