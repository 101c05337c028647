"""Stage 3, kind: what sort of thing a group names (person, organisation, place, product,
event). Every decision of a name's kind is made here.

- :func:`group_kinds`, the distribution over the kind groups that the later stages weigh
  candidates by: the hand-set vote reads the recogniser's labels and the words around each
  mention (:mod:`herald.entities.cues`); with ``LinkingConfig.learned_kinds`` the trained model
  (:mod:`herald.entities.kinds`) decides from what :func:`evidence_of` reads. Either is then half
  decided by the one kind the knowledge base knows the name as, by a place written after it (a
  place) or by an edition (an event), and a known organisation's name that reads as a
  nationality ("Democratic") is half decided an organisation.
- :func:`new_kind`, the kind of a new entity the rules make: the distribution's likeliest,
  unless the name says what it is (a model of a known product line, an event's ending, a word
  that names organisations or places).
- :func:`likeliest`, the kind the admission model reads a name as: the trained model's.
- :func:`entity_kind`, the kind a new entity is stored as (a company or another organisation,
  a storm or a dated edition as an event).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence

from herald.enrich.ner import Mention
from herald.entities import wordlists
from herald.entities.cues import (
    EVENT,
    GROUPS,
    KIND_GROUP,
    LABEL_GROUPS,
    ORG,
    PERSON,
    PLACE,
    PRODUCT,
    kind_cues,
    team_cue,
)
from herald.entities.document import (
    Document,
    Group,
    Kinds,
    Neighbours,
    Reading,
    is_demonym,
    surface_key,
)
from herald.entities.kb import KnowledgeBase
from herald.entities.kinds import NONE, KindEvidence, kind_groups
from herald.entities.kinds import bundled as kinds_model
from herald.entities.kinds import features as kind_features
from herald.entities.known import (
    has_given_name,
    known_organisation,
    products_in_plural,
    whole_name_of,
)
from herald.entities.matcher import ONE_WORD_MIN_PRIOR
from herald.entities.model import EntityKind, EntityRecord
from herald.entities.names import alias_key, fold
from herald.entities.shapes import edition_of, head_word, model_of, starts_like_a_place
from herald.entities.vocabulary import (
    COMPANY_WORDS,
    EITHER_ENDINGS,
    EVENT_ENDINGS,
    FIRM_ENDINGS,
    HONOUR_ENDINGS,
    NAMING_WORDS,
    ORG_ENDINGS,
    PLACE_ENDINGS,
    PLACE_LABELS,
)


def group_kinds(read: Reading) -> Kinds:
    """The group's kind distribution (over the kind groups): the trained model's when the
    configuration asks for it (with its probability of no entity), else the hand-set
    votes'; half decided by the one kind the knowledge base knows the name as, by a place
    written after it (a place) or by an edition (an event)."""
    kb, doc, group = read.kb, read.doc, read.group
    kinds = kind_distribution(doc, group, read.neighbours, kb)
    learned: dict[str, float] = {}
    if read.config.learned_kinds:
        evidence = kind_evidence(kb, doc, group, kinds, read.located)
        p = kinds_model().probabilities(kind_features(evidence))
        kinds, learned = kind_groups(p, evidence), {NONE: p[NONE]}
    # In a sports report a place's name stands for its club as often as for the place
    # ("Somerset beat Kent"): there the model, which reads the report, is not overruled.
    kinds = _with_kb_kind(kb, group, kinds, keep_places_open=bool(learned) and doc.sports)
    if is_demonym(group) and known_organisation(kb, group):
        # "Lionsgate", "Democratic", which the small model may call a nationality.
        kinds = half_decided(kinds, ORG)
    if read.located is not None:  # and so a place, whatever the recogniser called it
        kinds = half_decided(kinds, PLACE)
    elif edition_of(group.name) is not None:  # "the 79th Academy Awards": an event
        kinds = half_decided(kinds, EVENT)
    return kinds | learned


def evidence_of(read: Reading) -> KindEvidence:
    """What the kind model reads of the group (:mod:`herald.entities.kinds`)."""
    kinds = kind_distribution(read.doc, read.group, read.neighbours, read.kb)
    return kind_evidence(read.kb, read.doc, read.group, kinds, read.located)


def likeliest(p: Mapping[str, float], kinds: Sequence[str]) -> str:
    """The kind of ``kinds`` the trained model's probabilities ``p`` make likeliest (the
    first of equals)."""
    return max(kinds, key=lambda k: p[k])


def top(kinds: Kinds) -> tuple[str, float]:
    """The likeliest kind group of a distribution, and its share."""
    return max(((k, v) for k, v in kinds.items() if k != NONE), key=lambda kv: kv[1])


def new_kind(read: Reading, kinds: Kinds, name: str) -> tuple[str, float]:
    """The kind group of a new entity named ``name`` the rules make, and how likely it is:
    the distribution's likeliest, unless the name says what it is."""
    kind, share = top(kinds)
    words = name.split()
    last = head_word(name)
    several = len(words) > 1
    # A name that says what it is needs only to read as a name: any of the three kinds.
    a_name = kinds.get(PERSON, 0.0) + kinds.get(PLACE, 0.0) + kinds.get(ORG, 0.0)
    if several and model_of(name, read.kb):
        # A model of a known product line ("BlackBerry Q10", "Galaxy S4", "Windows 8"),
        # whatever the recogniser called it.
        return PRODUCT, a_name + kinds.get(PRODUCT, 0.0)
    if (
        kind == ORG
        and len(words) == 2
        and last not in NAMING_WORDS
        and whole_name_of(read.kb, words[0], _COMPANY)
    ):
        # A company's whole name and one more word is what it makes ("Intel Atom", "AMD
        # Opteron"), not a part of it ("Intel Capital", "Sony Pictures"); "Apple TV" is not
        # caught so, the company being "Apple Inc." in full
        return PRODUCT, a_name + kinds.get(PRODUCT, 0.0)
    if edition_of(name) is not None or (several and last in EVENT_ENDINGS):
        # "the 3rd Annual Tribeca Film Festival", "the Sundance Film Festival", "the Asian
        # Games": an event, whatever the recogniser called it
        return EVENT, a_name + kinds.get(EVENT, 0.0)
    if last in NAMING_WORDS:
        # The name says what it is, whatever the label and the sentence suggest: no
        # person's name ends so ("Indiana State", "Matanuska Maid Creamery"), "Syntagma
        # Square" is a place, the "American Medical Association" an organisation (a
        # university or a court is either: the text decides).
        if kind == PERSON or (several and kind in (PLACE, ORG) and last not in EITHER_ENDINGS):
            kind = PLACE if last in PLACE_ENDINGS else ORG
        if several:
            share = a_name
    return kind, share


