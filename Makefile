# Fabrica — `make help` lists the targets.
SHELL := /bin/bash
export GOTOOLCHAIN := local
# The binary defaults to production (fail closed); everything make runs here is development unless the
# caller says otherwise (APP_ENV=staging make migrate-up).
export APP_ENV ?= development
GO      ?= go
BIN     := bin/fabrica
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
# One static binary, the same bytes from a checkout or the Dockerfile's build stage (a test holds the two
# commands equal): no cgo, no local paths, no symbol table, no VCS stamp (the version is stamped instead,
# and the image's build context has no .git).
BUILD_ENV   := CGO_ENABLED=0
BUILD_FLAGS := -buildvcs=false -trimpath -ldflags "-s -w -X main.version=$(VERSION)"
IMAGE   ?= fabrica:$(VERSION)
ENGINE  ?= $(shell command -v podman >/dev/null 2>&1 && echo podman || echo docker)
IMAGE_FLAGS ?=

.DEFAULT_GOAL := help

.PHONY: help
help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: build
build: ## build bin/fabrica: static (CGO_ENABLED=0), version stamped
	$(BUILD_ENV) $(GO) build $(BUILD_FLAGS) -o $(BIN) ./backend/cmd/fabrica

.PHONY: image
image: ## build the container image from the Dockerfile (podman, else docker): make image IMAGE=fabrica:tag
	$(ENGINE) build $(IMAGE_FLAGS) --build-arg VERSION=$(VERSION) -t $(IMAGE) .

.PHONY: image-smoke
image-smoke: ## build the image here and probe /health/ready of a container on a throwaway Postgres (root, Debian)
	scripts/image-smoke.sh

.PHONY: run
run: build ## start a local Postgres if needed, migrate, and serve on :8080 (Ctrl-C stops)
	scripts/run-dev.sh

.PHONY: run-pooled
run-pooled: build ## scale-out on this machine: PgBouncer, 3 serve on :8081-8083, 1 worker (docs/scaling.md)
	scripts/run-pooled.sh

.PHONY: db-stop
db-stop: ## stop the project-local development Postgres (data is kept)
	scripts/dev-db.sh stop

.PHONY: test
test: ## run the whole test suite against real Postgres and PgBouncer (installs them when missing)
	@scripts/ensure-postgres.sh >/dev/null
	@scripts/ensure-pgbouncer.sh >/dev/null
	$(GO) test -race -count=1 ./...

.PHONY: test-one
test-one: ## one package, fast, without -race: make test-one PKG=./backend/internal/credits [RUN=TestName]
	@test -n "$(PKG)" || (echo "usage: make test-one PKG=./backend/internal/credits [RUN=TestName]" >&2; exit 2)
	@scripts/ensure-postgres.sh >/dev/null
	$(GO) test -count=1 $(if $(RUN),-run '$(RUN)') $(PKG)

.PHONY: test-browser
test-browser: ## the operator console and the API viewer in headless Chromium against a real server and Postgres; screenshots in build/screenshots/
	@scripts/ensure-postgres.sh >/dev/null
	@scripts/ensure-chromium.sh >/dev/null
	$(GO) test -tags browser -count=1 -timeout 5m -run 'InABrowser' -v ./backend/internal/app/

.PHONY: lint
lint: ## go vet + staticcheck + gofmt check
	$(GO) vet ./...
	$(GO) vet -tags browser ./backend/internal/app/
	$(GO) tool staticcheck ./...
	$(GO) tool staticcheck -tags browser ./backend/internal/app/
	@out=$$(gofmt -l backend migrations docs); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

.PHONY: fmt
fmt: ## format the code
	gofmt -w backend migrations docs

.PHONY: migrate-up migrate-down migrate-status
migrate-up: build ## apply pending migrations to DATABASE_URL (or the local dev database)
	@DATABASE_URL=$${DATABASE_URL:-$$(scripts/dev-db.sh start)} $(BIN) migrate up
migrate-down: build ## roll back the latest migration
	@DATABASE_URL=$${DATABASE_URL:-$$(scripts/dev-db.sh start)} $(BIN) migrate down
migrate-status: build ## show applied and pending migrations
	@DATABASE_URL=$${DATABASE_URL:-$$(scripts/dev-db.sh start)} $(BIN) migrate status

.PHONY: migrate-new
migrate-new: build ## create migrations/NNNNN_<name>.sql: make migrate-new name=add_invoices
	@test -n "$(name)" || (echo "usage: make migrate-new name=add_invoices" >&2; exit 2)
	$(BIN) migrate create $(name)

.PHONY: bench
bench: ## Go benchmarks, then the load benchmarks: server vs pgbench on one cluster (docs/benchmarks.md)
	@scripts/ensure-postgres.sh >/dev/null
	$(GO) test -run '^$$' -bench . -benchmem ./...
	scripts/bench.sh
	scripts/bench-usage.sh
	scripts/bench-ledger.sh

.PHONY: mutate
mutate: ## mutation testing of one package tree, printing the survivors: make mutate PKG=./backend/internal/billing/... [MUTATE_FLAGS='-E ^tiers'] (docs/testing.md)
	@test -n "$(PKG)" || (echo "usage: make mutate PKG=./backend/internal/billing/... [MUTATE_FLAGS='gremlins unleash flags']" >&2; exit 2)
	scripts/mutate.sh $(PKG) $(MUTATE_FLAGS)

.PHONY: disposable-update
disposable-update: ## re-download the embedded disposable-email blocklist from npm: make disposable-update version=1.26.0
	scripts/update-disposable-domains.sh $(version)

.PHONY: chaos
chaos: build ## chaos suite: kill -9, SIGTERM and a Postgres restart under load, then check every effect once (~2.5 min; docs/reliability.md)
	@pg_bindir=$$(scripts/ensure-postgres.sh) && \
	  $(GO) build -o bin/chaos ./backend/cmd/chaos && \
	  PG_BINDIR=$$pg_bindir bin/chaos -fabrica $(BIN)

.PHONY: rename
rename: ## make the project yours: make rename MODULE=github.com/acme/app NAME=Acme (docs/making-it-yours.md)
	@scripts/rename.sh "$(MODULE)" "$(NAME)"

.PHONY: rename-check
rename-check: ## rename a scratch clone to example.com/acme/app (Acme), check nothing of the old names is left, run its tests
	scripts/rename-check.sh

.PHONY: simulate
simulate: build ## the scenario library (scenarios/) on its own dev server and fresh database: orderly, then chaos with 3 seeds, then fabrica verify (~2.5 min; docs/simulate.md)
	scripts/simulate.sh

.PHONY: clean
clean: ## remove build output (not the dev database: see db-stop)
	rm -rf bin
