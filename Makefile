# The two commands a newcomer needs (see README.md):
#   make research   set up .venv and answer a real question end to end on the embedded corpus
#   make test       set up .venv and run lint, type checks and the whole test suite
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
QUESTION ?= How do I make a shallow copy of an object in Python?

.PHONY: setup research test lint bench clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

research: setup
	$(BIN)/quotebound research "$(QUESTION)"

lint: setup
	$(BIN)/ruff check src tests bench graphs
	$(BIN)/ruff format --check src tests bench graphs
	$(BIN)/mypy

test: lint
	$(BIN)/pytest -q

bench: setup
	status=0; for f in bench/bench_*.py; do echo "== $$f"; $(BIN)/python $$f || status=1; done; exit $$status

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