def entity_kind(group: str, name: str) -> EntityKind:
    """The kind a new entity of the kind group ``group`` named ``name`` is stored as."""
    if _STORM.match(name):
        return "event"  # the recogniser calls storms organisations or people
    words = {w.strip(".,").lower() for w in name.split()}
    if (_YEAR_FIRST.match(name) and not words & COMPANY_WORDS) or edition_of(name) is not None:
        return "event"  # "2013 Academy Awards", "2014 World Cup", "the 81st Academy Awards"
    if group == ORG:
        last = name.split()[-1].strip(".,").lower() if name.split() else ""
        return "company" if words & COMPANY_WORDS or last in FIRM_ENDINGS else "organization"
    if group == PERSON:
        return "person"
    if group == PRODUCT:
        return "product"
    if group == EVENT:
        return "event"
    return "place"


_COMPANY = frozenset({"company"})
_STORM = re.compile(
    r"^(?:" + "|".join(re.escape(w) for w in wordlists.sequence("storm_words")) + r")\s", re.I
)
_YEAR_FIRST = re.compile(r"^(?:1[89]|20)\d\d\s+[A-Z]")


def kind_evidence(
    kb: KnowledgeBase,
    doc: Document,
    group: Group,
    heuristic: Mapping[str, float],
    located: EntityRecord | None,
) -> KindEvidence:
    """What the kind model reads of a group (:mod:`herald.entities.kinds`)."""
    known: dict[str, float] = {}
    for surface in group.surfaces:
        key = surface_key(surface)
        for record in kb.lookup(key) or products_in_plural(kb, key):
            kind = KIND_GROUP[record.entity_kind]
            known[kind] = max(known.get(kind, 0.0), kb.prior(record.id) or 0.01)
    name = group.name
    words = name.split()
    last = words[-1].lower().strip(".") if words else ""
    n = len(group.mentions)
    return KindEvidence(
        name=name,
        labels=[m.label for m in group.mentions],
        scores=[m.score for m in group.mentions],
        heuristic=heuristic,
        known=known,
        title_share=sum(m.start < doc.title_end for m in group.mentions) / n,
        start_share=sum(m.start in doc.sentence_starts for m in group.mentions) / n,
        sports=doc.sports,
        team=doc.sports and any(team_cue(doc.text, m.start, m.end) for m in group.mentions),
        located=located is not None,
        edition=edition_of(name) is not None,
        demonym=any(kb.lookup_demonym(surface_key(s)) for s in group.surfaces),
        given_name=bool(words) and kb.is_given_name(fold(words[0])),
        endings={
            "place": last in PLACE_ENDINGS,
            "org": last in ORG_ENDINGS,
            "either": last in EITHER_ENDINGS,
            "event": last in EVENT_ENDINGS,
            "firm": last in FIRM_ENDINGS or last in COMPANY_WORDS,
            "honour": last in HONOUR_ENDINGS,
            "place_start": starts_like_a_place(name),
        },
    )


