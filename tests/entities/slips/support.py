"""What the recogniser-slip tests share: mentions placed in a text, and what the linker
makes of them."""

from __future__ import annotations

import re

from herald.enrich.ner import Mention
from herald.entities.kb import KnowledgeBase
from herald.entities.linking import EntityLinker, LinkedEntity, LinkingConfig, LinkResult


def mentions(text: str, *spans: tuple[str, str]) -> list[Mention]:
    """Mentions of ``(surface, label)`` at the surface's first occurrence in ``text``."""
    out = []
    for surface, label in spans:
        start = text.index(surface)
        out.append(Mention(surface, label, start, start + len(surface)))
    return out


def every(text: str, surface: str, label: str) -> list[Mention]:
    """Mentions of ``surface`` at each of its occurrences in ``text``."""
    starts = [m.start() for m in re.finditer(re.escape(surface), text)]
    return [Mention(surface, label, start, start + len(surface)) for start in starts]


def by_name(result: LinkResult) -> dict[str, LinkedEntity]:
    return {e.display_name: e for e in result.entities}


def linked(
    kb: KnowledgeBase, body: str, *spans: tuple[str, str], config: LinkingConfig | None = None
) -> dict[str, LinkedEntity]:
    """The entities linked in ``body`` from the mentions ``spans`` (see :func:`mentions`)."""
    return by_name(EntityLinker(kb, config).link("", body, mentions(body, *spans)))


NATIONALITIES = LinkingConfig(nationalities=True)  # HERALD_ENTITY_NATIONALITIES=link
