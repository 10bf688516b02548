# Waymark: `make run` and `make test` are the two commands; both install what is missing first.

RELEASE_BIN := .build/release/waymark
DEBUG_BIN := .build/debug/waymark
SWIFT_FLAGS := -Xswiftc -warnings-as-errors

.PHONY: deps build release test test-release test-faults test-browser run bench bench-quick db-start db-stop clean

## Install the Debian packages the project needs, when missing (sudo when not root).
deps:
	@scripts/deps.sh

## Debug build, warnings are errors.
build: deps
	swift build $(SWIFT_FLAGS)

## Release build: the server `waymark` and the benchmarks' `waymark-bench` beside it.
release: deps
	swift build -c release $(SWIFT_FLAGS)

## The whole test suite against a PostgreSQL it starts itself.
test: deps
	scripts/test.sh

## The fault tests: kill -9 of the server and a PostgreSQL outage under load (not part of `make test`).
test-faults: deps
	scripts/test-faults.sh

## Build release and serve on the embedded PostgreSQL under ./.waymark/pg with the demo page and a
## simulated fleet driving through the server's own API (Ctrl-C stops everything; a second run resumes).
SIMULATION ?= --vehicles 12 --trips-per-minute 6 --speedup 3
run: release
	$(RELEASE_BIN) serve --demo --simulate $(SIMULATION)

## The release binary answers every kind of request once (optimizer-only crashes; not in `make test`).
test-release: release
	scripts/smoke-release.sh

## The demo page in headless Chromium (installs Debian's chromium; not part of `make test`).
test-browser: build
	@scripts/deps.sh --browser
	scripts/browser_test.sh

## Every benchmark, side by side in one run (~30 min): writes BENCHMARKS.md (scripts/bench-report.sh).
bench: release
	@EXTRA_PACKAGES="wrk nginx-light curl nghttp2-client" scripts/deps.sh
	scripts/bench-report.sh

## The same with tiny sizes, a smoke of the report (writes .build/bench-quick/BENCHMARKS.md).
bench-quick: release
	@EXTRA_PACKAGES="wrk nginx-light curl nghttp2-client" scripts/deps.sh
	BENCH_QUICK=1 scripts/bench-report.sh

## Manage the embedded cluster used by `make run`.
db-start: build
	$(DEBUG_BIN) db start
db-stop: build
	$(DEBUG_BIN) db stop

clean:
	swift package clean
