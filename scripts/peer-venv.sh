#!/usr/bin/env bash
# Creates (once) the virtualenv of the peer benchmark (`waymark bench peer`): the Python
# eventsourcing library and psycopg, pinned in Tests/python/peer-requirements.txt. Prints the
# venv's python on the last line of stdout:
#
#   PY="$(scripts/peer-venv.sh | tail -n 1)"; waymark bench peer --python "$PY"
#
# Where: ${WAYMARK_PEER_VENV:-.build/peer-venv} (relative paths are taken from the current
# directory). Interpreter: ${WAYMARK_PYTHON:-python3}, 3.9 or newer. A rerun is a no-op while the
# stamp matches the requirements and the interpreter.
set -euo pipefail

caller_dir="$PWD"
cd "$(dirname "$0")/.."
root="$PWD"
requirements="$root/Tests/python/peer-requirements.txt"
venv="${WAYMARK_PEER_VENV:-$root/.build/peer-venv}"
case "$venv" in /*) ;; *) venv="$caller_dir/$venv" ;; esac
python="${WAYMARK_PYTHON:-python3}"

fail() { echo "peer-venv: $*" >&2; exit 1; }

command -v "$python" >/dev/null 2>&1 || fail "no '$python' on PATH (set WAYMARK_PYTHON to a Python 3.9+ interpreter)"
"$python" -c 'import sys, venv, ensurepip; sys.exit(0 if sys.version_info >= (3, 9) else 1)' 2>/dev/null \
    || fail "$python is older than 3.9 or has no venv module (Debian: apt-get install python3-venv)"

want="$({ cat "$requirements"; "$python" -c 'import sys; print(sys.version)'; } | sha256sum | cut -d' ' -f1)"
stamp="$venv/.waymark-peer-stamp"
up_to_date() { [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && "$venv/bin/python" -c 'import eventsourcing.postgres' >/dev/null 2>&1; }

if up_to_date; then echo "$venv/bin/python"; exit 0; fi
mkdir -p "$(dirname "$venv")"
if command -v flock >/dev/null 2>&1; then
    exec 9>"$venv.lock"
    flock 9
    if up_to_date; then echo "$venv/bin/python"; exit 0; fi
fi

log="$(mktemp "${TMPDIR:-/tmp}/waymark-peer-venv.XXXXXX")"
trap 'rm -f "$log"' EXIT
rm -rf "$venv"
"$python" -m venv "$venv" >"$log" 2>&1 || { cat "$log" >&2; fail "could not create the virtualenv at $venv"; }
pip=("$venv/bin/python" -m pip --disable-pip-version-check --no-input)
if ! "${pip[@]}" install --quiet --no-deps --timeout 30 --retries 2 --requirement "$requirements" >"$log" 2>&1; then
    tail -n 25 "$log" >&2
    rm -rf "$venv"
    fail "pip could not install $requirements (is PyPI reachable from here?)"
fi
"${pip[@]}" check >"$log" 2>&1 || { cat "$log" >&2; fail "broken dependencies; regenerate $requirements with pip freeze"; }
echo "$want" >"$stamp"
echo "$venv/bin/python"
