#!/usr/bin/env bash
# Creates (once) the virtualenv with the Python tools of the API conformance tests, pinned in
# Tests/python/requirements.txt, and prints its python's absolute path on the last line of stdout.
#
#   PY="$(scripts/pytools.sh | tail -n 1)"
#
# Where: ${WAYMARK_PYTOOLS:-.build/pytools} (a relative WAYMARK_PYTOOLS is taken from the current
# directory; the default is under the checkout). Which interpreter: ${WAYMARK_PYTHON:-python3},
# 3.9 or newer with the venv module. Quiet unless something fails. A rerun is a no-op when the stamp
# file in the venv matches the requirements' hash and the interpreter's version; anything else
# rebuilds the venv from scratch. Concurrent runs wait for each other (flock, when available).
#
# Another venv of pinned tools (scripts/peer-venv.sh) reuses this script with
# WAYMARK_PYTOOLS_REQUIREMENTS (its requirements file, relative to the checkout) and
# WAYMARK_PYTOOLS_IMPORT (a module the venv must import to count as up to date).
set -euo pipefail

caller_dir="$PWD"
cd "$(dirname "$0")/.."
root="$PWD"
requirements="$root/${WAYMARK_PYTOOLS_REQUIREMENTS:-Tests/python/requirements.txt}"
import_check="${WAYMARK_PYTOOLS_IMPORT:+import $WAYMARK_PYTOOLS_IMPORT}"

venv="${WAYMARK_PYTOOLS:-$root/.build/pytools}"
case "$venv" in
    /*) ;;
    *) venv="$caller_dir/$venv" ;;
esac
python="${WAYMARK_PYTHON:-python3}"

fail() {
    echo "pytools: $*" >&2
    exit 1
}

command -v "$python" >/dev/null 2>&1 || fail "no '$python' on PATH (set WAYMARK_PYTHON to a Python 3.9+ interpreter)"
"$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 9) else 1)' 2>/dev/null \
    || fail "$python is older than 3.9 ($("$python" --version 2>&1))"
"$python" -c 'import venv, ensurepip' 2>/dev/null \
    || fail "$python has no venv/ensurepip module (Debian: apt-get install python3-venv)"
[ -f "$requirements" ] || fail "missing $requirements"

hash_of() {
    # The stamp: the requirements' content and the interpreter the venv is built from.
    { cat "$requirements"; "$python" -c 'import sys; print(sys.version)'; } | sha256sum | cut -d' ' -f1
}
want="$(hash_of)"
stamp="$venv/.waymark-pytools-stamp"

up_to_date() {
    [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && "$venv/bin/python" -c "$import_check" >/dev/null 2>&1
}

if up_to_date; then
    echo "$venv/bin/python"
    exit 0
fi

mkdir -p "$(dirname "$venv")"
if command -v flock >/dev/null 2>&1; then
    exec 9>"$venv.lock"
    flock 9
    # Another run may have finished the job while this one waited.
    if up_to_date; then
        echo "$venv/bin/python"
        exit 0
    fi
fi

log="$(mktemp "${TMPDIR:-/tmp}/waymark-pytools.XXXXXX")"
trap 'rm -f "$log"' EXIT

rm -rf "$venv"
"$python" -m venv "$venv" >"$log" 2>&1 || { cat "$log" >&2; fail "could not create the virtualenv at $venv"; }

pip=("$venv/bin/python" -m pip --disable-pip-version-check --no-input)
if ! "${pip[@]}" install --quiet --no-deps --timeout 30 --retries 2 --requirement "$requirements" >"$log" 2>&1; then
    tail -n 25 "$log" >&2
    rm -rf "$venv"
    if grep -q -i -E 'connection|resolve|network|timed out|proxy|ssl|no matching distribution|could not fetch' "$log"; then
        fail "pip could not download the pinned packages: is PyPI (or the configured index) reachable from here?"
    fi
    fail "pip could not install $requirements (see above)"
fi

# The pins must be what is installed: catches a requirements file that is not a complete freeze.
if ! "${pip[@]}" check >"$log" 2>&1; then
    cat "$log" >&2
    fail "the installed packages have broken dependencies; regenerate $requirements with pip freeze"
fi

echo "$want" >"$stamp"
echo "$venv/bin/python"
