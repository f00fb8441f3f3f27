# Two commands on a fresh machine: `make run` and `make test`.
SWIFT ?= swift
DEV_DIR ?= var/dev
CONFIG ?= $(DEV_DIR)/lifecycle.json
LIFECYCLE := .build/debug/lifecycle
APT_PACKAGES := libsqlite3-dev libssl-dev libpq-dev pkg-config

.PHONY: run test test-sqlite test-deps test-venv test-asan test-tsan fuzz fuzz-build build release deps lint format \
	dev-setup bench-peer clean install uninstall

## Install the system libraries the build links against, when missing (Debian/Ubuntu, needs root or sudo).
deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

## Installation (README "Install and run under systemd"): the release binary, the policies and the example
## configuration under PREFIX/share/lifecycle, the configuration to CONFDIR/lifecycle.json only when none is
## there (with its relative paths pointed at the state directory /var/lib/lifecycle and the installed
## policies), the systemd units and the sysusers.d entry of the `lifecycle` user. DESTDIR stages it all under
## another root (packaging, tests). What install wrote is listed in DATADIR/installed-files, which uninstall
## reads. INSTALL_BINARY installs another build instead of building the release one (the tests' debug build).
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share/lifecycle
CONFDIR ?= /etc/lifecycle
UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
STATEDIR := /var/lib/lifecycle
RELEASE_BINARY := .build/release/lifecycle
INSTALL_BINARY ?= $(RELEASE_BINARY)
UNITS := lifecycle.service lifecycle-reconcile.service lifecycle-reconcile.timer

