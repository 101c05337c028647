"""The entity tests use the enrichment area's fixtures: a small real seed instead of the bundled
40,000 entities, and the session's models shared with every runtime."""

from __future__ import annotations

from herald.enrich.ner import Mention
from herald.entities.kb import KnowledgeBase
from herald.entities.linking import EntityLinker, LinkedEntity
from tests.enrich.conftest import enrich_runtime, settings, small_seed

__all__ = ["enrich_runtime", "settings", "small_seed"]


def linked(kb: KnowledgeBase, body: str, *spans: tuple[str, str]) -> dict[str, LinkedEntity]:
    """The entities linked in ``body`` when the recogniser found each (text, label) of
    ``spans`` at its first occurrence, by display name."""
    found = []
    for surface, label in spans:
        start = body.index(surface)
        found.append(Mention(surface, label, start, start + len(surface)))
    return {e.display_name: e for e in EntityLinker(kb).link("", body, found).entities}
