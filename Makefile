# Two commands on a fresh machine: `make run` and `make test`.
SWIFT ?= swift
DEV_DIR ?= var/dev
CONFIG ?= $(DEV_DIR)/lifecycle.json
LIFECYCLE := .build/debug/lifecycle
APT_PACKAGES := libsqlite3-dev libssl-dev libpq-dev pkg-config

.PHONY: run test test-sqlite build release deps lint format dev-setup clean

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
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests

## The whole suite: format lint, then every test target, the store suite against SQLite and against a
## throwaway PostgreSQL cluster (scripts/with-postgres.sh; it reuses LIFECYCLE_TEST_POSTGRES_URL when set).
test: deps
	$(MAKE) lint
	$(SWIFT) build --build-tests
	scripts/with-postgres.sh $(SWIFT) test --skip-build

## The same suite without PostgreSQL: the PostgreSQL store tests are skipped.
test-sqlite: deps
	$(MAKE) lint
	$(SWIFT) build --build-tests
	env -u LIFECYCLE_TEST_POSTGRES_URL $(SWIFT) test --skip-build

clean:
	rm -rf .build var
