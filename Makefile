# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
HOST ?= 127.0.0.1
# Bytecode is cached outside the tree (.pycache/, ignored by git), so every
# test's and server's Python process skips compiling the project again (about
# 0.3 s a process, 9 CPU-s a fast suite); a caller's PYTHONDONTWRITEBYTECODE
# would turn the cache off, so make does not pass it on.
unexport PYTHONDONTWRITEBYTECODE
export PYTHONPYCACHEPREFIX := $(CURDIR)/.pycache

.PHONY: run setup test test-suites coverage test-fast test-browser test-engines test-cluster lint lock format admin messages clean cluster cluster-stop chromium prometheus

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Installs come from the hashed locks only (requirements*.txt, written by
# `make lock` from requirements*.in); the dev lock holds the runtime one.
$(VENV)/.runtime: requirements.txt | $(BIN)/python
	$(BIN)/pip install -q --require-hashes -r requirements.txt
	touch $@

$(VENV)/.dev: requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/pip install -q --require-hashes -r requirements-dev.txt
	touch $@ $(VENV)/.runtime

# After editing requirements*.in: pin and hash again (options in pyproject's
# [tool.pip-tools]); pins already in the locks stay unless an .in asks otherwise.
lock: $(VENV)/.dev
	$(BIN)/pip-compile -q requirements.in
	$(BIN)/pip-compile -q requirements-dev.in

messages: $(VENV)/.runtime
	@command -v msgfmt >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get install -y -q gettext >/dev/null; }
	$(BIN)/python manage.py compilemessages --ignore=.venv -v 0

# make run serves production settings on loopback http: debug off (no
# traceback or URL list for a visitor; staff give a second factor), a secret
# key of its own (db/secret_key, made once), cookies over plain http. Behind
# TLS, set DJANGO_SECURE_SSL_REDIRECT=1 and DJANGO_SECURE_COOKIES=1 (and
# DJANGO_HSTS_SECONDS). `make run DEBUG=1` for development. Variables already
# in the environment win.
DEBUG ?= 0
run setup admin: export DJANGO_DEBUG ?= $(DEBUG)
run setup admin: export DJANGO_SECURE_SSL_REDIRECT ?= 0
run setup admin: export DJANGO_SECURE_COOKIES ?= 0
run setup admin: export DJANGO_HSTS_SECONDS ?= 0

# Made before anything loads the settings with debug off (it reads the
# development key that sealed any seeds already stored).
db/secret_key: | $(VENV)/.runtime
	DJANGO_DEBUG=1 $(BIN)/python manage.py make_secret_key

# The commitment log's signing key, made once (db/log_key); the witness
# `make run` runs beside the site, its key registered with the site.
db/log_key: | $(VENV)/.runtime
	DJANGO_DEBUG=1 $(BIN)/python manage.py make_log_key
db/log_witnesses: | $(VENV)/.runtime
	DJANGO_DEBUG=1 $(BIN)/python manage.py witness --state db/witness.json --key > $@

# collectstatic: with DJANGO_DEBUG=0 the pages name the static files by
# their hashed names, which whitenoise serves from STATIC_ROOT.
setup: $(VENV)/.runtime db/secret_key db/log_key db/log_witnesses messages
	$(BIN)/python manage.py migrate --no-input -v 0
	$(BIN)/python manage.py setup_casino
	$(BIN)/python manage.py repair_rounds --refund
	$(BIN)/python manage.py integrate_log
	$(BIN)/python manage.py cleanup_demo
	$(BIN)/python manage.py collectstatic --no-input -v 0

# One hypercorn serves pages (Django's ASGI handler) and sockets (Channels),
# chosen on measurement (docs/front-door.md): it closes a connection whose
# request head is not all there after HEAD_SECONDS (slow clients), and
# reads a body only as the site asks for it, so casino/frontdoor/body_limit.py answers 413
# past CASINO_MAX_BODY_BYTES before more is read. Its other settings:
# casino/hypercorn_conf.py.
HEAD_SECONDS ?= 5
run: setup
	@echo "Serving the casino on http://$(HOST):$(PORT)"
	$(BIN)/python manage.py witness --state db/witness.json --url http://$(HOST):$(PORT) --every 10 &
	$(BIN)/python -m hypercorn -c python:casino.hypercorn_conf --bind $(HOST):$(PORT) --keep-alive $(HEAD_SECONDS) casino.asgi:application

admin: setup
	$(BIN)/python manage.py createsuperuser

# The browser suite drives Debian's chromium-headless-shell (Chromium's
# headless build alone, less CPU than the full browser); tests/conftest.py
# falls back to the full chromium where the shell is missing.
chromium:
	@command -v chromium-headless-shell >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium-headless-shell; \
	  else echo "Install Debian's chromium-headless-shell for the browser tests (apt-get install chromium-headless-shell)"; fi; }

# Debian's prometheus: promtool for the alert rules' tests
# (tests/ops/test_prometheus_rules.py) and the cluster's Prometheus; installed
# without its system service (ops/prometheus.sh).
prometheus:
	@command -v promtool >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then ops/prometheus.sh install; \
	  else echo "Install Debian's prometheus for the rule tests (apt-get install prometheus)"; exit 1; fi; }

