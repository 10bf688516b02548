#!/usr/bin/env bash
# Creates (once) the virtualenv of the peer benchmark (`waymark bench peer`): the Python
# eventsourcing library and psycopg, pinned in Tests/python/peer-requirements.txt. Prints the
# venv's python on the last line of stdout:
#
#   PY="$(scripts/peer-venv.sh | tail -n 1)"; waymark bench peer --python "$PY"
#
# Where: ${WAYMARK_PEER_VENV:-.build/peer-venv} (relative paths are taken from the current
# directory). Interpreter: ${WAYMARK_PYTHON:-python3}, 3.9 or newer. The work is scripts/pytools.sh's
# (stamp, lock, pinned install, pip check) with the peer's requirements.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
WAYMARK_PYTOOLS="${WAYMARK_PEER_VENV:-$root/.build/peer-venv}" \
WAYMARK_PYTOOLS_REQUIREMENTS=Tests/python/peer-requirements.txt \
WAYMARK_PYTOOLS_IMPORT=eventsourcing.postgres \
    exec "$root/scripts/pytools.sh"
