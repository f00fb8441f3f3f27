# Two commands on a fresh machine: `make run` and `make test`.
SWIFT ?= swift
DEV_DIR ?= var/dev
CONFIG ?= $(DEV_DIR)/lifecycle.json
LIFECYCLE := .build/debug/lifecycle
APT_PACKAGES := libsqlite3-dev libssl-dev libpq-dev pkg-config

.PHONY: run test test-sqlite test-deps test-venv test-asan test-tsan fuzz fuzz-build build release deps lint format \
	dev-setup bench-peer clean

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

## The whole suite: format lint, every test target in parallel, then the testssl.sh scan of the TLS listener
## on its own (it keeps both cores busy for a minute). Deadline rules are tested on the HTTP connection state
## machine with a manual clock, so no test depends on how fast a busy machine schedules it; suites that share
## something real (fixed ports, one PostgreSQL database across processes) say `.serialized` and why. The store
## suite runs against SQLite and against a throwaway PostgreSQL cluster (scripts/with-postgres.sh; it reuses
## LIFECYCLE_TEST_POSTGRES_URL when set). At most TEST_WIDTH test cases run at once (default twice the cores):
## unbounded, hundreds of tests queue on the cores' few concurrency threads and a server's handler waits behind
## CPU-bound tests long enough for its client to time out. The two-instance test (two `serve` processes, most
## of its minute spent waiting on them) runs at the same time in a test process of its own, started first so
## it is not queued behind the rest; its output is printed after the suite's (.build/multi-instance.log).
TEST_WIDTH ?= $(shell echo $$(( $$(nproc) * 2 )))
PARALLEL := --experimental-maximum-parallelization-width $(TEST_WIDTH)
TEST_BUNDLE = $$($(SWIFT) build --show-bin-path)/AccountLifecyclePackageTests.xctest
test: deps test-deps test-venv
	$(MAKE) lint
	$(SWIFT) build --build-tests
	scripts/with-postgres.sh sh -c 'bundle=$(TEST_BUNDLE); \
	  "$$bundle" --testing-library swift-testing --filter MultiInstanceTests >.build/multi-instance.log 2>&1 & \
	  instances=$$!; $(SWIFT) test --skip-build $(PARALLEL) --skip MultiInstanceTests; suite=$$?; \
	  wait $$instances; two=$$?; cat .build/multi-instance.log; \
	  echo "make test: suite exit $$suite, two-instance test exit $$two"; [ $$suite -eq 0 ] && [ $$two -eq 0 ]'
	LIFECYCLE_TESTSSL=1 $(SWIFT) test --skip-build --filter TestsslScanTests

## The same suite without PostgreSQL: the PostgreSQL store tests are skipped, with the reason printed.
test-sqlite: deps test-deps test-venv
	$(MAKE) lint
	$(SWIFT) build --build-tests
	env -u LIFECYCLE_TEST_POSTGRES_URL $(SWIFT) test --skip-build $(PARALLEL)
	LIFECYCLE_TESTSSL=1 $(SWIFT) test --skip-build --filter TestsslScanTests

## Test-only tools from Debian: testssl.sh scans the HTTPS listener, headless chromium renders the HTML
## report (each test is skipped, saying why, when its tool is absent).
test-deps:
	@dpkg -s testssl.sh >/dev/null 2>&1 || { \
	  SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq testssl.sh \
	  || echo "testssl.sh could not be installed; its scan will be skipped"; }
	@dpkg -s chromium >/dev/null 2>&1 || { \
	  SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO=sudo; \
	  { $$SUDO apt-get update -qq; DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium; } \
	  || echo "chromium could not be installed; the HTML rendering test will be skipped"; }

## Test-only tools from PyPI (Tests/OutsideClients/requirements.txt: schemathesis, standardwebhooks) in
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
## The two-instance test is skipped under TSan: its bound on redeliveries assumes deliveries finish within
## the 2 s outbox lease, which TSan's slowdown breaks (the lease then rightly hands them on; README).
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