# The fast and browser suites run on TEST_WORKERS pytest-xdist workers (auto:
# one a core). Each worker has a test database of its own (pytest-django adds
# _gw0, _gw1 to its name), and in the browser suite its own server (make run's)
# on its own file (tests/conftest.py's worker_database). worksteal hands each
# worker half the tests in order, so a module's fixtures mostly start once, and
# moves tests from a busy worker to an idle one. TEST_WORKERS=0: one process.
TEST_WORKERS ?= auto
XDIST := -n $(TEST_WORKERS) --dist worksteal

# make test runs every suite and prints the time they took (the installs
# before them not counted), as CI reads it. The cluster stage, the browser
# suite and the browser's own JavaScript under node run beside the fast
# suite, which ends last (the machine is busy throughout); their output is
# kept in CLUSTER_TEST_LOG, BROWSER_TEST_LOG and NODE_TEST_LOG and printed
# when they end (the times: docs/measurements/test-times.md). Every suite
# runs even when another failed; make test fails if any did.
# The served site the tests copy (migrated, its static files collected:
# tests/make_run.py) is made once for all of them, in CASINO_TEST_SITE.
# pytest exits 5 when a selection has no tests; that is not a failure here.
# Coverage is `make coverage`, apart (CI runs both).
CLUSTER_TEST_LOG ?= /tmp/casino-cluster-test.log
BROWSER_TEST_LOG ?= /tmp/casino-browser-test.log
NODE_TEST_LOG ?= /tmp/casino-node-test.log
test: $(VENV)/.dev messages chromium prometheus
	@start=$$(date +%s); status=0; \
	  $(MAKE) --no-print-directory test-suites || status=$$?; \
	  echo "make test took $$(( $$(date +%s) - start )) s"; exit $$status

test-suites:
	@export CASINO_TEST_SITE=$$(mktemp -d)/casino-site; status=0; \
	  $(MAKE) --no-print-directory test-cluster > $(CLUSTER_TEST_LOG) 2>&1 & cluster=$$!; \
	  DJANGO_ALLOW_ASYNC_UNSAFE=true CASINO_SQLITE_PATH=$(CURDIR)/db/browser.sqlite3 \
	    $(BIN)/python -m pytest -m browser -q $(XDIST) > $(BROWSER_TEST_LOG) 2>&1 & browser=$$!; \
	  node --test tests/js/ > $(NODE_TEST_LOG) 2>&1 & node=$$!; \
	  $(BIN)/python -m pytest -m "not browser" -q $(XDIST) || [ $$? -eq 5 ] || status=1; \
	  wait $$node || status=1; echo "--- JavaScript"; cat $(NODE_TEST_LOG); \
	  wait $$cluster || status=1; echo "--- cluster stage"; cat $(CLUSTER_TEST_LOG); \
	  wait $$browser || [ $$? -eq 5 ] || status=1; echo "--- browser suite"; cat $(BROWSER_TEST_LOG); \
	  rm -rf "$$(dirname $$CASINO_TEST_SITE)"; exit $$status

# The fast suite under coverage (pytest-cov gathers every worker's data into
# one file); the report prints the total and fails under the floor in
# pyproject's [tool.coverage.report] (no report after exit 5).
coverage: $(VENV)/.dev messages prometheus
	$(BIN)/python -m pytest -m "not browser" -q $(XDIST) --cov --cov-report= --cov-fail-under=0; \
	  status=$$?; \
	  if [ $$status -eq 0 ]; then $(BIN)/python -m coverage report; else [ $$status -eq 5 ]; fi

test-fast: $(VENV)/.dev messages prometheus
	$(BIN)/python -m pytest -m "not browser" -q $(XDIST) || [ $$? -eq 5 ]
	node --test tests/js/

test-browser: $(VENV)/.dev messages chromium
	DJANGO_ALLOW_ASYNC_UNSAFE=true CASINO_SQLITE_PATH=$(CURDIR)/db/browser.sqlite3 \
	  $(BIN)/python -m pytest -m browser -q $(XDIST) || [ $$? -eq 5 ]

# The tests marked `engines` (pyproject's markers: what holds only on
# PostgreSQL, Redis or the cluster's servers) again on PostgreSQL and Redis,
# started here on loopback ports of their own and stopped afterwards; every
# other test runs on SQLite in the fast suite alone.
# Test ports sit below the kernel's range for outgoing connections (32768-60999
# here), so a busy machine's client sockets can never hold them.
ENGINES_DIR ?= /tmp/casino-engines-$(ENGINES_PG_PORT)
ENGINES_PG_PORT ?= 25432
ENGINES_REDIS_PORT ?= 26379
# Only the files that name the marker: collecting the whole tree to
# deselect all but a few dozen tests costs about 10 s of CPU.
ENGINE_TESTS = -m "engines and not browser" $(shell grep -rlw --include='test_*.py' engines tests | sort)
test-engines: $(VENV)/.dev messages
	ops/services.sh install
	ops/services.sh start $(ENGINES_DIR) $(ENGINES_PG_PORT) $(ENGINES_REDIS_PORT) >/dev/null
	DATABASE_URL=postgres://postgres@127.0.0.1:$(ENGINES_PG_PORT)/casino \
	REDIS_URL=redis://127.0.0.1:$(ENGINES_REDIS_PORT)/0 \
	  $(BIN)/python -m pytest -q $(ENGINE_TESTS); \
	  status=$$?; ops/services.sh stop $(ENGINES_DIR); [ $$status -eq 0 ] || [ $$status -eq 5 ]

