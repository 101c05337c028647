"""Every implementation of the search port, with the database it runs on.

The contract suite (``test_contract.py``) runs each of its cases against every entry here; a new
adapter (a dedicated search engine, say) adds itself with the database it needs and the
``HERALD_SEARCH_BACKEND`` value that selects it, and must then pass the same cases.

A test module runs its tests on every implementation by importing the fixtures ``implementation``,
``backend`` and ``settings`` from here (named in its ``__all__``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from herald.config import Settings


@dataclass(frozen=True, slots=True)
class Implementation:
    database: str  # the ``backend`` fixture: sqlite or postgres
    search_backend: str  # HERALD_SEARCH_BACKEND
    adapter: str  # the name the adapter reports (``SearchService.backend``)


IMPLEMENTATIONS: dict[str, Implementation] = {
    # Tantivy + usearch on local disk, synced from the database's change sequence.
    "embedded-sqlite": Implementation("sqlite", "embedded", "embedded"),
    "embedded-postgres": Implementation("postgres", "embedded", "embedded"),
    # The full-text index inside PostgreSQL (tsvector/GIN), vectors per process.
    "postgresql": Implementation("postgres", "postgresql", "postgresql"),
}


def settings_for(implementation: Implementation, home: Path, database_url: str) -> Settings:
    return Settings(
        home=home,
        database_url=database_url,
        log_format="text",
        rate_limit_per_minute=0,
        search_backend=implementation.search_backend,
    )


@pytest.fixture(params=list(IMPLEMENTATIONS))
def implementation(request: pytest.FixtureRequest) -> Implementation:
    return IMPLEMENTATIONS[str(request.param)]


@pytest.fixture
def backend(implementation: Implementation) -> str:
    return implementation.database


@pytest.fixture
def settings(implementation: Implementation, home: Path, database_url: str) -> Settings:
    return settings_for(implementation, home, database_url)
