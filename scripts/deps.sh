#!/usr/bin/env bash
# Installs the Debian packages Waymark needs, only those that are missing.
# Uses sudo when not root. Safe to run again: it does nothing when everything is there.
set -euo pipefail

need=()
# `scripts/deps.sh --browser`: also headless Chromium, for `make test-browser` only (not `make test`).
if [ "${1:-}" = "--browser" ]; then
    EXTRA_PACKAGES="${EXTRA_PACKAGES:-} chromium fonts-dejavu-core"
fi
have_pg_server() { ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1; }
have_pg_server || need+=(postgresql)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
pkg-config --exists libpq 2>/dev/null || need+=(libpq-dev)
pkg-config --exists libcrypto 2>/dev/null || need+=(libssl-dev)
pkg-config --exists libmicrohttpd 2>/dev/null || need+=(libmicrohttpd-dev)
# Outgoing webhook deliveries (the HTTP module's client).
pkg-config --exists libcurl 2>/dev/null || need+=(libcurl4-openssl-dev)
# gRPC (HTTP/2).
pkg-config --exists libnghttp2 2>/dev/null || need+=(libnghttp2-dev)
# The server's memory allocator (Sources/Allocator).
pkg-config --exists jemalloc 2>/dev/null || need+=(libjemalloc-dev)
[ -x /usr/sbin/runuser ] || need+=(util-linux)
# The API conformance tests build a virtualenv (google-maps-fleetengine, schemathesis).
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need+=(python3-venv)
# Extra packages a target asks for (e.g. benchmark tools): EXTRA_PACKAGES="wrk nginx-light"
for package in ${EXTRA_PACKAGES:-}; do
    dpkg -s "$package" >/dev/null 2>&1 || need+=("$package")
done

if [ ${#need[@]} -eq 0 ]; then
    exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "make deps: installing ${need[*]}"
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
