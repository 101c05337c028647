"""Stage 5, disambiguation: which of its candidates a group names, if any.

Each candidate is scored by kind fit, prior (how often the name means that entity), context
(words of the item found in the entity's description and tags) and geography (a city whose
country is also named). A bare name that is also used as a common word in the item ("apple"
... "Apple trees") or only ever opens a sentence needs context to link. Before that, a city or
state that stands for its team in a sports report is the team, and a surname that is also the
name of towns abroad may be the person the item is about; after it, a surname alone may be the
one well-known person of that surname.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from herald.enrich.text import content_terms
from herald.entities import link_model, wordlists
from herald.entities.candidates import candidates_of
from herald.entities.cues import KIND_GROUP, PERSON, SPORT_WORDS, team_cue
from herald.entities.document import (
    Choice,
    Document,
    Group,
    Kinds,
    Reading,
    is_demonym,
    needs_context,
    surface_key,
    terms_beside,
)
from herald.entities.geography import (
    abbreviated_state,
    geography_score,
    is_us_state,
    lies_in,
)
from herald.entities.kb import KnowledgeBase
from herald.entities.known import known_organisation, known_product
from herald.entities.model import EntityRecord
from herald.entities.names import alias_key

# Words that signal a kind of entity in general (weaker evidence than an entity's own profile).
GENERIC_CONTEXT: dict[str, frozenset[str]] = {
    kind: frozenset(content_terms(" ".join(words)))
    for kind, words in wordlists.groups("context").items()
}


def choose_entity(read: Reading, kinds: Kinds) -> Choice | None:
    """The known entity a group names and the confidence, if any: the team a city or state
    stands for in a sports report, the best of the group's candidates (:func:`choose`), or the
    one well-known person of a surname alone."""
    return (
        team(read.kb, read.doc, read.group)
        or choose(read, kinds)
        or by_surname(read.kb, read.doc, read.group, kinds)
    )


def choose(read: Reading, kinds: Kinds) -> Choice | None:
    """The candidate of the group the item means, scored by kind fit, prior, context,
    geography and how well the name matches, if one is good enough."""
    found = _settled_or_ranked(read, kinds)
    if not isinstance(found, Ranked):
        return found.choice
    if (
        read.config.link_threshold > 0.0
        and link_model.probability(found.signals) < read.config.link_threshold
    ):
        return None
    return found.record, found.confidence


def for_link_model(read: Reading, kinds: Kinds) -> Ranked | None:
    """The first-ranked candidate the link model decides on for the group, or None when the
    group never reaches it: a team in a sports report (:func:`team`), a nationality, an
    abbreviated state, no candidate or too weak a first. The rows the model is trained on
    are exactly the groups it decides at run time."""
    if team(read.kb, read.doc, read.group) is not None:
        return None
    found = _settled_or_ranked(read, kinds)
    return found if isinstance(found, Ranked) else None


@dataclass(frozen=True, slots=True)
class _Settled:
    """A group decided before its candidates are ranked (``choice`` None: it links nowhere)."""

    choice: Choice | None


def _settled_or_ranked(read: Reading, kinds: Kinds) -> _Settled | Ranked:
    """The group decided before ranking (a nationality, an abbreviated state, no candidate,
    too weak a first), or its first-ranked candidate for the link model to decide on."""
    kb, config, doc, group = read.kb, read.config, read.doc, read.group
    if is_demonym(group):
        demonym = _choose_demonym(kb, group, config.nationalities)
        if demonym is not None:
            return _Settled(demonym)
        if not (known_organisation(kb, group) or known_product(kb, group)):
            return _Settled(None)
        # "Lionsgate", "Windows Vista", which the small model may call a nationality, are the
        # organisation and the product (the kind stage has half decided the organisation's).
    state = abbreviated_state(doc.text, group)
    if state is not None:  # "Springfield, Mo.": the US state
        states = [r for r in kb.lookup(alias_key(state)) if is_us_state(r)]
        return _Settled((states[0], 0.9) if len(states) == 1 else None)
    candidates = candidates_of(kb, group)
    if not candidates:
        # spaCy sometimes calls a nationality a place ("Emirati soldiers").
        if any(m.label in ("GPE", "NORP") for m in group.mentions):
            return _Settled(_choose_demonym(kb, group, config.nationalities))
        return _Settled(None)
    first = ranked(read, kinds, candidates)
    if first is None or first.confidence < config.min_confidence:
        return _Settled(None)
    return first


@dataclass(frozen=True, slots=True)
class Ranked:
    """The candidate ranked first, what the link model reads of it
    (:data:`herald.entities.link_model.FEATURES`: kind fit, prior, context, geography, name
    match, its lead over the second, and whether the item is a sports report) and the
    confidence of linking it."""

    record: EntityRecord
    signals: tuple[float, ...]
    confidence: float


def ranked(
    read: Reading, kinds: Kinds, candidates: dict[str, tuple[EntityRecord, float]]
) -> Ranked | None:
    """The first of the group's candidates by kind fit, prior, context, geography and name
    match, of those its kind, place and context allow."""
    kb, doc, group, located = read.kb, read.doc, read.group, read.located
    risky = needs_context(doc, group)
    nickname = all(len(s.split()) == 1 for s in group.surfaces)
    beside = terms_beside(doc, group)
    scored: list[tuple[float, float, EntityRecord, tuple[float, ...]]] = []
    for record, name_match in candidates.values():
        fit = kinds.get(KIND_GROUP[record.entity_kind], 0.0)
        if fit < 0.3:
            continue
        if located is not None and not lies_in(record, located):
            continue  # "Lake County, California" is not the one in Illinois
        if nickname and record.first_tag("sport") and not doc.sports:
            continue  # "Ducks" is a team only in a text about sport ("Ride the Ducks")
        context = context_score(kb, beside, record)
        geography = geography_score(kb, doc, record)
        if risky and context == 0.0 and geography == 0.0:
            continue
        prior = kb.prior(record.id)
        score = 0.30 * fit + 0.25 * prior + 0.25 * context + 0.10 * geography + 0.10 * name_match
        # Confidence: how well name, kind and prior fit, plus what the text adds.
        support = 0.45 * fit + 0.35 * prior + 0.20 * name_match
        signals: tuple[float, ...] = (fit, prior, context, geography, name_match)
        scored.append((score, support + 0.25 * context + 0.10 * geography, record, signals))
    if not scored:
        return None
    scored.sort(key=lambda item: (-item[0], item[2].id))
    best, evidence, record, signals = scored[0]
    runner_up = scored[1][0] if len(scored) > 1 else 0.0
    margin = (best - runner_up) / best if best > 0 else 0.0
    confidence = round(min(1.0, evidence * (0.7 + 0.3 * margin)), 3)
    sports = float(doc.sports)
    fit, prior = signals[0], signals[1]
    return Ranked(record, (*signals, margin, sports, sports * fit, sports * prior), confidence)


def team(kb: KnowledgeBase, doc: Document, group: Group) -> Choice | None:
    """The team a city or state stands for in a sports report ("a 20-13 victory over Kansas
    City" is the Chiefs): a mention reads as a game's result (:func:`team_cue`) and one of
    the knowledge base's teams of that home fits the report's sport, or is named in it."""
    if not doc.sports:
        return None
    teams = {r.id: r for s in group.surfaces for r in kb.lookup_home(surface_key(s))}
    if not teams or not any(team_cue(doc.text, m.start, m.end) for m in group.mentions):
        return None
    scored = []
    for record in teams.values():
        sport = len(doc.terms & SPORT_WORDS.get(record.first_tag("sport") or "", frozenset()))
        named = any(alias_key(n) in doc.keys for n in (record.display_name, *record.aliases))
        scored.append((sport + (3 if named else 0), record.id, record))
    scored.sort(key=lambda item: (-item[0], item[1]))
    best = scored[0][0]
    if best == 0 or (len(scored) > 1 and scored[1][0] == best):
        return None
    return scored[0][2], round(min(0.9, 0.7 + 0.05 * best), 3)


def by_surname(
    kb: KnowledgeBase, doc: Document, group: Group, kinds: dict[str, float]
) -> Choice | None:
    """A person named by surname alone in this item ("Nixon administration aide") is the
    knowledge base's only person of that surname, or, of several, the one described by
    many wikis (a prior of 0.7 or more: 100 wikis) whose fit with the item's words and
    prior clearly lead the others'; and, when the knowledge base describes that person,
    only if the item's words fit the description (a word of it, of their organisation or
    country: "Watergate", "Apple") or the item names their country outside a sports
    report, for a surname is no proof ("the coach said Carter had
    played" is not Jimmy Carter). Otherwise, or when the item uses the surname as a word,
    it links nowhere."""
    if len(group.surfaces) != 1 or len(group.key.split()) != 1:
        return None
    if is_demonym(group) or kinds.get(PERSON, 0.0) < 0.5 or needs_context(doc, group):
        return None
    people = kb.lookup_surname(group.key)
    if not people:
        return None
    beside = terms_beside(doc, group)
    if 1 < len(people) <= _MAX_NAMESAKES:
        people = _best_known(kb, beside, people)
    if len(people) != 1:
        return None
    profile = kb.profile(people[0].id)
    if profile and profile.isdisjoint(beside):
        return None
    count = len(group.mentions)
    return people[0], round(kinds[PERSON] * (0.6 + 0.4 * min(1.0, count / 3)), 3)


def _best_known(
    kb: KnowledgeBase, beside: frozenset[str], people: list[EntityRecord]
) -> list[EntityRecord]:
    if all(kb.prior(r.id) < 0.7 for r in people):
        return []  # nobody of that surname is widely described: no need to read on
    scored = sorted(
        ((0.6 * kb.prior(r.id) + 0.4 * context_score(kb, beside, r), r.id, r) for r in people),
        key=lambda item: (-item[0], item[1]),
    )
    (best, _, record), (runner_up, _, _) = scored[0], scored[1]
    if kb.prior(record.id) < 0.7 or best - runner_up < 0.1:
        return []
    return [record]


def _choose_demonym(kb: KnowledgeBase, group: Group, nationalities: bool) -> Choice | None:
    found = (
        {r.id: r for s in group.surfaces for r in kb.lookup_demonym(surface_key(s))}
        if nationalities
        else {}
    )
    if not found:
        # spaCy also calls a country's own name a nationality ("Tajikistan's capital").
        countries = {
            r.id: r
            for s in group.surfaces
            for r in kb.lookup(surface_key(s))
            if r.first_tag("place_type") == "country"
        }
        if len(countries) == 1:
            return next(iter(countries.values())), 0.8
    if len(found) != 1:
        return None
    record = next(iter(found.values()))
    # "French police" is about France, but less surely than a name: a fixed, lower confidence.
    return record, 0.7


def context_score(kb: KnowledgeBase, terms: frozenset[str], record: EntityRecord) -> float:
    """How much the item's words (``terms``, the group's own left out) speak for
    ``record``: words of its profile, and words of its kind in general."""
    specific = len(terms & kb.profile(record.id))
    generic = len(terms & GENERIC_CONTEXT.get(record.entity_kind, frozenset()))
    evidence = specific + 0.5 * min(generic, 4)
    return 1.0 - math.exp(-evidence / 2.0)


# A surname more people share than this is too common to pick one of them by fame.
_MAX_NAMESAKES = 50
