"""What the within-document tests share: mentions placed at the n-th occurrence of their text,
and the linked entities by name."""

from __future__ import annotations

import re

from herald.enrich.ner import Mention
from herald.entities.linking import LinkedEntity, LinkResult


def by_name(result: LinkResult) -> dict[str, LinkedEntity]:
    return {e.display_name: e for e in result.entities}


def mentions(text: str, *spans: tuple[str, str, int]) -> list[Mention]:
    """Mentions of ``(surface, label, occurrence)``: the n-th (0-based) occurrence in text."""
    out = []
    for surface, label, occurrence in spans:
        found = [m.start() for m in re.finditer(re.escape(surface), text)]
        start = found[occurrence]
        out.append(Mention(surface, label, start, start + len(surface)))
    return out
