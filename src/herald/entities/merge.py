"""Which discovered entities are the same as a knowledge-base entity, once the knowledge base
knows it.

Linking adds an entity of its own for a confident name the knowledge base lacks (a discovered
entity). When a seed or an import later adds that entity ("Barack Obama" before and after the
seed knew him), new content links to the knowledge base's entity while older content, entity
search and saved searches still hold the discovered one. The two are merged when the
discovered entity's name (a person's also without initials) is a name of exactly one
knowledge-base entity of a compatible kind:

- a person only with a person;
- an organisation, company or product with any of the three (linking guesses which of them a
  name it does not know is);
- a place with a place in the same country and region when the text placed it ("Harriman,
  Tennessee" is not merged into a Harriman elsewhere);
- an event with an event.

A person known by one word beside another ("Portia" with Ellen DeGeneres) merges nothing:
one word names too many people.

A name several knowledge-base entities share ("Paris" the city in France and the one in Texas)
merges nothing: which one the older content meant cannot be told without reading it again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from herald.entities.kb import NAMED_WITH
from herald.entities.model import EntityRecord
from herald.entities.names import alias_key, without_initials

_GROUPS = {
    "person": "person",
    "organization": "organization",
    "company": "organization",
    "product": "organization",
    "place": "place",
    "event": "event",
}


@dataclass(frozen=True, slots=True)
class Merge:
    """``discovered`` is merged into ``into``."""

    discovered: EntityRecord
    into: EntityRecord


def merge_key(record: EntityRecord) -> str:
    """The name key a discovered entity is matched by (its display name's)."""
    return alias_key(record.display_name)


def merge_keys(record: EntityRecord) -> tuple[str, ...]:
    """The name keys a discovered entity is matched by: its display name's and, for a person,
    that key without initials ("Regina M. Benjamin" is the known Regina Benjamin)."""
    key = merge_key(record)
    plain = without_initials(key) if record.entity_kind == "person" else key
    return (key,) if plain == key else (key, plain)


def find_merges(
    discovered: Iterable[EntityRecord], known: Mapping[str, Sequence[EntityRecord]]
) -> list[Merge]:
    """The merges among ``discovered``, given the knowledge-base entities (not discovered ones)
    having each name key (``known``, keyed as :func:`merge_keys` keys)."""
    merges = []
    for record in discovered:
        candidates = {
            other.id: other
            for key in merge_keys(record)
            for other in known.get(key, ())
            if _compatible(record, other)
        }
        if len(candidates) == 1:
            merges.append(Merge(record, next(iter(candidates.values()))))
    return merges


def _compatible(discovered: EntityRecord, known: EntityRecord) -> bool:
    if known.origin == "discovered" or known.id == discovered.id:
        return False
    if discovered.first_tag(NAMED_WITH):
        return False
    group = _GROUPS.get(discovered.entity_kind)
    if group is None or group != _GROUPS.get(known.entity_kind):
        return False
    if group == "place":
        for key in ("country", "region"):
            said = discovered.first_tag(key)
            held = known.first_tag(key)
            if said and held and alias_key(said) != alias_key(held):
                return False
    return True
