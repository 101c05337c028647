"""Every implementation of the search port, with the database it runs on.

The contract suite (``test_contract.py``) runs each of its cases against every entry here; a new
adapter (a dedicated search engine, say) adds itself with the database it needs and the
``HERALD_SEARCH_BACKEND`` value that selects it, and must then pass the same cases.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

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
