"""Fixtures of the search area: the session's embedding model on every runtime."""

from __future__ import annotations

import pytest

from herald.runtime import Runtime
from tests.enrich.models import embedder


@pytest.fixture
def search_runtime(runtime: Runtime) -> Runtime:
    runtime.service("embedder", embedder)  # the session's model, not one per test
    return runtime
