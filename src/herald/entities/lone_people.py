"""New entities, people named by one word only ("my wife Portia", "Heller argued"): known
beside the person (or organisation) the item is about, never by the word alone."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from herald.entities.cues import PERSON, person_cue
from herald.entities.discovery import mention_weight
from herald.entities.document import (
    Document,
    Group,
    Kinds,
    Reading,
    Resolved,
    clean_surface,
    only_in_headline,
)
from herald.entities.geography import placed_mentions
from herald.entities.jsonl import entity_id_for
from herald.entities.kb import NAMED_WITH, KnowledgeBase
from herald.entities.model import EntityRecord, Tag
from herald.entities.names import alias_key
from herald.entities.refusals import NOT_NAMES
from herald.entities.shapes import titled_surname
from herald.entities.vocabulary import ORG_KINDS, TITLES


def named_with(
    kb: KnowledgeBase,
    resolved: dict[str, Resolved],
    lone: list[tuple[Group, str, float]],
) -> Iterable[tuple[Group, EntityRecord, float]]:
    """People the item names by one word only ("my wife Portia", "Heller argued"). The word
    alone names too many people to be an entity of its own, so such a person is known
    beside the person they were first named with: found again in an item that names that
    person in full ("Portia" in every story about Ellen DeGeneres; as discovered people
    are, that person is told by name), never by the word alone; a new one is known beside
    the item's main person (the person named in full with the most mentions) or, in an item
    that names nobody in full, beside its main organisation ("Dr Gupta" in a report that
    names CNN and nobody else)."""

    def by_mentions(keep: Callable[[EntityRecord], bool]) -> list[EntityRecord]:
        """The item's entities that ``keep`` takes, the most mentioned (then the first
        named) first."""
        ranked = [
            (len(group.mentions), -min(m.start for m in group.mentions), record)
            for record, _, group in resolved.values()
            if keep(record)
        ]
        ranked.sort(key=lambda p: (p[0], p[1]), reverse=True)
        return [record for _, _, record in ranked]

    people = by_mentions(lambda r: r.entity_kind == "person" and len(r.display_name.split()) >= 2)
    anchors = people or by_mentions(lambda r: r.entity_kind in ORG_KINDS)
    if not lone or not anchors:
        return
    anchor = anchors[0]
    with_key = alias_key(anchor.display_name)
    taken = {w for r in people for w in alias_key(r.display_name).split()}
    for group, name, confidence in lone:
        key = alias_key(name)
        if key in taken:
            continue  # a word of a person's name the item writes in full
        # Known beside another person of the item ("Vitali" beside Wladimir Klitschko in a
        # report whose main person is his opponent): that one.
        known = (kb.lookup_named_with(key, a) for a in anchors)
        record = next((r for r in known if r is not None), None) or EntityRecord(
            id=entity_id_for(PERSON, name, f"discovered:person:{key}@{with_key}"),
            display_name=name,
            entity_kind="person",
            description=f"Named with {anchor.display_name}",
            tags=(Tag(NAMED_WITH, anchor.display_name),),
            origin="discovered",
        )
        yield group, record, confidence


def lone_person(read: Reading, kinds: Kinds) -> tuple[str, float] | None:
    """The one word a person is named by, and the confidence, when the item names someone by
    that word only: the recogniser calls most of its mentions a person, the kinds agree, and
    the words around a mention say so too ("my wife Portia", "Heller argued", "Mr Lyons")."""
    kb, doc, group = read.kb, read.doc, read.group
    person = kinds.get(PERSON, 0.0)
    labels = [m.label == "PERSON" for m in group.mentions]
    if person < 0.5 or 2 * sum(labels) <= len(labels):
        return None
    words = clean_surface(group.name).split()
    titled = titled_surname(words)
    if titled:
        words = words[1:]  # "Deputy Ortiz", "Dr Gupta": the title says a person is named
    if len(words) != 1:
        return None
    name = words[0]
    key = alias_key(name)
    if (
        len(name) < 3
        or not name.isalpha()
        or not name[0].isupper()
        or name.isupper()
        or key in NOT_NAMES
        or key in TITLES
        or (kb.is_known_name(key) and not _known_only_as_places_elsewhere(doc, group, key, kb))
        or kb.lookup_demonym(key)
        or kb.lookup_demonym(key.removesuffix("s"))  # "Greeks"
        or any(key in g.split() for g in doc.keys if " " in g and g != group.key)
    ):
        return None  # a word of a name the item writes in full ("Kimani" of "Kimani Gray")
    if only_in_headline(doc, group):
        return None  # capitalisation proves nothing in a title-cased headline
    if not titled and not any(person_cue(doc.text, m.start, m.end) for m in group.mentions):
        return None
    confidence = round(min(1.0, person * mention_weight(len(group.mentions)) + 0.1), 3)
    return name, confidence


def _known_only_as_places_elsewhere(
    doc: Document, group: Group, key: str, kb: KnowledgeBase
) -> bool:
    """Whether the knowledge base knows a word only as places and the item does not write it as
    a place ("Jackson" of "said Jackson"; not "in Jackson")."""
    records = kb.lookup(key)
    return (
        bool(records)
        and all(r.entity_kind == "place" for r in records)
        and placed_mentions(doc.text, group) == 0
    )
