# Herald: `make run` serves the embedded default with demo data; `make test` runs everything.
SHELL := /bin/bash
# The newest supported Python (3.13, 3.12, 3.11) that runs here; `make PYTHON=/path/python` picks one.
SUPPORTED := import sys; (3, 11) <= sys.version_info[:2] <= (3, 13) or sys.exit(1)
ifndef PYTHON
PYTHON := $(shell for p in python3.13 python3.12 python3.11 python3; do \
  $$p -c '$(SUPPORTED); print(sys.executable)' 2>/dev/null && break; done)
endif
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
CODE := src tests bench scripts clients/python/src build_backend
# The data directory as Herald resolves it: the environment, then ./.env, then ./.herald (what
# `make run` writes into .env, so that `make run` and a bare `herald` here agree).
ENV_HERALD_HOME := $(HERALD_HOME)
-include .env
HERALD_HOME := $(or $(ENV_HERALD_HOME),$(HERALD_HOME),$(CURDIR)/.herald)

.PHONY: setup run test lint typecheck docs clean-data

# Everything comes from PyPI with the exact versions of constraints.txt (no torch: the embedding
# model runs on ONNX Runtime), with the developers' tools of the `dev` dependency group. A
# production install needs none of them: `pip install -c constraints.txt .` (docs/deployment.md).
$(STAMP): pyproject.toml constraints.txt clients/python/pyproject.toml build_backend/herald_build.py
	@test -n "$(PYTHON)" && "$(PYTHON)" -c '$(SUPPORTED)' 2>/dev/null || { \
	  echo "Herald needs Python 3.11, 3.12 or 3.13: PYTHON='$(PYTHON)' is none of them (tried" \
	    "python3.13, python3.12, python3.11, python3); install one or run make PYTHON=/path/to/python" >&2; \
	  exit 1; }
	@echo "Installing Herald and its dependencies into $(VENV) with $(PYTHON): the first time only," \
	  "a few minutes without further output (pip -q), then 'herald db upgrade' follows"
	@test -x $(BIN)/python || "$(PYTHON)" -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade 'pip>=25.1'
	@# Herald with its client (clients/python) and the embedding model's files, which the build
	@# puts in place (build_backend/herald_build.py), then the developers' tools.
	$(BIN)/pip install -q -c constraints.txt -e . --group dev
	@touch $(STAMP)

setup: $(STAMP)

run: setup
	@grep -qs '^HERALD_HOME=' .env || echo 'HERALD_HOME=$(CURDIR)/.herald' >> .env
	$(BIN)/herald db upgrade
	$(BIN)/herald demo
	$(BIN)/herald serve

lint: setup
	$(BIN)/ruff check $(CODE)
	$(BIN)/ruff format --check $(CODE)
	$(BIN)/lint-imports

typecheck: setup
	$(BIN)/mypy
	cd clients/python && ../../$(BIN)/mypy

test: lint typecheck
	$(BIN)/pytest -n 2 --dist loadgroup --durations=25

docs: setup
	$(BIN)/python -m herald.cli.reference docs

clean-data:
	rm -rf $(HERALD_HOME)
