"""Stage 4, candidates: the knowledge base's entities a group's names may stand for."""

from __future__ import annotations

from herald.entities.document import Group, main_label, surface_key
from herald.entities.kb import KnowledgeBase
from herald.entities.known import products_in_plural
from herald.entities.model import EntityRecord
from herald.entities.names import alias_key, strip_corporate_suffix, without_initials
from herald.entities.shapes import edition_of


def candidates_of(kb: KnowledgeBase, group: Group) -> dict[str, tuple[EntityRecord, float]]:
    """The entities the group's spellings name, by id, each with how well the name matches
    (1.0 for its display name, 0.8 for another of its names): looked up by name and alias,
    without a company's suffix ("Apple Inc."), in the singular ("MacBook Pros"), without a
    person's initials ("Regina M. Benjamin"), and as the recurring event an edition is of
    ("the 79th Academy Awards")."""
    candidates: dict[str, tuple[EntityRecord, float]] = {}
    # A natural feature is named by its full name: "the Gulf" read with "the Gulf of Aden"
    # is not Gulf Province.
    longest = len(group.name.split()) if main_label(group) == "LOC" else 0
    # Longer spellings first: a short form joined to its full name ("Navy" after "the
    # Indian Navy") is looked up only when no longer one found anything.
    by_length = sorted(group.surfaces, key=lambda s: -len(s.split()))
    for surface in by_length:
        words = len(surface.split())
        if words < longest or (candidates and words == 1 < len(by_length[0].split())):
            continue
        key = surface_key(surface)
        for record in (
            kb.lookup(key)
            or kb.lookup(strip_corporate_suffix(key))
            or products_in_plural(kb, key)
            # "Regina M. Benjamin" is the Regina Benjamin known (people only)
            or [r for r in kb.lookup(without_initials(key)) if r.entity_kind == "person"]
        ):
            exact = alias_key(record.display_name) in (key, strip_corporate_suffix(key))
            candidates[record.id] = (record, 1.0 if exact else 0.8)
    edition = edition_of(group.name) if not candidates else None
    if edition is not None:  # "the 79th Academy Awards" are the Academy Awards
        for record in kb.lookup(alias_key(edition)):
            if record.entity_kind == "event":
                candidates[record.id] = (record, 0.8)
    return candidates