# The engine tests on the PostgreSQL and Redis of a cluster started here on
# ports of its own (gunicorn + uvicorn + nginx), among them those that play
# against that cluster over HTTP and websockets (tests/engines/test_cluster.py,
# the front door's attacks on nginx), which CASINO_CLUSTER_URL points at it.
# One process: the tests share one cluster and one Redis database.
# pytest uses Redis database 1, the cluster database 0.
CLUSTER_TEST_DIR ?= /tmp/casino-cluster-test
CLUSTER_TEST_PORT ?= 28000
CLUSTER_TEST_PG_PORT ?= 25434
CLUSTER_TEST_REDIS_PORT ?= 26381
CLUSTER_TEST_PROMETHEUS_PORT ?= 28161
CLUSTER_TEST_ENV := CLUSTER_DIR=$(CLUSTER_TEST_DIR) PORT=$(CLUSTER_TEST_PORT) \
  CLUSTER_PG_PORT=$(CLUSTER_TEST_PG_PORT) CLUSTER_REDIS_PORT=$(CLUSTER_TEST_REDIS_PORT) \
  CLUSTER_WORKER_BASE=28101 HTTP_WORKERS=2 WS_WORKERS=2 CASINO_REVEAL_DELAY=0.05 CASINO_REVEAL_FAST_DELAY=0.01 \
  CLUSTER_PROMETHEUS_PORT=$(CLUSTER_TEST_PROMETHEUS_PORT) PROMETHEUS_SCRAPE_SECONDS=2
test-cluster: $(VENV)/.dev messages
	$(CLUSTER_TEST_ENV) ops/cluster.sh start
	CASINO_CLUSTER_URL=http://127.0.0.1:$(CLUSTER_TEST_PORT) \
	CASINO_PROMETHEUS_URL=http://127.0.0.1:$(CLUSTER_TEST_PROMETHEUS_PORT) \
	CASINO_CLUSTER_DIR=$(CLUSTER_TEST_DIR) \
	DATABASE_URL=postgres://postgres@127.0.0.1:$(CLUSTER_TEST_PG_PORT)/casino \
	REDIS_URL=redis://127.0.0.1:$(CLUSTER_TEST_REDIS_PORT)/1 \
	  $(BIN)/python -m pytest -q $(ENGINE_TESTS); \
	  status=$$?; $(CLUSTER_TEST_ENV) ops/cluster.sh stop >/dev/null; [ $$status -eq 0 ] || [ $$status -eq 5 ]

# HTTP_WORKERS gunicorn processes (default 2) and WS_WORKERS uvicorn
# processes (default 1) behind nginx on PORT (ops/cluster.sh).
cluster: $(VENV)/.runtime messages
	HTTP_WORKERS=$(or $(HTTP_WORKERS),$(WORKERS),2) WS_WORKERS=$(or $(WS_WORKERS),1) \
	  PORT=$(PORT) ops/cluster.sh start

cluster-stop:
	ops/cluster.sh stop

# Style, the layers (import-linter) and the types (mypy with django-stubs);
# all configured in pyproject.toml.
lint: $(VENV)/.dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/mypy

format: $(VENV)/.dev
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

clean:
	rm -rf db staticfiles

# --- Backups (games/backups.py, docs/operations.md) ----------------------------
# `make backup` takes a consistent backup while players play (SQLite: the
# online backup API; PostgreSQL: pg_dump) into CASINO_BACKUP_DIR (default
# backups/) and prints its path alone: BACKUP=$$(make -s backup).
# `make restore BACKUP=path` checks it against its manifest and replaces the
# database with it (stop the site first), then checks the ledger. Point in
# time recovery on PostgreSQL: ops/pitr.sh (pgBackRest, WAL archiving).
.PHONY: backup restore drill
backup: $(VENV)/.runtime
	@$(BIN)/python manage.py backup

restore: $(VENV)/.runtime
	@[ -n "$(BACKUP)" ] || { echo "usage: make restore BACKUP=path/to/casino-....sqlite3|.pgdump" >&2; exit 2; }
	$(BIN)/python manage.py restore --yes "$(BACKUP)"

# The restore drill (bench/drill.py) on both engines; PostgreSQL's on its own port.
DRILL_PG_PORT ?= 30432
drill: $(VENV)/.runtime
	ops/services.sh install
	$(BIN)/python bench/drill.py --database sqlite
	$(BIN)/python bench/drill.py --database postgres --pg-port $(DRILL_PG_PORT)
