"""Stage 3, kind: what sort of thing a group names (person, organisation, place, product,
event), as a distribution over the kind groups.

The hand-set vote reads the recogniser's labels and the words around each mention
(:mod:`herald.entities.cues`); with ``LinkingConfig.learned_kinds`` the trained model
(:mod:`herald.entities.kinds`) decides from what :func:`kind_evidence` reads. Either is then
half decided by the one kind the knowledge base knows the name as, by a place written after it
(a place) or by an edition (an event).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from herald.enrich.ner import Mention
from herald.entities.cues import (
    EVENT,
    GROUPS,
    KIND_GROUP,
    LABEL_GROUPS,
    ORG,
    PERSON,
    PLACE,
    kind_cues,
    team_cue,
)
from herald.entities.document import Document, Group, LinkingConfig, Neighbours, surface_key
from herald.entities.kb import KnowledgeBase
from herald.entities.kinds import NONE, KindEvidence, kind_groups
from herald.entities.kinds import bundled as kinds_model
from herald.entities.kinds import features as kind_features
from herald.entities.known import has_given_name, products_in_plural
from herald.entities.matcher import ONE_WORD_MIN_PRIOR
from herald.entities.model import EntityRecord
from herald.entities.names import alias_key, fold
from herald.entities.shapes import edition_of, starts_like_a_place
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


def group_kinds(
    kb: KnowledgeBase,
    config: LinkingConfig,
    doc: Document,
    group: Group,
    neighbours: Neighbours,
    located: EntityRecord | None,
) -> dict[str, float]:
    """The group's kind distribution (over the kind groups): the trained model's when the
    configuration asks for it (with its probability of no entity), else the hand-set
    votes'; half decided by the one kind the knowledge base knows the name as, by a place
    written after it (a place) or by an edition (an event)."""
    kinds = kind_distribution(doc, group, neighbours, kb)
    learned: dict[str, float] = {}
    if config.learned_kinds:
        evidence = kind_evidence(kb, doc, group, kinds, located)
        p = kinds_model().probabilities(kind_features(evidence))
        kinds, learned = kind_groups(p, evidence), {NONE: p[NONE]}
    # In a sports report a place's name stands for its club as often as for the place
    # ("Somerset beat Kent"): there the model, which reads the report, is not overruled.
    kinds = _with_kb_kind(kb, group, kinds, keep_places_open=bool(learned) and doc.sports)
    if located is not None:  # and so a place, whatever the recogniser called it
        kinds = half_decided(kinds, PLACE)
    elif edition_of(group.name) is not None:  # "the 79th Academy Awards": an event
        kinds = half_decided(kinds, EVENT)
    return kinds | learned


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
