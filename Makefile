# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
HOST ?= 127.0.0.1
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: run setup test test-fast test-browser test-engines lint lock format admin messages clean cluster cluster-stop chromium

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

setup: $(VENV)/.runtime messages
	$(BIN)/python manage.py migrate --no-input -v 0
	$(BIN)/python manage.py setup_casino
	$(BIN)/python manage.py repair_rounds --refund

run: setup
	@echo "Serving the casino on http://$(HOST):$(PORT)"
	$(BIN)/python -m daphne -b $(HOST) -p $(PORT) casino.asgi:application

admin: setup
	$(BIN)/python manage.py createsuperuser

chromium:
	@command -v chromium >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; \
	  else echo "Install Debian's chromium for the browser tests (apt-get install chromium)"; fi; }

# pytest exits 5 when a selection has no tests; that is not a failure here.
test: $(VENV)/.dev messages chromium
	$(BIN)/python -m pytest -m "not browser" -q || [ $$? -eq 5 ]
	$(MAKE) --no-print-directory test-engines
	DJANGO_ALLOW_ASYNC_UNSAFE=true CASINO_SQLITE_PATH=$(CURDIR)/db/browser.sqlite3 \
	  $(BIN)/python -m pytest -m browser -q || [ $$? -eq 5 ]

test-fast: $(VENV)/.dev messages
	$(BIN)/python -m pytest -m "not browser" -q || [ $$? -eq 5 ]

test-browser: $(VENV)/.dev messages chromium
	DJANGO_ALLOW_ASYNC_UNSAFE=true CASINO_SQLITE_PATH=$(CURDIR)/db/browser.sqlite3 \
	  $(BIN)/python -m pytest -m browser -q || [ $$? -eq 5 ]

# The service, ledger and consumer tests again on PostgreSQL and Redis,
# started here on loopback ports of their own and stopped afterwards.
ENGINES_DIR ?= /tmp/casino-engines-$(ENGINES_PG_PORT)
ENGINES_PG_PORT ?= 55432
ENGINES_REDIS_PORT ?= 56379
ENGINE_TESTS := tests/games/test_wallet.py tests/games/services tests/games/consumers tests/engines
test-engines: $(VENV)/.dev messages
	ops/services.sh install
	ops/services.sh start $(ENGINES_DIR) $(ENGINES_PG_PORT) $(ENGINES_REDIS_PORT) >/dev/null
	DATABASE_URL=postgres://postgres@127.0.0.1:$(ENGINES_PG_PORT)/casino \
	REDIS_URL=redis://127.0.0.1:$(ENGINES_REDIS_PORT)/0 \
	  $(BIN)/python -m pytest -m "not browser" -q $(wildcard $(ENGINE_TESTS)); \
	  status=$$?; ops/services.sh stop $(ENGINES_DIR); [ $$status -eq 0 ] || [ $$status -eq 5 ]

cluster: $(VENV)/.runtime messages
	WORKERS=$(or $(WORKERS),2) PORT=$(PORT) ops/cluster.sh start

cluster-stop:
	ops/cluster.sh stop

lint: $(VENV)/.dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(VENV)/.dev
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

clean:
	rm -rf db staticfiles