def _with_kb_kind(
    kb: KnowledgeBase, group: Group, kinds: dict[str, float], keep_places_open: bool = False
) -> dict[str, float]:
    """A full name the knowledge base knows as one kind only ("Olaf Scholz", a person) is
    half decided by that: the recogniser's label for it matters less than what it is."""
    full = [s for s in group.surfaces if len(surface_key(s).split()) > 1]
    found = {
        KIND_GROUP[r.entity_kind]
        for s in full
        for r in kb.lookup(surface_key(s)) or products_in_plural(kb, surface_key(s))
    }
    if not full:
        # A one-word name only when it is well known and of one kind ("Dushanbe", a
        # capital, which the small model may call an organisation).
        records = [r for s in group.surfaces for r in kb.lookup(surface_key(s))]
        if not records or max(kb.prior(r.id) for r in records) < ONE_WORD_MIN_PRIOR:
            return kinds
        found = {KIND_GROUP[r.entity_kind] for r in records}
    if len(found) != 1:
        return kinds
    known = next(iter(found))
    if known == PLACE and keep_places_open:
        return kinds
    return half_decided(kinds, known)


def half_decided(kinds: dict[str, float], kind: str) -> dict[str, float]:
    """The kind distribution with half its weight moved to ``kind``."""
    return {k: 0.5 * v + (0.5 if k == kind else 0.0) for k, v in kinds.items()}


def kind_distribution(
    doc: Document,
    group: Group,
    neighbours: Neighbours,
    kb: KnowledgeBase,
) -> dict[str, float]:
    text = doc.text
    label_votes: dict[str, float] = defaultdict(float)
    cue_votes: dict[str, float] = defaultdict(float)
    # "Mo Cheeks" where the item calls "Cheeks" a person: the full name of a person.
    words = group.name.split()
    family_name = (
        2 <= len(words) <= 3
        and alias_key(words[-1]) in doc.lone_people
        and all(w[:1].isupper() for w in words)
        and words[-1].lower() not in NAMING_WORDS
    )
    # The small model's usual slip: a person's name ("Olaf Scholz") called an organisation.
    given_name = has_given_name(group.name, kb)
    person_shaped = given_name and not any(m.label in PLACE_LABELS for m in group.mentions)
    for mention in group.mentions:
        cues = kind_cues(text, mention.start, mention.end)
        # (unless the words around it agree with the recogniser: "Abu Sayyaf militants"), or a
        # place where the words around it say person outright ("in memory of Madeline
        # Kafoury"; a relative named after it is not enough: "LaRue of Crystal Springs, Miss.;
        # his brother")
        slip = (person_shaped and mention.label == "ORG" and ORG not in cues) or (
            given_name
            and mention.label in PLACE_LABELS
            and cues.get(PERSON, 0.0) >= 1.0
            and PLACE not in cues
        )
        label = "PERSON" if slip else mention.label
        for kind, p in LABEL_GROUPS.get(label, {}).items():
            label_votes[kind] += p
        for kind, vote in cues.items():
            cue_votes[kind] += vote
        if family_name:
            cue_votes[PERSON] += 1.0
        # Coordination ("Lindsay Lohan and Paris Hilton"): listed names are of one kind.
        for other, gap in _coordinated(text, mention, neighbours.get(mention.start, (None, None))):
            if other.label == "PERSON" and gap:
                cue_votes[PERSON] += 1.0
    n = len(group.mentions)
    scores = {k: label_votes[k] / n + 1.5 * cue_votes[k] / n for k in GROUPS}
    total = sum(scores.values()) or 1.0
    return {k: v / total for k, v in scores.items()}


_COORDINATION = frozenset({"and", ",", "or", ", and", ", or", "&"})


def _coordinated(
    text: str, mention: Mention, around: tuple[Mention | None, Mention | None]
) -> list[tuple[Mention, bool]]:
    out = []
    before, after = around
    if before is not None:
        out.append((before, text[before.end : mention.start].strip() in _COORDINATION))
    if after is not None:
        out.append((after, text[mention.end : after.start].strip() in _COORDINATION))
    return out


def neighbours_of(mentions: Sequence[Mention]) -> Neighbours:
    ordered = sorted(mentions, key=lambda m: m.start)
    out: Neighbours = {}
    for i, mention in enumerate(ordered):
        before = ordered[i - 1] if i > 0 else None
        after = ordered[i + 1] if i + 1 < len(ordered) else None
        out[mention.start] = (before, after)
    return out
