"""The entity tests use the enrichment area's fixtures: a small real seed instead of the bundled
40,000 entities, and the session's models shared with every runtime."""

from __future__ import annotations

from tests.enrich.conftest import enrich_runtime, settings, small_seed

__all__ = ["enrich_runtime", "settings", "small_seed"]