install: $(if $(filter $(RELEASE_BINARY),$(INSTALL_BINARY)),release)
	@set -e; root="$(DESTDIR)"; manifest="$(DATADIR)/installed-files"; \
	previous=""; [ -f "$$root$$manifest" ] && previous="$$(cat "$$root$$manifest")"; \
	install -d "$$root$(BINDIR)" "$$root$(DATADIR)/policies" "$$root$(CONFDIR)" "$$root$(UNITDIR)" \
	  "$$root$(SYSUSERSDIR)"; \
	list="$$root$$manifest.new"; : > "$$list"; \
	install -m 0755 "$(INSTALL_BINARY)" "$$root$(BINDIR)/lifecycle"; echo "$(BINDIR)/lifecycle" >> "$$list"; \
	for file in policies/*.json; do \
	  install -m 0644 "$$file" "$$root$(DATADIR)/$$file"; echo "$(DATADIR)/$$file" >> "$$list"; \
	done; \
	sed -e 's|"sqlite:var/|"sqlite:$(STATEDIR)/|' -e 's|"var/|"$(STATEDIR)/|g' \
	  -e 's|"directory": "reports"|"directory": "$(STATEDIR)/reports"|' \
	  -e 's|"policiesDirectory": "policies"|"policiesDirectory": "$(DATADIR)/policies"|' \
	  lifecycle.example.json > "$$root$(DATADIR)/lifecycle.example.json"; \
	chmod 0644 "$$root$(DATADIR)/lifecycle.example.json"; echo "$(DATADIR)/lifecycle.example.json" >> "$$list"; \
	config="$(CONFDIR)/lifecycle.json"; \
	if [ -e "$$root$$config" ]; then \
	  echo "kept $$root$$config: it exists (the new example is $$root$(DATADIR)/lifecycle.example.json)"; \
	  if printf '%s\n' "$$previous" | grep -qxF "$$config"; then echo "$$config" >> "$$list"; fi; \
	else \
	  install -m 0644 "$$root$(DATADIR)/lifecycle.example.json" "$$root$$config"; echo "$$config" >> "$$list"; \
	fi; \
	for unit in $(UNITS); do \
	  sed -e 's|/usr/local/bin/lifecycle|$(BINDIR)/lifecycle|g' -e 's|/etc/lifecycle/|$(CONFDIR)/|g' \
	    "systemd/$$unit" > "$$root$(UNITDIR)/$$unit"; \
	  chmod 0644 "$$root$(UNITDIR)/$$unit"; echo "$(UNITDIR)/$$unit" >> "$$list"; \
	done; \
	install -m 0644 systemd/lifecycle.sysusers "$$root$(SYSUSERSDIR)/lifecycle.conf"; \
	echo "$(SYSUSERSDIR)/lifecycle.conf" >> "$$list"; \
	echo "$$manifest" >> "$$list"; mv "$$list" "$$root$$manifest"; \
	echo "installed $(BINDIR)/lifecycle, $(DATADIR), $(UNITDIR)/{$$(echo $(UNITS) | tr ' ' ,)} under '$$root'"

## Removes what install listed in DATADIR/installed-files. The configuration only when it is still the
## example install wrote: one the operator edited, or one that was there before install, is kept and named.
## The state directory (the store, keys, reports) is never touched.
uninstall:
	@set -e; root="$(DESTDIR)"; manifest="$(DATADIR)/installed-files"; config="$(CONFDIR)/lifecycle.json"; \
	if [ ! -f "$$root$$manifest" ]; then echo "nothing to uninstall: $$root$$manifest is missing"; exit 0; fi; \
	if grep -qxF "$$config" "$$root$$manifest"; then \
	  if cmp -s "$$root$$config" "$$root$(DATADIR)/lifecycle.example.json"; then rm -f "$$root$$config"; \
	  else echo "kept $$root$$config: edited since install; remove it yourself when no longer needed"; fi; \
	elif [ -e "$$root$$config" ]; then echo "kept $$root$$config: install did not write it"; fi; \
	grep -vxF "$$config" "$$root$$manifest" | while read -r file; do rm -f "$$root$$file"; done; \
	rmdir "$$root$(DATADIR)/policies" "$$root$(DATADIR)" "$$root$(CONFDIR)" 2>/dev/null || true; \
	echo "uninstalled from '$$root'; $(STATEDIR) (store, keys, reports) left as it is"

## Local development: a stand-in Apple signing key, its JWKS and a config trusting only it, under var/dev.
dev-setup: build
	@$(LIFECYCLE) dev-setup --directory $(DEV_DIR)

## Build and run the service on the embedded SQLite store (development config from dev-setup).
run: dev-setup
	@echo "serving with $(CONFIG); in another shell: $(LIFECYCLE) simulate --config $(CONFIG) --type consent-revoked --sub 001234.example.0001"
	$(LIFECYCLE) serve --config $(CONFIG)

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests Fuzz

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests Fuzz

## The whole suite: format lint, every test target in parallel, and beside it the two-instance test followed by
## the testssl.sh scan of the TLS listener (scripts/run-tests.sh). Deadline rules are tested on the HTTP connection state
## machine with a manual clock, so no test depends on how fast a busy machine schedules it; suites that share
## something real (fixed ports, one PostgreSQL database across processes) say `.serialized` and why. The store
## suite runs against SQLite and against a throwaway PostgreSQL cluster (scripts/with-postgres.sh; it reuses
## LIFECYCLE_TEST_POSTGRES_URL when set). At most TEST_WIDTH test cases run at once (default four per core:
## many of them spend their time waiting on a `serve` process or a client, so fewer leave cores idle; unbounded,
## hundreds of tests queue on the cores' few concurrency threads and a server's handler waits behind CPU-bound
## tests long enough for its client to time out).
## SWT_SWIFT_ERROR_BACKTRACING_ENABLED=0: Swift Testing otherwise unwinds the stack at every `throw`, which was
## a ninth of the suite's CPU (the parsers' refusals in the fuzz and edge-value tests throw by the thousand).
## A failing test still names the error and its `#expect`; set it to 1 to see where an error was thrown.
TEST_WIDTH ?= $(shell echo $$(( $$(nproc) * 4 )))
export SWT_SWIFT_ERROR_BACKTRACING_ENABLED ?= 0
TEST_BUNDLE = $$($(SWIFT) build --show-bin-path)/AccountLifecyclePackageTests.xctest
test: deps test-deps test-venv
	$(MAKE) lint
	$(SWIFT) build --build-tests
	scripts/with-postgres.sh scripts/run-tests.sh "$(TEST_BUNDLE)" $(TEST_WIDTH)

## The same suite without PostgreSQL: the PostgreSQL store tests are skipped, with the reason printed.
test-sqlite: deps test-deps test-venv
	$(MAKE) lint
	$(SWIFT) build --build-tests
	env -u LIFECYCLE_TEST_POSTGRES_URL scripts/run-tests.sh "$(TEST_BUNDLE)" $(TEST_WIDTH)

## Test-only tools from Debian: testssl.sh scans the HTTPS listener, headless chromium renders the HTML
## report (poppler-utils reads its A4 print: pdftoppm, pdfinfo, pdftotext), promtool (prometheus) checks a
## real scrape of /metrics, systemd-analyze (systemd) verifies the installed units (each test is skipped,
## saying why, when its tool is absent).
test-deps:
	@dpkg -s testssl.sh >/dev/null 2>&1 || { \
	  SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq testssl.sh \
	  || echo "testssl.sh could not be installed; its scan will be skipped"; }
	@dpkg -s chromium >/dev/null 2>&1 || { \
	  SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO=sudo; \
	  { $$SUDO apt-get update -qq; DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium; } \
	  || echo "chromium could not be installed; the HTML rendering test will be skipped"; }
	@command -v pdftotext >/dev/null 2>&1 || { \
	  SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO=sudo; \
	  { $$SUDO apt-get update -qq; DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends \
	    poppler-utils; } || echo "poppler-utils could not be installed; the A4 print check of the report will be skipped"; }
	@command -v promtool >/dev/null 2>&1 || { \
	  SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO=sudo; \
	  { $$SUDO apt-get update -qq; DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends \
	    prometheus; } || echo "prometheus could not be installed; the promtool check of /metrics will be skipped"; }
	@command -v systemd-analyze >/dev/null 2>&1 || { \
	  SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO=sudo; \
	  { $$SUDO apt-get update -qq; DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends \
	    systemd; } || echo "systemd could not be installed; systemd-analyze verify of the units will be skipped"; }

## Test-only tools from PyPI (Tests/OutsideClients/requirements.txt: schemathesis, standardwebhooks, cryptography) in
## .build/test-venv; their tests are skipped, saying why, when PyPI cannot be reached.
test-venv:
	@scripts/test-venv.sh

## The suite under AddressSanitizer / ThreadSanitizer, each in its own build directory, the real
## `lifecycle` processes the tests start included (a full build each; not part of `make test`).
test-asan: deps test-venv
	$(SWIFT) build --build-tests --build-path .build/asan --sanitize=address
	ASAN_OPTIONS=detect_leaks=0 scripts/with-postgres.sh $(SWIFT) test --skip-build --build-path .build/asan \
	  --sanitize=address --no-parallel

## LIFECYCLE_TSAN swaps Synchronization.Mutex for a pthread mutex TSan can see (ThreadSanitizerMutex.swift).
## The two-instance test is skipped under TSan: its timing (10 s leases, 5 s webhook timeout) was not made
## for TSan's slowdown, under which leases rightly hand deliveries on (README).
TSAN_FLAGS := --build-path .build/tsan --sanitize=thread -Xswiftc -DLIFECYCLE_TSAN
test-tsan: deps test-venv
	$(SWIFT) build --build-tests $(TSAN_FLAGS)
	TSAN_OPTIONS=halt_on_error=1 scripts/with-postgres.sh $(SWIFT) test --skip-build $(TSAN_FLAGS) --no-parallel \
	  --skip MultiInstanceTests

## libFuzzer over every parser of outside input (Sources/LifecycleFuzzing, one target per parser): one
## instrumented binary (-sanitize=fuzzer,address, release) in .build/fuzz, then FUZZ_SECONDS per target,
## continued until FUZZ_MIN_RUNS executions where a target is slower (FUZZ_SECONDS_<target>=N sets one
## target's time). FUZZ_TARGETS limits the run to some targets.
FUZZ_SECONDS ?= 60
FUZZ_MIN_RUNS ?= 1000000
FUZZ_TARGETS ?=
fuzz-build: deps
	LIFECYCLE_FUZZ=1 $(SWIFT) build -c release --build-path .build/fuzz --product lifecycle-fuzz \
	  -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld

fuzz: fuzz-build
	FUZZ_MIN_RUNS=$(FUZZ_MIN_RUNS) scripts/fuzz.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

## Durable ingest against the reference peer of ../shared/bench, interleaved in one run (scripts/bench-peer.sh:
## setup.sh once, a release build, REPS=3 repetitions of peer / realistic / webhook receiver down, 16
## connections, 10 s, fresh databases, every 200 counted in the store; prints each run and the ratio of medians).
bench-peer: deps
	scripts/bench-peer.sh

clean:
	rm -rf .build var
