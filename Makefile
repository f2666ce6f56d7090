# The two set-up commands are `make run` and `make test`; see README.md.
SHELL := /bin/bash
.DEFAULT_GOAL := build
RUN_DIR ?= .run
PORT ?= 6443
API_DOMAIN ?= plat.io
BINARIES := plat-apiserver

node_modules/.installed: package.json package-lock.json $(wildcard */*/package.json) test/package.json bench/package.json
	npm ci --no-audit --no-fund
	@touch $@

.PHONY: install build run test test-deps check-boundaries bench clean
install: node_modules/.installed

build: install
	npx tsc -b
	@mkdir -p bin
	@printf '#!/usr/bin/env bash\nexec node "$$(dirname "$$(readlink -f "$$0")")/../apps/apiserver/dist/main.js" "$$@"\n' > bin/plat-apiserver
	@chmod +x $(addprefix bin/,$(BINARIES))

# One replica on the embedded backend, with an admin token and a kubeconfig under $(RUN_DIR).
run: build
	node scripts/run-local.mjs --dir=$(RUN_DIR) --port=$(PORT) --api-domain=$(API_DOMAIN)

# etcd and redis come from Debian's packages when they are missing.
test-deps:
	@missing=(); command -v etcd >/dev/null || missing+=(etcd-server); command -v redis-server >/dev/null || missing+=(redis-server); \
	if [ $${#missing[@]} -gt 0 ]; then \
	  echo "installing $${missing[*]}"; SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends "$${missing[@]}"; \
	fi

check-boundaries: install
	node scripts/check-boundaries.mjs

test: test-deps build check-boundaries
	node --test $$(find packages apps test -path '*/node_modules' -prune -o -path '*/dist/*' -name '*.test.js' -print | sort)

bench: build
	node bench/dist/storage/storage.bench.js

clean:
	npx tsc -b --clean
	rm -rf bin
