# Herald: `make run` serves the embedded default with demo data; `make test` runs everything.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
CODE := src tests bench scripts clients/python/src
# The data directory as Herald resolves it: the environment, then ./.env, then ./.herald (what
# `make run` writes into .env, so that `make run` and a bare `herald` here agree).
ENV_HERALD_HOME := $(HERALD_HOME)
-include .env
HERALD_HOME := $(or $(ENV_HERALD_HOME),$(HERALD_HOME),$(CURDIR)/.herald)

.PHONY: setup run test lint typecheck docs clean-data

# pip (not uv/poetry): torch 2.13.0 CPU comes from this machine's disk through pip's find-links;
# other installers would download a multi-GB CUDA build instead.
$(STAMP): pyproject.toml constraints.txt clients/python/pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade 'pip>=25'
	$(BIN)/pip install -q 'torch==2.13.0'
	$(BIN)/pip install -q -c constraints.txt -e '.[dev]'
	$(BIN)/pip install -q --no-deps -e clients/python
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
	$(BIN)/pytest -n 2 --dist loadgroup

docs: setup
	$(BIN)/python -m herald.cli.reference docs

clean-data:
	rm -rf $(HERALD_HOME)
