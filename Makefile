# Firn: two commands do everything on a fresh clone: `make run` and `make test`.
SHELL := /bin/bash
NODE ?= node
BIN := node_modules/.bin
TSX := $(NODE) --import tsx
TEST := $(TSX) --test --test-reporter=spec
FIRN_GIT_COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)
export FIRN_GIT_COMMIT

UNIT_TESTS = $(shell find test/unit test/sim -name '*.test.ts' | sort)
INTEGRATION_TESTS = $(shell find test/integration -name '*.test.ts' | sort)
EXAMPLES = $(shell find examples -maxdepth 1 -name '*.ts' | sort)

.PHONY: all install browser build run inspect test typecheck lint format test-unit test-integration examples bench bench-peers profile-transfers sim clean clean-data network network-stop

all: test

# Install what is missing: node_modules is rebuilt when package.json or the lock file changes.
# `npm install`, not `npm ci`: the registry this project builds against lacks some of biome's platform
# binaries (darwin, windows, musl), so the lock cannot list them and `npm ci` refuses it as out of sync.
# `npm install` installs the locked versions and skips the optional binaries it cannot fetch.
install: node_modules/.firn-installed
node_modules/.firn-installed: package.json package-lock.json
	npm install --no-audit --no-fund --loglevel=error
	@touch $@

# Web pages are tested in Debian's Chromium (driven by playwright-core): installed when missing.
CHROMIUM ?= /usr/bin/chromium
export CHROMIUM
browser: $(CHROMIUM)
$(CHROMIUM):
	@command -v apt-get >/dev/null || { echo "install Chromium and set CHROMIUM=<its path>"; exit 1; }
	$(if $(filter 0,$(shell id -u)),,sudo) apt-get update -qq
	$(if $(filter 0,$(shell id -u)),,sudo) apt-get install -y -qq --no-install-recommends chromium >/dev/null

## run: a dev node on 127.0.0.1:9650 (local network, this node the only validator, admin API on)
run: install
	$(NODE) bin/firn.js --dev $(ARGS)

## inspect: the same, with the actor system relayed to the Stately inspector (see docs/operations.md)
inspect: install
	$(NODE) bin/firn.js --dev --inspect-actors $(ARGS)

## network: five local validators on 127.0.0.1 (public test keys, data in ~/.firn/network); see README
network: install
	$(TSX) scripts/network.ts start

network-stop: install
	$(TSX) scripts/network.ts stop

## test: typecheck, lint, unit, integration, examples
test: install browser typecheck lint test-unit test-integration examples

typecheck: install
	$(BIN)/tsc --noEmit -p .

lint: install
	$(BIN)/biome check .

format: install
	$(BIN)/biome check --write .

test-unit: install
	$(TEST) $(UNIT_TESTS)

test-integration: install browser
	$(TEST) --test-concurrency=1 $(INTEGRATION_TESTS)

examples: install
	@set -e; for f in $(EXAMPLES); do echo "== $$f"; timeout 120 $(TSX) $$f; done

## bench: benchmarks, JSON on stdout
bench: install
	@set -e; for f in $$(find bench -maxdepth 1 -name '*.bench.ts' | sort); do timeout 1200 $(TSX) $$f; done

# the harness's preferred load generator (Debian's wrk), installed when missing
WRK ?= /usr/bin/wrk
## bench-peers: Firn next to Hardhat, anvil and the node:http floor on ../shared/bench-peers (scripts/bench-peers.ts)
bench-peers: install $(WRK)
	$(TSX) scripts/bench-peers.ts

$(WRK):
	@command -v apt-get >/dev/null || { echo "install wrk (or let the harness fall back to autocannon)"; exit 1; }
	$(if $(filter 0,$(shell id -u)),,sudo) apt-get update -qq
	$(if $(filter 0,$(shell id -u)),,sudo) apt-get install -y -qq --no-install-recommends wrk >/dev/null

## profile-transfers: a CPU profile (admin.startCPUProfiler) of Firn under each transfer workload of the harness
profile-transfers: install
	$(TSX) scripts/profile-transfers.ts

## sim: the consensus scale simulation, 5 to 100 validators in one process, JSON on stdout (docs/performance.md)
sim: install
	$(TSX) test/sim/run.ts $(ARGS)

clean:
	rm -rf node_modules build

## build: the compiled node in build/ (bin/build.mjs; `firn` and `make run` build it themselves when it is stale)
build: install
	$(NODE) bin/build.mjs

clean-data:
	rm -rf $(HOME)/.firn/dev
