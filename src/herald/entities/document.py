"""The item as the entity linker's stages read it and hand it on.

The text (:func:`document_text`), its mentions grouped by name (:class:`Group`, made by
:mod:`herald.entities.coreference`), what the stages read of the whole item
(:class:`Document`), the linker's configuration and what a linked entity is
(:class:`LinkedEntity`); with what the stages ask of a group's labels and of the item's words.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from herald.enrich.ner import Mention
from herald.enrich.text import content_terms, split_sentences
from herald.entities.cues import SPORTS_WORDS
from herald.entities.model import EntityKind, EntityRecord
from herald.entities.names import alias_key
from herald.entities.vocabulary import LEADING, NICKNAME, POSSESSIVE, TITLE_CASE_LOWER

if TYPE_CHECKING:
    from herald.entities.kb import KnowledgeBase


@dataclass(frozen=True, slots=True)
class LinkedEntity:
    entity_id: str
    display_name: str
    entity_kind: EntityKind
    mention_count: int
    salience: float
    confidence: float
    # The spellings found in the document ("Christine Lagarde", "Lagarde"); not stored.
    surfaces: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, object]:
        return {
            "entity_id": self.entity_id,
            "display_name": self.display_name,
            "entity_kind": self.entity_kind,
            "mention_count": self.mention_count,
            "salience": self.salience,
            "confidence": self.confidence,
        }


@dataclass(frozen=True, slots=True)
class LinkingConfig:
    min_confidence: float = 0.6  # below this a candidate is not linked
    # A known entity is linked when the link model (herald.entities.link_model) gives it at
    # least this probability (chosen on dev); 0 leaves the decision to min_confidence alone.
    link_threshold: float = 0.15
    new_entity_min_confidence: float = 0.65
    # The most salient links an item keeps (a results table names over a hundred people).
    max_entities: int = 250
    # Also find the knowledge base's names the recogniser missed (herald.entities.matcher).
    dictionary: bool = True
    # Decide each name's kind with the trained model (herald.entities.kinds), not hand-set votes.
    learned_kinds: bool = False
    # With learned kinds: the least probability of its kind a new entity needs (chosen on dev).
    kind_threshold: float = 0.5
    # Report each link's confidence calibrated (herald.entities.calibration), not its raw score.
    calibrated: bool = True
    # A name the rules leave out is admitted as a new entity when the admission model
    # (herald.entities.admission) gives it at least this probability (chosen on dev); 1 admits none.
    admission_threshold: float = 0.8
    # A nationality ("French officials") links to its country (``kb.lookup_demonym``); off by
    # default: a nationality names a people, not a place (chosen on dev, docs/benchmarks.md).
    nationalities: bool = False


@dataclass(slots=True)
class Group:
    key: str
    surfaces: Counter[str] = field(default_factory=Counter)
    mentions: list[Mention] = field(default_factory=list)

    @property
    def name(self) -> str:
        # The longest frequent spelling names the group ("Tara Reid" over "Reid").
        return max(self.surfaces, key=lambda s: (len(s.split()), self.surfaces[s], len(s)))


@dataclass(slots=True)
class Document:
    text: str
    title_end: int
    # Where capitals prove nothing: the title when it is title-cased ("Man Bites Dog"), else 0.
    title_cased_end: int
    terms: frozenset[str]
    sports: bool  # a sports report: its words include some of SPORTS_WORDS
    sentence_starts: frozenset[int]
    keys: set[str]
    # The names the recogniser called people when it saw them alone ("Cheeks" ... "Cheeks").
    lone_people: frozenset[str] = frozenset()
    # The places the item names that are the only place of their name, by region ("minnesota":
    # Minneapolis's id), read when a country's Bloomingtons need telling apart.
    places_by_region: dict[str, set[str]] | None = None
    # The spans of mentions that repair cut from one longer span of the recogniser's, with
    # another ("Life" of "Bettie Page: Life"): the recogniser's label was for the whole.
    pieces: frozenset[tuple[int, int]] = frozenset()


# What the stages hand on: the mentions beside each mention (by start), read by the kind vote;
# a group's entity and the confidence of that choice; and a linked group: its entity, the
# confidence and its mentions.
Neighbours = dict[int, tuple[Mention | None, Mention | None]]
Choice = tuple[EntityRecord, float]
Resolved = tuple[EntityRecord, float, Group]
# Stage 3's hand-off: how likely the group names each kind group (person, org, place, product,
# event), with the trained model's probability of no entity ("none") when it decided.
Kinds = dict[str, float]


@dataclass(frozen=True, slots=True)
class Reading:
    """One group of mentions as the stages after grouping read it: the knowledge base, the
    linker's settings, the item, the group, the recogniser's mentions either side of each of
    its mentions, and the region or country the text writes after its name ("Harriman,
    Tennessee"), if any. Stage 3 hands on its :data:`Kinds` beside it."""

    kb: KnowledgeBase
    config: LinkingConfig
    doc: Document
    group: Group
    neighbours: Neighbours
    located: EntityRecord | None


def read_document(
    title: str, text: str, title_cased_end: int, mentions: Sequence[Mention], groups: list[Group]
) -> Document:
    """What the stages read of the whole item, from its repaired mentions and their groups."""
    terms = frozenset(content_terms(text))
    return Document(
        text=text,
        title_end=len(title),
        title_cased_end=title_cased_end,
        terms=terms,
        sports=not terms.isdisjoint(SPORTS_WORDS),
        sentence_starts=frozenset(s.start for s in split_sentences(text)),
        keys={g.key for g in groups},
        lone_people=frozenset(
            surface_key(m.text)
            for m in mentions
            if m.label == "PERSON" and len(m.text.split()) == 1
        ),
    )


def pieces(found: Sequence[Mention], mentions: Sequence[Mention]) -> frozenset[tuple[int, int]]:
    """The spans of ``mentions`` (repaired) that share one span of ``found`` (the recogniser's)
    with another: the pieces a longer span was cut into."""
    starts = sorted((m.start, m.end) for m in mentions)
    out: set[tuple[int, int]] = set()
    for span in found:
        first = bisect_left(starts, (span.start, -1))
        inside = []
        for start, end in starts[first:]:
            if start >= span.end:
                break
            if end <= span.end:
                inside.append((start, end))
        if len(inside) > 1:
            out.update(inside)
    return frozenset(out)


def document_text(title: str, body: str) -> str:
    """The text NER and linking read: the title, a blank line, the body."""
    return f"{title.strip()}\n\n{body}" if title.strip() else body


def surface_key(surface: str) -> str:
    return alias_key(clean_surface(surface))


def clean_surface(surface: str) -> str:
    text = NICKNAME.sub(" ", " ".join(surface.split()))
    text = LEADING.sub("", text)
    text = POSSESSIVE.sub("", text) if text.endswith(("'s", "’s", "'", "’")) else text
    return text.strip(' ,.;:!?"“”()[]')


def has_person_label(group: Group) -> bool:
    return any(m.label == "PERSON" for m in group.mentions)


def as_a_person(mention: Mention) -> Mention:
    return Mention(mention.text, "PERSON", mention.start, mention.end, mention.score)


def is_demonym(group: Group) -> bool:
    return all(m.label == "NORP" for m in group.mentions)


def main_label(group: Group) -> str:
    """The recogniser's most frequent label for the group's mentions."""
    return Counter(m.label for m in group.mentions).most_common(1)[0][0]


def is_person(group: Group) -> bool:
    return main_label(group) == "PERSON"


def terms_beside(doc: Document, group: Group) -> frozenset[str]:
    """The item's content words other than those of the group's own names."""
    own = {term for surface in group.surfaces for term in content_terms(surface)}
    return frozenset(doc.terms - own)


def needs_context(doc: Document, group: Group) -> bool:
    """A one-word name that only ever opens a sentence (or a title-cased headline's word)."""
    surfaces = [s for s in group.surfaces if len(s.split()) == 1]
    if not surfaces or len(group.surfaces) > len(surfaces):
        return False
    if any(s.isupper() for s in surfaces):
        return False  # acronyms are names
    return all(
        m.start < doc.title_cased_end  # a title-cased headline's capitals prove nothing
        or m.start in doc.sentence_starts
        or m.start == 0
        for m in group.mentions
    )


def only_in_headline(doc: Document, group: Group) -> bool:
    """Whether every mention of the group is in a title-cased headline."""
    return all(m.start < doc.title_cased_end for m in group.mentions)


def title_cased(title: str) -> bool:
    """Whether a title capitalises every word but the small ones ("Lohan Checks Into Rehab"),
    rather than only its names, as a sentence does ("Lohan checks into rehab in Malibu")."""
    words = [w for w in re.findall(r"[\w'’-]+", title)[1:] if w[0].isalpha() and len(w) > 1]
    return not any(w.islower() and w not in TITLE_CASE_LOWER for w in words)
