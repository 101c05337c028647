"""Fixtures of this area: a small real seed instead of the bundled 40,000 entities, and the
session's models shared with every runtime (loading them per test would take seconds each)."""

from __future__ import annotations

from pathlib import Path

import pytest

from herald.config import Settings
from herald.runtime import Runtime
from tests.enrich.factories import write_small_seed
from tests.enrich.models import embedder


@pytest.fixture(scope="session")
def small_seed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_small_seed(tmp_path_factory.mktemp("seed") / "seed.jsonl")


@pytest.fixture
def settings(home: Path, database_url: str, small_seed: Path) -> Settings:
    return Settings(
        home=home, database_url=database_url, log_format="text", entity_seed=str(small_seed)
    )


@pytest.fixture
def enrich_runtime(runtime: Runtime) -> Runtime:
    runtime.service("embedder", embedder)
    return runtime
