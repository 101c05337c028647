"""Entity linking: recognised names to knowledge-base entities, with salience and confidence.

For one document, mentions that name the same thing are grouped ("Tara Reid" ... "Reid";
"UK" ... "United Kingdom" when both are aliases of one entity). Each group's kind is estimated
from spaCy's labels and the words around it (:mod:`herald.entities.cues`). Candidates come from
the knowledge base by name and alias; each is scored by kind fit, prior (how often the name means
that entity), context (words of the document found in the entity's description and tags) and
geography (a city whose country is also named). A bare name that is also used as a common word
in the document ("apple" ... "Apple trees") or only ever starts a sentence needs context to link.
Groups that link nowhere but are confidently named things become new entities.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from herald.enrich.ner import Mention, stop_words
from herald.enrich.text import content_terms, split_sentences
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
    SPORT_WORDS,
    SPORTS_WORDS,
    kind_cues,
    person_cue,
    said_to_be,
    team_cue,
)
from herald.entities.jsonl import entity_id_for
from herald.entities.kb import NAMED_WITH, KnowledgeBase
from herald.entities.kinds import NONE, KindEvidence, kind_groups
from herald.entities.kinds import bundled as kinds_model
from herald.entities.matcher import ONE_WORD_MIN_PRIOR, with_dictionary_mentions
from herald.entities.model import EntityDraft, EntityKind, EntityRecord, Tag
from herald.entities.names import (
    alias_key,
    fold,
    is_initial,
    strip_corporate_suffix,
    without_initials,
    word_positions,
)

# Words that signal a kind of entity in general (weaker evidence than an entity's own profile).
GENERIC_CONTEXT: dict[str, frozenset[str]] = {
    kind: frozenset(content_terms(" ".join(words)))
    for kind, words in wordlists.groups("context").items()
}
_COMPANY_WORDS = wordlists.words("company_words")
# Last words of a firm's name (no person's name ends so: "Gordon Advisors", "Smith Associates").
_FIRM_ENDINGS = wordlists.words("firm_endings")
# Last words of organisation and place names: a first name before them does not make a person.
# Those of places ("Syntagma Square"), those of either a place or an organisation ("Tulane
# University", "Preston Crown Court"), and those of organisations ("American Medical Association").
_PLACE_ENDINGS = wordlists.words("place_endings")
_EITHER_ENDINGS = wordlists.words("either_endings")
# Last words of the names of awards and honours ("MacArthur Fellowship", "Most Valuable Player
# Award"): no person, place or organisation (a known one still links; "Awards", a ceremony, is
# an event: "the 2013 Academy Awards").
_HONOUR_ENDINGS = wordlists.words("honour_endings")
_ORG_ENDINGS = wordlists.words("org_endings")
# First words of place names ("Mount Cook", "Place Vendôme", "Rue de Castiglione", "Fort Smith").
_PLACE_STARTS = wordlists.words("place_starts")
_NAMING_WORDS = _COMPANY_WORDS | _FIRM_ENDINGS | _PLACE_ENDINGS | _EITHER_ENDINGS | _ORG_ENDINGS
_LEADING = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)
_ORG_KINDS = frozenset({"organization", "company"})
_COMPANY = frozenset({"company"})
# A nickname quoted or in brackets inside a name: "Vincent 'The Chin' Gigante" is Vincent
# Gigante, "Kimani (Kiki) Gray" Kimani Gray.
_NICKNAME = re.compile(r"(?<=\w) (?:[\"'“‘][^\"'“”‘’]{1,30}[\"'”’]|\([A-Z][^()]{0,29}\)) (?=\w)")
_POSSESSIVE = re.compile(r"['’]s?$")
_CONNECTING = wordlists.words("connecting_words")
# Lower-case words inside people's names ("Ludwig van Beethoven", "Luiz Inácio Lula da Silva").
_NAME_PARTICLES = wordlists.words("name_particles")


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


def redirected_links(
    links: Sequence[LinkedEntity], redirects: Mapping[str, str]
) -> list[LinkedEntity]:
    """``links`` with each merged entity's id replaced by the id it was merged into; two links
    that become one entity are one link (mentions added up, the higher salience and
    confidence), in the place of the more salient."""
    out: dict[str, LinkedEntity] = {}
    for link in links:
        entity_id = redirects.get(link.entity_id, link.entity_id)
        seen = out.get(entity_id)
        if seen is None:
            out[entity_id] = replace(link, entity_id=entity_id)
            continue
        out[entity_id] = replace(
            seen,
            mention_count=seen.mention_count + link.mention_count,
            salience=max(seen.salience, link.salience),
            confidence=max(seen.confidence, link.confidence),
            surfaces=tuple(dict.fromkeys(seen.surfaces + link.surfaces)),
        )
    return sorted(out.values(), key=lambda link: -link.salience)


@dataclass(frozen=True, slots=True)
class LinkResult:
    entities: list[LinkedEntity]  # most salient first
    new_entities: list[EntityDraft]  # to add to the knowledge base (also among ``entities``)


@dataclass(frozen=True, slots=True)
class LinkingConfig:
    min_confidence: float = 0.6  # below this a candidate is not linked
    new_entity_min_confidence: float = 0.65
    max_entities: int = 50
    # Also find the knowledge base's names the recogniser missed (herald.entities.matcher).
    dictionary: bool = True
    # Decide each name's kind with the trained model (herald.entities.kinds), not hand-set votes.
    learned_kinds: bool = False
    # With learned kinds: the least probability of its kind a new entity needs (chosen on dev).
    kind_threshold: float = 0.5
    # Report each link's confidence calibrated (herald.entities.calibration), not its raw score.
    calibrated: bool = True


@dataclass(slots=True)
class _Group:
    key: str
    surfaces: Counter[str] = field(default_factory=Counter)
    mentions: list[Mention] = field(default_factory=list)

    @property
    def name(self) -> str:
        # The longest frequent spelling names the group ("Tara Reid" over "Reid").
        return max(self.surfaces, key=lambda s: (len(s.split()), self.surfaces[s], len(s)))


@dataclass(slots=True)
class _Document:
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


class EntityLinker:
    def __init__(self, kb: KnowledgeBase, config: LinkingConfig | None = None) -> None:
        self._kb = kb
        self._config = config or LinkingConfig()

    @property
    def kb(self) -> KnowledgeBase:
        return self._kb

    def link(self, title: str, body: str, mentions: Sequence[Mention]) -> LinkResult:
        """Link the mentions found in ``document_text(title, body)``."""
        doc, groups, neighbours = self._prepare(title, body, mentions)
        resolved: dict[str, tuple[EntityRecord, float, _Group]] = {}
        drafts: dict[str, EntityDraft] = {}
        lone: list[tuple[_Group, str, float]] = []  # people named by one word only
        for group in groups:
            # The region or country the text puts the name in ("Harriman, Tennessee").
            located = self._located_in(doc, group)
            kinds = self._kinds(doc, group, neighbours, located)
            choice = (
                self._team(doc, group)
                or self._person_over_a_far_town(doc, group, located)
                or self._choose(doc, group, kinds, located)
                or self._by_surname(doc, group, kinds)
            )
            if (choice is None or choice[0].origin == "discovered") and (
                _a_work(doc.text, group) or _quoted(doc.text, group)
            ):
                continue  # a work's title ("the Hunger Games sequel"), which no kind here fits
            if choice is None:
                draft = self._new_entity(doc, group, kinds, located)
                if draft is None:
                    one_word = _lone_person(doc, group, kinds, self._kb)
                    if one_word is not None:
                        lone.append((group, *one_word))
                    continue
                record, confidence = draft
                drafts[record.id] = EntityDraft.of(record)
            else:
                record, confidence = choice
            previous = resolved.get(record.id)
            if previous is None:
                resolved[record.id] = (record, confidence, group)
            else:  # two spellings of one entity ("UK", "United Kingdom"): one link
                merged = _Group(previous[2].key)
                merged.surfaces = previous[2].surfaces + group.surfaces
                merged.mentions = previous[2].mentions + group.mentions
                resolved[record.id] = (record, max(confidence, previous[1]), merged)
        for group, record, confidence in self._named_with(resolved, lone):
            if record.origin == "discovered" and record.id not in self._kb:
                drafts[record.id] = EntityDraft.of(record)
            resolved.setdefault(record.id, (record, confidence, group))
        linked = _measure(doc, resolved)
        linked.sort(key=lambda e: (-e.salience, -e.confidence, e.display_name))
        linked = linked[: self._config.max_entities]
        kept = {e.entity_id for e in linked}
        return LinkResult(linked, [d for i, d in drafts.items() if i in kept])

    def _prepare(
        self, title: str, body: str, mentions: Sequence[Mention]
    ) -> tuple[_Document, list[_Group], dict[int, tuple[Mention | None, Mention | None]]]:
        """The item read for linking: its mentions repaired and grouped by name."""
        text = document_text(title, body)
        title_cased_end = len(title) if title_cased(title) else 0
        mentions = _split_glued(text, mentions, self._kb)
        mentions = _without_openers(_within_paragraphs(mentions), self._kb)
        mentions = _with_given_names(text, _joined_across_and(text, mentions), self._kb)
        mentions = _with_surnames_after_nicknames(text, mentions)
        mentions = _joined_split_names(text, mentions, self._kb)
        mentions = _with_state_mentions(text, _headline_names(mentions, self._kb, title_cased_end))
        if self._config.dictionary:
            mentions = with_dictionary_mentions(text, self._kb, mentions)
        groups = _group_mentions(text, mentions, self._kb)
        terms = frozenset(content_terms(text))
        doc = _Document(
            text=text,
            title_end=len(title),
            title_cased_end=title_cased_end,
            terms=terms,
            sports=not terms.isdisjoint(SPORTS_WORDS),
            sentence_starts=frozenset(s.start for s in split_sentences(text)),
            keys={g.key for g in groups},
            lone_people=frozenset(
                _surface_key(m.text)
                for m in mentions
                if m.label == "PERSON" and len(m.text.split()) == 1
            ),
        )
        return doc, groups, _neighbours(mentions)

    def evidence(
        self, title: str, body: str, mentions: Sequence[Mention]
    ) -> list[tuple[list[Mention], KindEvidence]]:
        """Each group's mentions and what the kind model reads of it (for training it)."""
        doc, groups, neighbours = self._prepare(title, body, mentions)
        return [
            (
                list(group.mentions),
                self.kind_evidence(
                    doc,
                    group,
                    _kind_distribution(doc, group, neighbours, self._kb),
                    self._located_in(doc, group),
                ),
            )
            for group in groups
        ]

    def _kinds(
        self,
        doc: _Document,
        group: _Group,
        neighbours: dict[int, tuple[Mention | None, Mention | None]],
        located: EntityRecord | None,
    ) -> dict[str, float]:
        """The group's kind distribution (over the kind groups): the trained model's when the
        configuration asks for it (with its probability of no entity), else the hand-set
        votes'; half decided by the one kind the knowledge base knows the name as, by a place
        written after it (a place) or by an edition (an event)."""
        kinds = _kind_distribution(doc, group, neighbours, self._kb)
        learned: dict[str, float] = {}
        if self._config.learned_kinds:
            evidence = self.kind_evidence(doc, group, kinds, located)
            p = kinds_model().probabilities(evidence)
            kinds, learned = kind_groups(p, evidence), {NONE: p[NONE]}
        # In a sports report a place's name stands for its club as often as for the place
        # ("Somerset beat Kent"): there the model, which reads the report, is not overruled.
        kinds = self._with_kb_kind(group, kinds, keep_places_open=bool(learned) and doc.sports)
        if located is not None:  # and so a place, whatever the recogniser called it
            kinds = _half_decided(kinds, PLACE)
        elif _edition(group.name) is not None:  # "the 79th Academy Awards": an event
            kinds = _half_decided(kinds, EVENT)
        return kinds | learned

    def kind_evidence(
        self,
        doc: _Document,
        group: _Group,
        heuristic: Mapping[str, float],
        located: EntityRecord | None,
    ) -> KindEvidence:
        """What the kind model reads of a group (:mod:`herald.entities.kinds`)."""
        known: dict[str, float] = {}
        for surface in group.surfaces:
            key = _surface_key(surface)
            for record in self._kb.lookup(key) or _products_in_plural(self._kb, key):
                kind = KIND_GROUP[record.entity_kind]
                known[kind] = max(known.get(kind, 0.0), self._kb.prior(record.id) or 0.01)
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
            edition=_edition(name) is not None,
            demonym=any(self._kb.lookup_demonym(_surface_key(s)) for s in group.surfaces),
            given_name=bool(words) and self._kb.is_given_name(fold(words[0])),
            endings={
                "place": last in _PLACE_ENDINGS,
                "org": last in _ORG_ENDINGS,
                "either": last in _EITHER_ENDINGS,
                "event": last in _EVENT_ENDINGS,
                "firm": last in _FIRM_ENDINGS or last in _COMPANY_WORDS,
                "honour": last in _HONOUR_ENDINGS,
                "place_start": _starts_like_a_place(name),
            },
        )

    def _choose(
        self,
        doc: _Document,
        group: _Group,
        kinds: dict[str, float],
        located: EntityRecord | None,
    ) -> tuple[EntityRecord, float] | None:
        if _is_demonym(group):
            demonym = self._choose_demonym(group)
            if demonym is not None:
                return demonym
            if self._known_organisation(group):
                # "Lionsgate", "Democratic", which the small model may call a nationality.
                kinds = _half_decided(kinds, ORG)
            elif not self._known_product(group):
                return None
            # "Windows Vista", which the small model may call a nationality, is the product.
        state = _abbreviated_state(doc.text, group)
        if state is not None:  # "Springfield, Mo.": the US state
            states = [r for r in self._kb.lookup(alias_key(state)) if _is_us_state(r)]
            return (states[0], 0.9) if len(states) == 1 else None
        candidates: dict[str, tuple[EntityRecord, float]] = {}
        # A natural feature is named by its full name: "the Gulf" read with "the Gulf of Aden"
        # is not Gulf Province.
        longest = len(group.name.split()) if _main_label(group) == "LOC" else 0
        # Longer spellings first: a short form joined to its full name ("Navy" after "the
        # Indian Navy") is looked up only when no longer one found anything.
        by_length = sorted(group.surfaces, key=lambda s: -len(s.split()))
        for surface in by_length:
            words = len(surface.split())
            if words < longest or (candidates and words == 1 < len(by_length[0].split())):
                continue
            key = _surface_key(surface)
            for record in (
                self._kb.lookup(key)
                or self._kb.lookup(strip_corporate_suffix(key))
                or _products_in_plural(self._kb, key)
                # "Regina M. Benjamin" is the Regina Benjamin known (people only)
                or [r for r in self._kb.lookup(without_initials(key)) if r.entity_kind == "person"]
            ):
                exact = alias_key(record.display_name) in (key, strip_corporate_suffix(key))
                candidates[record.id] = (record, 1.0 if exact else 0.8)
        edition = _edition(group.name) if not candidates else None
        if edition is not None:  # "the 79th Academy Awards" are the Academy Awards
            for record in self._kb.lookup(alias_key(edition)):
                if record.entity_kind == "event":
                    candidates[record.id] = (record, 0.8)
        if not candidates:
            # spaCy sometimes calls a nationality a place ("Emirati soldiers").
            if any(m.label in ("GPE", "NORP") for m in group.mentions):
                return self._choose_demonym(group)
            return None
        # Written as a place's region ("Wellington, Somerset"): a region or country, if it can be.
        regional = _after_a_place(doc.text, group) and any(
            r.first_tag("place_type") in _AREAS for r, _ in candidates.values()
        )
        if regional:
            candidates = {
                i: c for i, c in candidates.items() if c[0].first_tag("place_type") in _AREAS
            }
        risky = _needs_context(doc, group) and not regional
        nickname = all(len(s.split()) == 1 for s in group.surfaces)
        beside = _terms_beside(doc, group)
        scored: list[tuple[float, float, EntityRecord]] = []
        for record, name_match in candidates.values():
            fit = kinds.get(KIND_GROUP[record.entity_kind], 0.0)
            if fit < 0.3:
                continue
            if located is not None and not _lies_in(record, located):
                continue  # "Lake County, California" is not the one in Illinois
            if nickname and record.first_tag("sport") and not doc.sports:
                continue  # "Ducks" is a team only in a text about sport ("Ride the Ducks")
            context = self._context(beside, record)
            geography = self._geography(doc, record)
            if risky and context == 0.0 and geography == 0.0:
                continue
            prior = self._kb.prior(record.id)
            score = (
                0.30 * fit + 0.25 * prior + 0.25 * context + 0.10 * geography + 0.10 * name_match
            )
            # Confidence: how well name, kind and prior fit, plus what the text adds.
            support = 0.45 * fit + 0.35 * prior + 0.20 * name_match
            scored.append((score, support + 0.25 * context + 0.10 * geography, record))
        if not scored:
            return None
        scored.sort(key=lambda item: (-item[0], item[2].id))
        best, evidence, record = scored[0]
        runner_up = scored[1][0] if len(scored) > 1 else 0.0
        margin = (best - runner_up) / best if best > 0 else 0.0
        confidence = round(min(1.0, evidence * (0.7 + 0.3 * margin)), 3)
        if confidence < self._config.min_confidence:
            return None
        return record, confidence

    def _team(self, doc: _Document, group: _Group) -> tuple[EntityRecord, float] | None:
        """The team a city or state stands for in a sports report ("a 20-13 victory over Kansas
        City" is the Chiefs): a mention reads as a game's result (:func:`team_cue`) and one of
        the knowledge base's teams of that home fits the report's sport, or is named in it."""
        if not doc.sports:
            return None
        teams = {r.id: r for s in group.surfaces for r in self._kb.lookup_home(_surface_key(s))}
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

    def _by_surname(
        self, doc: _Document, group: _Group, kinds: dict[str, float]
    ) -> tuple[EntityRecord, float] | None:
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
        if _is_demonym(group) or kinds.get(PERSON, 0.0) < 0.5 or _needs_context(doc, group):
            return None
        people = self._kb.lookup_surname(group.key)
        if not people:
            return None
        beside = _terms_beside(doc, group)
        if 1 < len(people) <= _MAX_NAMESAKES:
            people = self._best_known(beside, people)
        if len(people) != 1:
            return None
        profile = self._kb.profile(people[0].id)
        if profile and profile.isdisjoint(beside) and not self._country_named(doc, people[0]):
            return None
        count = len(group.mentions)
        return people[0], round(kinds[PERSON] * (0.6 + 0.4 * min(1.0, count / 3)), 3)

    def _person_over_a_far_town(
        self, doc: _Document, group: _Group, located: EntityRecord | None
    ) -> tuple[EntityRecord, float] | None:
        """A surname alone that is also the name of towns abroad is the person the knowledge
        base describes by it when the item's words fit that description ("Palin stopped by the
        church", beside "Republican" and "Alaska", is Sarah Palin, not Palín in Guatemala):
        the recogniser called it a person at least once, nothing places it and the words
        around most of its mentions do not, and the item names none of the towns' countries."""
        if located is not None or len(group.key.split()) != 1 or not _has_person_label(group):
            return None
        towns = self._kb.lookup(group.key)
        if not towns or any(
            r.entity_kind != "place"
            or r.first_tag("place_type") in ("country", "region", "continent")
            or (country := self._kb.country_of(r)) is None
            or _names(doc, country)
            for r in towns
        ):
            return None
        people = self._kb.lookup_surname(group.key)
        if len(people) != 1:
            return None
        profile = self._kb.profile(people[0].id)
        if not profile or profile.isdisjoint(_terms_beside(doc, group)):
            return None
        if 2 * _placed_mentions(doc.text, group) >= len(group.mentions):
            return None  # "in Palin" ("directed at Palin" once is no place)
        return people[0], round(0.5 + 0.4 * min(1.0, len(group.mentions) / 3), 3)

    def _opens_with_the_items_place(self, doc: _Document, group: _Group, key: str) -> bool:
        """Whether a name that might be a new person's opens with a place the item also names
        alone and ends with no word people's names end with ("Palmer Public Safety", "Palmer
        Fire" in a story about Palmer, Alaska; "Texas Ranger"): what that place has, not who.
        A name the recogniser calls a person twice or more stays one ("Sydney Sweeney" in a
        story that also names Sydney)."""
        first = key.split()[0]
        return (
            sum(m.label == "PERSON" for m in group.mentions) < 2
            and first in doc.keys
            and any(r.entity_kind == "place" for r in self._kb.lookup(first))
            and not _ends_like_a_persons_name(key, self._kb)
        )

    def _opens_with_what_is_no_one(self, words: Sequence[str]) -> bool:
        """Whether a name that might be a new person's opens with a word that is no first name
        and that is an organisation's whole name, of organisations only ("Intel Xeon": what a
        company makes; not "Brady Quinn" beside the Brady Corporation, nor "Dana Tamir"), or a
        nationality ("the Iranian Majlis")."""
        if self._kb.is_given_name(fold(words[0])):
            return False  # "German Efromovich"
        return self._whole_name_of(words[0], _ORG_KINDS) or bool(
            self._kb.lookup_demonym(alias_key(words[0]))
        )

    def _whole_name_of(self, word: str, kinds: frozenset[str]) -> bool:
        """Whether the knowledge base knows ``word`` as entities of these kinds only, one of
        them named by it in full ("Intel"; not "Brady", the Brady Corporation's other name)."""
        key = alias_key(word)
        known = self._kb.lookup(key)
        return (
            bool(known)
            and all(r.entity_kind in kinds for r in known)
            and any(alias_key(r.display_name) == key for r in known)
        )

    def _common_words_named(self, doc: _Document, words: Sequence[str]) -> bool:
        """Whether a name that might be a new person's opens with no known first name and ends
        with a word the item also writes in lower case ("App Store" beside "the store"), or the
        item writes the name itself with its last word in lower case ("Oscar Host" beside "an
        Oscar host"): common words written as a name, not a person's."""
        if not words[-1].isalpha():
            return False
        if not self._kb.is_given_name(fold(words[0])):
            return _used_as_a_word(doc, words[-1:])
        return bool(word_positions(doc.text, " ".join([*words[:-1], words[-1].lower()])))

    def _may_be_a_new_place(self, doc: _Document, group: _Group, name: str) -> bool:
        """Whether a word the knowledge base does not know may name a new place: no acronym
        ("from XP to RT"; a dotted one, "B.C.", may be), nor a first name the text does not
        write as a place ("another brother, Louis, was a priest"; not "water on Mars", "in
        Regina"). Known places are known by such names too."""
        if name.isupper() and "." not in name:
            return False
        return not self._kb.is_given_name(alias_key(name)) or (
            _placed(doc.text, group)
            or any(_after_a_preposition(doc.text, m) for m in group.mentions)
        )

    def _country_named(self, doc: _Document, record: EntityRecord) -> bool:
        """Whether the item names the person's country ("the U.S. surgeon general's post"),
        outside sports reports (where countries are teams: "Brown scored as England won")."""
        country = self._kb.country_of(record)
        return country is not None and not doc.sports and _names(doc, country)

    def _best_known(self, beside: frozenset[str], people: list[EntityRecord]) -> list[EntityRecord]:
        if all(self._kb.prior(r.id) < 0.7 for r in people):
            return []  # nobody of that surname is widely described: no need to read on
        scored = sorted(
            (
                (0.6 * self._kb.prior(r.id) + 0.4 * self._context(beside, r), r.id, r)
                for r in people
            ),
            key=lambda item: (-item[0], item[1]),
        )
        (best, _, record), (runner_up, _, _) = scored[0], scored[1]
        if self._kb.prior(record.id) < 0.7 or best - runner_up < 0.1:
            return []
        return [record]

    def _with_kb_kind(
        self, group: _Group, kinds: dict[str, float], keep_places_open: bool = False
    ) -> dict[str, float]:
        """A full name the knowledge base knows as one kind only ("Olaf Scholz", a person) is
        half decided by that: the recogniser's label for it matters less than what it is."""
        full = [s for s in group.surfaces if len(_surface_key(s).split()) > 1]
        found = {
            KIND_GROUP[r.entity_kind]
            for s in full
            for r in self._kb.lookup(_surface_key(s))
            or _products_in_plural(self._kb, _surface_key(s))
        }
        if not full:
            # A one-word name only when it is well known and of one kind ("Dushanbe", a
            # capital, which the small model may call an organisation).
            records = [r for s in group.surfaces for r in self._kb.lookup(_surface_key(s))]
            if not records or max(self._kb.prior(r.id) for r in records) < ONE_WORD_MIN_PRIOR:
                return kinds
            found = {KIND_GROUP[r.entity_kind] for r in records}
        if len(found) != 1:
            return kinds
        known = next(iter(found))
        if known == PLACE and keep_places_open:
            return kinds
        return _half_decided(kinds, known)

    def _known_organisation(self, group: _Group) -> bool:
        """Whether the knowledge base knows a name of the group as organisations or companies
        only."""
        kinds = self._known_kinds(group)
        return bool(kinds) and kinds <= _ORG_KINDS

    def _known_product(self, group: _Group) -> bool:
        """Whether the knowledge base knows a name of several words of the group as a product."""
        return "product" in self._known_kinds(group, min_words=2)

    def _known_kinds(self, group: _Group, min_words: int = 1) -> set[str]:
        """The kinds of the knowledge-base entities named by the group's spellings (of at least
        ``min_words`` words)."""
        return {
            r.entity_kind
            for s in group.surfaces
            if len(s.split()) >= min_words
            for r in self._kb.lookup(_surface_key(s))
        }

    def _choose_demonym(self, group: _Group) -> tuple[EntityRecord, float] | None:
        found = {r.id: r for s in group.surfaces for r in self._kb.lookup_demonym(_surface_key(s))}
        if not found:
            # spaCy also calls a country's own name a nationality ("Tajikistan's capital").
            countries = {
                r.id: r
                for s in group.surfaces
                for r in self._kb.lookup(_surface_key(s))
                if r.first_tag("place_type") == "country"
            }
            if len(countries) == 1:
                return next(iter(countries.values())), 0.8
        if len(found) != 1:
            return None
        record = next(iter(found.values()))
        # "French police" is about France, but less surely than a name: a fixed, lower confidence.
        return record, 0.7

    def _context(self, terms: frozenset[str], record: EntityRecord) -> float:
        """How much the item's words (``terms``, the group's own left out) speak for
        ``record``: words of its profile, and words of its kind in general."""
        specific = len(terms & self._kb.profile(record.id))
        generic = len(terms & GENERIC_CONTEXT.get(record.entity_kind, frozenset()))
        evidence = specific + 0.5 * min(generic, 4)
        return 1.0 - math.exp(-evidence / 2.0)

    def _places_by_region(self, doc: _Document) -> dict[str, set[str]]:
        if doc.places_by_region is None:
            doc.places_by_region = {}
            for key in doc.keys:
                places = [r for r in self._kb.lookup(key) if r.entity_kind == "place"]
                region = places[0].first_tag("region") if len(places) == 1 else None
                if region is not None:
                    doc.places_by_region.setdefault(alias_key(region), set()).add(places[0].id)
        return doc.places_by_region

    def _geography(self, doc: _Document, record: EntityRecord) -> float:
        """1 when a place's region ("Bloomington ... Minnesota") or, for a place the knowledge
        base puts in no region, its country (Paris ... France) is also named in the document;
        0.9 when another place the item names lies in that region ("Bloomington ...
        Minneapolis"); 0.75 when only the country of a place with a region is (the region tells
        the country's Bloomingtons apart). A country is named by its nationality too ("Tuscany
        ... Italian officials")."""
        if record.entity_kind != "place":
            return 0.0
        region = record.first_tag("region")
        if region is not None:
            where = alias_key(region)
            if where in doc.keys:
                return 1.0
            if self._places_by_region(doc).get(where, set()) - {record.id}:
                return 0.9  # another place of the item lies there
        country = self._kb.country_of(record)
        if country is None or not (_names(doc, country) or _nationality_named(doc, country)):
            return 0.0
        return 0.75 if region is not None else 1.0

    def _located_in(self, doc: _Document, group: _Group) -> EntityRecord | None:
        """The region or country written right after the group's name, as in "Harriman,
        Tennessee", "Huntsville, Ala." or "Yola, Nigeria" (one the knowledge base knows, and
        only one)."""
        for mention in group.mentions:
            state = _AP_STATE.match(doc.text, mention.end)
            ends: list[int] = []
            if state is not None:  # news style for a US state
                words = _STATE_BY_KEY[alias_key(state.group(1))].split()
            elif (after := _AFTER_COMMA.match(doc.text, mention.end)) is not None:
                spans = list(_NON_SPACE.finditer(doc.text, after.start(1), after.end(1)))
                words = [m.group() for m in spans]
                if words[-1].endswith(("'s", "’s")):
                    continue  # "Hansbrough, North Carolina's career scoring leader": an owner
                ends = [m.end() for m in spans]
            else:
                continue
            for n in range(len(words), 0, -1):
                if n < len(words) and alias_key(words[n - 1]) in _COMPASS:
                    continue  # "South" of "Merthyr Tydfil, South Wales" is no region alone
                key = alias_key(" ".join(words[:n]))
                known = self._kb.lookup(key)
                places = [
                    r
                    for r in known
                    if (_is_us_state(r) if state else r.first_tag("place_type") in _AREAS)
                ]
                if not places and not state and any(r.entity_kind == "place" for r in known):
                    break  # "Atlanta, Kansas City": a city, whose first word is no area here
                if len(places) == 1:
                    if ends and self._listed(doc, group, places[0], ends[n - 1]):
                        break
                    return places[0]
                if places:
                    return None  # "Georgia": the state or the country
        return None

    def _listed(self, doc: _Document, group: _Group, area: EntityRecord, end: int) -> bool:
        """Whether the group's name and the ``area`` written after it (ending at ``end``) are
        items of a list, not a place and where it lies: two countries ("immigrants from
        Vietnam, Cambodia and Laos"), or a well-known place followed, after the area, by
        another place of its type or of the area's ("Budapest, Hamburg, Los Angeles", "Canada,
        California, and Texas"), when none of the places the name has lies in that area. A
        little-known namesake is taken at its word ("Northfield, Illinois, and Chicago")."""
        own = [r for r in self._kb.lookup(group.key) if r.entity_kind == "place"]
        if not own:
            return False
        if area.first_tag("place_type") == "country" and any(
            r.first_tag("place_type") == "country" for r in own
        ):
            return True
        if any(self._kb.country_of(r) == area or _in_region(r, area) for r in own):
            return False
        if max(self._kb.prior(r.id) for r in own) < _LISTED_MIN_PRIOR:
            return False
        following = _LIST_NEXT.match(doc.text, end)
        if following is None:
            return False
        types = {r.first_tag("place_type") for r in own} | {area.first_tag("place_type")}
        words = following.group(1).split()
        for n in range(len(words), 0, -1):
            others = self._kb.lookup(alias_key(" ".join(words[:n])))
            if any(r.entity_kind == "place" and r.first_tag("place_type") in types for r in others):
                return True
        return False

    def _new_entity(
        self,
        doc: _Document,
        group: _Group,
        kinds: dict[str, float],
        located: EntityRecord | None,
    ) -> tuple[EntityRecord, float] | None:
        if _is_demonym(group):
            return None  # nationalities and groups ("Icelanders") only link to known places
        name = _storm_named_in_full(doc.text, group, _clean_surface(group.name))
        key = alias_key(name)
        if not key or key in _NOT_NAMES or key in _TITLES or key in _STATE_BY_KEY:
            return None  # ("Mich." is an abbreviated state, "Msgr." a title)
        if _POSITION.match(key):
            return None  # "Surgeon General" is an office
        if all(
            _SECRETARY_OF.search(doc.text, max(0, m.start - 20), m.start) for m in group.mentions
        ):
            return None  # "State" of "Secretary of State John Kerry" names an office
        if not _looks_like_a_name(name):
            return None
        group_kind, share = max(
            ((k, v) for k, v in kinds.items() if k != NONE), key=lambda item: item[1]
        )
        # How sure the kind model is that the group names a thing of that kind (0 without it).
        sure = round(share * (1.0 - kinds[NONE]), 3) if NONE in kinds else 0.0
        if sure < self._config.kind_threshold:
            sure = 0.0
        if located is not None and group_kind == PLACE:
            return self._new_place(group, name, located, share)
        if self._kb.is_known_name(key) and not sure:
            # A known name that did not fit here is not a new entity, unless the kind model is
            # sure of its kind: a club named after its city ("Somerset won by six wickets").
            return None
        last = _head_word(name)
        several = len(name.split()) > 1
        # A name that says what it is needs only to read as a name: any of the three kinds.
        a_name = kinds.get(PERSON, 0.0) + kinds.get(PLACE, 0.0) + kinds.get(ORG, 0.0)
        if several and _model_of(name, self._kb):
            # A model of a known product line ("BlackBerry Q10", "Galaxy S4", "Windows 8"),
            # whatever the recogniser called it.
            group_kind, share = PRODUCT, a_name + kinds.get(PRODUCT, 0.0)
        elif (
            group_kind == ORG
            and len(name.split()) == 2
            and last not in _NAMING_WORDS
            and self._whole_name_of(name.split()[0], _COMPANY)
        ):
            # A company's whole name and one more word is what it makes ("Intel Atom", "AMD
            # Opteron"), not a part of it ("Intel Capital", "Sony Pictures"); "Apple TV" is not
            # caught so, the company being "Apple Inc." in full
            group_kind, share = PRODUCT, a_name + kinds.get(PRODUCT, 0.0)
        elif _edition(name) is not None or (several and last in _EVENT_ENDINGS):
            # "the 3rd Annual Tribeca Film Festival", "the Sundance Film Festival", "the Asian
            # Games": an event, whatever the recogniser called it
            group_kind, share = EVENT, a_name + kinds.get(EVENT, 0.0)
        elif _starts_like_a_place(name):
            group_kind, share = PLACE, a_name  # "Mount Sefton", "Place Vendôme"
        elif last in _NAMING_WORDS:
            # The name says what it is, whatever the label and the sentence suggest: no
            # person's name ends so ("Indiana State", "Matanuska Maid Creamery"), "Syntagma
            # Square" is a place, the "American Medical Association" an organisation (a
            # university or a court is either: the text decides).
            if group_kind == PERSON or (
                several and group_kind in (PLACE, ORG) and last not in _EITHER_ENDINGS
            ):
                group_kind = PLACE if last in _PLACE_ENDINGS else ORG
            if several:
                share = a_name
        if group_kind == PERSON:
            name = _without_title(name)
            key = alias_key(name)
        words = name.split()
        if group_kind == PERSON and (len(words) < 2 or _titled_surname(words)):
            return None  # "Reid" or "Deputy Ortiz" alone is too ambiguous to become an entity
        if group_kind == PERSON and any(
            (w.isupper() and len(w) >= 3 and not _ROMAN.match(w)) or _has_digit(w) for w in words
        ):
            return None  # no person's name has a word in capitals ("EYP MCF") or a number
        if group_kind == PERSON and self._opens_with_the_items_place(doc, group, key):
            return None  # "Palmer Fire" beside "Palmer", "Texas Ranger" beside "Texas"
        if group_kind == PERSON and self._opens_with_what_is_no_one(words):
            return None  # "Intel Xeon", "the Iranian Majlis"
        if group_kind == PERSON and self._common_words_named(doc, words):
            return None  # "App Store" beside "the store", "Dynamic Smart Cooling" by "cooling"
        if len(words) == 1 and group_kind != PRODUCT and _has_digit(name):
            # a version or a model ("IE6", "Q10", "A380") is no place, person or organisation
            return None
        if (
            len(words) == 1
            and group_kind == PLACE
            and not self._may_be_a_new_place(doc, group, name)
        ):
            return None
        if words[0] in _VESSEL_PREFIXES or _ship(doc.text, group) or _quoted(doc.text, group):
            return None  # a ship ("INS Sukanya") or a work's title ("'Catching Fire'")
        if "and" in words[: _of_at(words)] and words[-1].lower() not in _NAMING_WORDS:
            return None  # two names joined ("Lopez and Carrasquillo", "North and South Korea")
        if len(words) > 1 and words[-1].lower() in _HONOUR_ENDINGS:
            return None  # an award ("MacArthur Fellowship", "Most Valuable Player Award")
        if (
            len(words) == 2
            and words[-1].lower().endswith("al")
            and words[-1].lower() not in _NAMING_WORDS
            and self._kb.lookup_demonym(alias_key(words[0]))
        ):
            return None  # a nationality and an adjective ("the Indian Naval destroyer")
        if _only_in_headline(doc, group):
            return None  # capitalisation proves nothing in a title-cased headline
        body = [m for m in group.mentions if m.start >= doc.title_end]
        if len(words) == 1 and (
            (
                len(group.mentions) < 2
                and not sure
                and not all(m.label in ("GPE", "LOC") for m in group.mentions)
            )
            or _needs_context(doc, group)
        ):
            return None
        count = len(group.mentions)
        in_title = len(body) < count
        confidence = share * _mention_weight(count)
        if in_title:
            confidence += 0.1
        if group_kind == PERSON or len(words) >= 2:
            confidence += 0.1  # spaCy's multi-word names are rarely wrong
        confidence = round(min(1.0, max(confidence, sure)), 3)
        if confidence < self._config.new_entity_min_confidence:
            return None
        return _discovered(group, group_kind, name), confidence

    def _named_with(
        self,
        resolved: dict[str, tuple[EntityRecord, float, _Group]],
        lone: list[tuple[_Group, str, float]],
    ) -> Iterable[tuple[_Group, EntityRecord, float]]:
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

        people = by_mentions(
            lambda r: r.entity_kind == "person" and len(r.display_name.split()) >= 2
        )
        anchors = people or by_mentions(lambda r: r.entity_kind in _ORG_KINDS)
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
            known = (self._kb.lookup_named_with(key, a) for a in anchors)
            record = next((r for r in known if r is not None), None) or EntityRecord(
                id=entity_id_for(PERSON, name, f"discovered:person:{key}@{with_key}"),
                display_name=name,
                entity_kind="person",
                description=f"Named with {anchor.display_name}",
                tags=(Tag(NAMED_WITH, anchor.display_name),),
                origin="discovered",
            )
            yield group, record, confidence

    def _new_place(
        self, group: _Group, name: str, located: EntityRecord, share: float
    ) -> tuple[EntityRecord, float] | None:
        """A place the text locates ("Harriman, Tennessee"): one mention is enough, and the
        region or country it lies in is kept with it (two Lake Counties stay apart)."""
        confidence = round(min(1.0, share * 0.8 + 0.1), 3)
        if confidence < self._config.new_entity_min_confidence:
            return None
        tags = []
        if located.first_tag("place_type") == "region":
            tags.append(Tag("region", located.display_name))
        country = located.first_tag("country")
        if country:
            tags.append(Tag("country", country))
        where = alias_key(located.display_name)
        record = EntityRecord(
            id=entity_id_for("place", name, f"discovered:place:{alias_key(name)}|{where}"),
            display_name=name,
            entity_kind="place",
            description=f"Place in {located.display_name}",
            tags=tuple(tags),
            origin="discovered",
        )
        return record, confidence


_AFTER_COMMA = re.compile(r",\s+([A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,3})")
# The news agencies' abbreviations of US states, read only right after a place and a comma
# ("Huntsville, Ala."), where they cannot be a word or a title.
_AP_STATES = wordlists.mapping("ap_states")
_STATE_BY_KEY = {alias_key(k): state for k, state in _AP_STATES.items()}
# Initials may be spaced ("N. Y.", as some texts and tokenisers write them).
_AP_STATE = re.compile(
    r",\s+("
    + "|".join(
        re.escape(k).replace(r"\.", r"\. ?") for k in sorted(_AP_STATES, key=len, reverse=True)
    )
    + r")\."
)


_AREAS = ("region", "country")
# How well known a place must be to be read as an item of a list rather than as a namesake in
# the area after it (Florence in Italy 0.66, Atlanta 0.70; Northfield, Minnesota 0.33).
_LISTED_MIN_PRIOR = 0.6
# Words that open a longer place name ("South Wales", "North Carolina"): never an area alone
# when more of the name follows.
_COMPASS = wordlists.words("compass_words")
# The next item of a list after a place: ", Atlanta", " and Laos", ", and Rome", " or Lyon".
_LIST_NEXT = re.compile(
    r"(?:,\s+(?:and\s+|or\s+)?|\s+(?:and|or)\s+)([A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,3})"
)


def _names(doc: _Document, record: EntityRecord) -> bool:
    """Whether the item names ``record`` by one of its names ("U.S." for the United States)."""
    keys = {alias_key(record.display_name)} | {alias_key(a) for a in record.aliases}
    return not keys.isdisjoint(doc.keys)


def _nationality_named(doc: _Document, country: EntityRecord) -> bool:
    """Whether the item writes the country's nationality ("Italian" for Italy)."""
    return any(alias_key(d) in doc.keys for d in country.tag_values("demonym"))


def _in_region(place: EntityRecord, area: EntityRecord) -> bool:
    region = place.first_tag("region")
    return region is not None and alias_key(region) == alias_key(area.display_name)


def _is_us_state(record: EntityRecord) -> bool:
    return record.first_tag("place_type") == "region" and record.first_tag("country") == "US"


def _with_state_mentions(text: str, mentions: Sequence[Mention]) -> list[Mention]:
    """The mentions, with a US state abbreviated after a place ("Springfield, Mo.") as a
    mention of its own where the recogniser did not find it."""
    out = list(mentions)
    for mention in mentions:
        match = _AP_STATE.match(text, mention.end)
        if match is None:
            continue
        start, end = match.span(1)
        if not any(m.start < end and start < m.end for m in out):
            out.append(Mention(match.group(1), "GPE", start, end))
    return out


def _abbreviated_state(text: str, group: _Group) -> str | None:
    """The state a group names when each of its mentions is a news agency's abbreviation of a
    US state written after a place and a comma ("Springfield, Mo."), else None."""
    states = set()
    for mention in group.mentions:
        # The grammar _with_state_mentions reads, found where this mention starts.
        found = _AP_STATE.search(text, max(0, mention.start - 3), mention.end + 1)
        abbreviation = mention.text.rstrip(".")
        if found is None or found.start(1) != mention.start or found.group(1) != abbreviation:
            return None
        states.add(_STATE_BY_KEY[alias_key(abbreviation)])
    return states.pop() if len(states) == 1 else None


_PLACE_AND_COMMA = re.compile(r"\b[A-Z][\w'’.-]*,\s+$")


def _after_a_place(text: str, group: _Group) -> bool:
    """Whether each mention of the group follows a capitalised name and a comma, where a place's
    region is written ("Wellington, Somerset")."""
    return all(_PLACE_AND_COMMA.search(text, max(0, m.start - 40), m.start) for m in group.mentions)


# Words a product's model name goes on with, after its line's name ("MacBook Pro", "iPhone SE").
_MODEL_WORDS = wordlists.words("model_words")


def _model_of(name: str, kb: KnowledgeBase) -> bool:
    """Whether the name is a model of a product line the knowledge base knows: the line's words
    ("BlackBerry", "Galaxy", "Internet Explorer") and then a model's ("Q10", "Curve 8900", "S4",
    "8", "XP"): capitalised, one holding a digit or a model word such as "Pro"."""
    words = name.split()
    for n in range(len(words) - 1, 0, -1):
        rest = words[n:]
        if len(rest) > 3 or not all(w[:1].isupper() or w[:1].isdigit() for w in rest):
            continue
        if not _names_a_model(rest):
            continue
        if kb.lookup_line(alias_key(" ".join(words[:n]))):
            return True
    return False


def _names_a_model(words: Sequence[str]) -> bool:
    """Whether the words after a product line's name name a model: one holds a digit or is a
    model word ("Q10", "Pro"), or a single capitalised word names an edition or a feature
    ("Windows Update", "BlackBerry Balance"; not a word organisations or places are named with,
    "BlackBerry Limited", nor a title)."""
    if any(_has_digit(w) or w.lower() in _MODEL_WORDS for w in words):
        return True
    word = words[0]
    return (
        len(words) == 1
        and word.isalpha()
        and word.istitle()
        and word.lower() not in _NAMING_WORDS
        and word.lower() not in _TITLES
    )


def _products_in_plural(kb: KnowledgeBase, key: str) -> list[EntityRecord]:
    """The products a plural names ("MacBook Pros")."""
    if not key.endswith("s") or len(key) < 4:
        return []
    return [r for r in kb.lookup(key[:-1]) if r.entity_kind == "product"]


def _lies_in(record: EntityRecord, located: EntityRecord) -> bool:
    """Whether ``record`` is another place that may lie in ``located``: nothing the knowledge
    base says of it puts it elsewhere."""
    if record.entity_kind != "place" or record.id == located.id:
        return False
    region = record.first_tag("region")
    if located.first_tag("place_type") == "region" and region:
        return alias_key(region) == alias_key(located.display_name)
    country, where = record.first_tag("country"), located.first_tag("country")
    return not (country and where) or country == where


def document_text(title: str, body: str) -> str:
    """The text NER and linking read: the title, a blank line, the body."""
    return f"{title.strip()}\n\n{body}" if title.strip() else body


def _surface_key(surface: str) -> str:
    return alias_key(_clean_surface(surface))


def _clean_surface(surface: str) -> str:
    text = _NICKNAME.sub(" ", " ".join(surface.split()))
    text = _LEADING.sub("", text)
    text = _POSSESSIVE.sub("", text) if text.endswith(("'s", "’s", "'", "’")) else text
    return text.strip(' ,.;:!?"“”()[]')


def _group_mentions(text: str, mentions: Sequence[Mention], kb: KnowledgeBase) -> list[_Group]:
    groups: dict[str, _Group] = {}
    for mention in mentions:
        surface = _clean_surface(mention.text)
        key = alias_key(surface)
        generic = _GENERIC_TAIL.search(surface)
        if generic is not None and not kb.is_known_name(key):
            # "Aceh province", "New York state": the name is "Aceh", "New York"
            surface = surface[: generic.start()]
            key = alias_key(surface)
        if len(key) < 2 or not any(ch.isalpha() for ch in key):
            continue
        group = groups.setdefault(key, _Group(key))
        group.surfaces[surface] += 1
        group.mentions.append(mention)
    _join_initials(groups)
    long_names = [g for g in groups.values() if len(g.key.split()) > 1 and not _is_demonym(g)]
    for key, group in list(groups.items()):
        core = [w for w in key.split() if not is_initial(w)]
        if len(core) in (2, 3) and core == key.split():
            owner = _organisation_tail_owner(group, long_names, kb)
        elif len(core) != 1 or _abbreviated_state(text, group) is not None:
            continue  # "Chapel Hill, N.C." names the state, whatever "North Carolina" stands for
        elif core[0] != key:  # "M. Benjamin": a surname after initials is a short form too
            probe = _Group(core[0], group.surfaces, group.mentions)
            others = [g for g in long_names if g is not group]
            owner = _short_form_owner(probe, others, kb) if _is_person(group) else None
        elif _is_demonym(group):
            owner = _surname_called_a_nationality(group, long_names, kb)
        else:
            owner = _short_form_owner(group, long_names, kb) or _first_name_called_a_place(
                text, group, long_names, kb
            )
        if owner is not None:
            owner.surfaces.update(group.surfaces)
            owner.mentions.extend(group.mentions)
            del groups[key]
            if group in long_names:  # "M. Benjamin", "Red Crescent", joined: no full name
                long_names.remove(group)
    return list(groups.values())


def _organisation_tail_owner(
    group: _Group, long_names: list[_Group], kb: KnowledgeBase
) -> _Group | None:
    """The one longer organisation's name of the item that is this name of two or three words
    after a place or a nationality, both called organisations by the recogniser: the item's
    short form of it, wherever it stands ("Iran's Red Crescent relief agency ... the Iranian
    Red Crescent", "the Supreme Court" beside "the California Supreme Court"; not "Bettie Page"
    beside the film "The Notorious Bettie Page"). A short form the knowledge base knows joins
    only a longer name it knows too, for an unknown name links by the names it is written
    with: "Supreme Court", made by an earlier item, would lend its entity to the "Nevada
    Supreme Court"."""
    if _is_demonym(group) or not all(m.label == "ORG" for m in group.mentions):
        return None
    tail = " " + group.key
    owners = [
        g
        for g in long_names
        if g is not group
        and g.key.endswith(tail)
        and _main_label(g) == "ORG"
        and _place_or_nationality(g.key[: -len(tail)], kb)
    ]
    if len(owners) != 1:
        return None
    if kb.is_known_name(group.key) and not kb.is_known_name(owners[0].key):
        return None
    return owners[0]


def _place_or_nationality(key: str, kb: KnowledgeBase) -> bool:
    """Whether the knowledge base knows this name key as a place or a nationality."""
    return bool(kb.lookup_demonym(key)) or any(r.entity_kind == "place" for r in kb.lookup(key))


def _join_initials(groups: dict[str, _Group]) -> None:
    """A person's name written without the initials it has elsewhere in the item ("Regina
    Benjamin" and "Regina M. Benjamin") is one group, when one name with initials fits: "George
    Bush" beside both "George W. Bush" and "George H. W. Bush" stays apart, as do those two."""
    initialled: dict[str, list[str]] = defaultdict(list)
    for key, group in groups.items():
        bare = without_initials(key)
        if bare != key and _is_person(group):
            initialled[bare].append(key)
    for bare, keys in initialled.items():
        plain = groups.get(bare)
        if plain is None or len(keys) != 1 or not _is_person(plain):
            continue
        owner = groups[keys[0]]
        owner.surfaces.update(plain.surfaces)
        owner.mentions.extend(plain.mentions)
        del groups[bare]


# A common noun the recogniser kept after a place's name, in lower case as it is not part of it.
_GENERIC_TAIL = re.compile(r"(?<=\w) (?:" + "|".join(wordlists.sequence("area_nouns")) + r")$")


def _surname_called_a_nationality(
    group: _Group, long_names: list[_Group], kb: KnowledgeBase
) -> _Group | None:
    """The person whose surname the small model called a nationality ("Klitschko, 58-3,
    floored Thompson" after "Wladimir Klitschko"): only a word that names no nationality nor
    anything else the knowledge base knows, and the surname of exactly one person named here.
    Its mentions become the person's."""
    if kb.lookup_demonym(group.key) or kb.lookup(group.key):
        return None
    people = [g for g in long_names if g.key.split()[-1] == group.key and _is_person(g)]
    if len(people) != 1:
        return None
    group.mentions = [_as_person(m) for m in group.mentions]
    return people[0]


def _short_form_owner(group: _Group, long_names: list[_Group], kb: KnowledgeBase) -> _Group | None:
    """The full name a one-word mention stands for in this document, if exactly one fits.

    "Lagarde" after "Christine Lagarde" (whatever spaCy called either: the small model often
    takes a surname for a place or a person's full name for an organisation, so a PERSON label
    on either side is enough); a first name only when labelled PERSON; an organisation's first
    word, labelled an organisation at least once and not a name the knowledge base knows ("the
    Interior" after the "Interior Department"); an acronym after the organisation it abbreviates
    ("ECB" after "European Central Bank"); a natural feature's first word, both labelled
    locations ("the Gulf" after "the Gulf of Aden"). A short form that joins a person's name is
    a mention of that person, so its label becomes PERSON.
    """
    key = group.key
    surname_of = [g for g in long_names if key == g.key.split()[-1]]
    short_person = _has_person_label(group)
    owners = [g for g in surname_of if _has_person_label(g)]
    if not owners and short_person:
        owners = [g for g in surname_of if "," not in g.name]
    if not owners and short_person:
        owners = [
            g
            for g in long_names
            if key == _first_name_key(g.key)
            and _has_person_label(g)
            and g.key.split()[-1] not in _NAMING_WORDS  # "Surrey" is not of "Surrey Police"
        ]
    as_person = False  # the short form is then the person's, whatever its label
    if not owners and surname_of and not kb.is_known_name(key):
        # The surname of a full name starting with a known first name and never called a place
        # (as "San Jose" may be), whatever the recogniser called the surname ("Riva" after
        # "Paul Riva", called an organisation, a building, a product).
        owners = [
            g
            for g in surname_of
            if _has_given_name(g.name, kb) and not any(m.label in _PLACE_LABELS for m in g.mentions)
        ]
        as_person = bool(owners)
    if not owners and kb.is_given_name(key) and not kb.is_known_name(key):
        # A first name alone, whatever its label, after one person's full name ("Bettie" after
        # "Bettie Page", both called organisations).
        owners = [
            g for g in long_names if key == _first_name_key(g.key) and _has_given_name(g.name, kb)
        ]
        as_person = True
    if not owners and not kb.is_known_name(key) and group.name[:1].isupper():
        # A word nothing else names, alone, that starts one full name the recogniser called a
        # person and that ends as people's names do ("Kathina" after "Kathina Thomas", called a
        # place; not "Creighton" after the headline's "Creighton Returns").
        owners = [
            g
            for g in long_names
            if key == _first_name_key(g.key)
            and _main_label(g) == "PERSON"
            and len(g.key.split()) <= 3
            and _ends_like_a_persons_name(g.key, kb)
        ]
        as_person = True
    if len(owners) > 1:
        # Several full names of that surname: the one the item had introduced, alone, when it
        # first wrote the surname alone ("Gigante" after "Vincent Gigante", long before "Louis
        # Gigante"; after "Venus Williams and Serena Williams", "Williams" is neither).
        first = min(m.start for m in group.mentions)
        owners = [g for g in owners if min(m.start for m in g.mentions) < first]
    if len(owners) == 1:
        owner = owners[0]
        if _is_person(owner) or short_person or as_person:
            group.mentions = [_as_person(m) for m in group.mentions]
        return owner
    heads = [
        g
        for g in long_names
        if g.key.split()[0] == key
        and _main_label(g) == "ORG"
        # "the Academy" is no "Academy Awards", no "Academy Award"
        and g.key.split()[-1] not in _EVENT_ENDINGS | _HONOUR_ENDINGS
    ]
    if (
        len(heads) == 1
        and _unknown_or_made(key, kb)
        and any(m.label == "ORG" for m in group.mentions)
    ):
        return heads[0]
    heads = [g for g in long_names if g.key.split()[0] == key and _main_label(g) == "LOC"]
    if len(heads) == 1 and all(m.label == "LOC" for m in group.mentions):
        return heads[0]  # "the Gulf" after "the Gulf of Aden", a natural feature's head word
    label = _main_label(group)
    written = [s for s in group.surfaces if s[:1].isupper() and not s.isupper()]
    if (
        label in ("ORG", "GPE")
        and len(written) == len(group.surfaces)
        and all(r.origin == "discovered" for r in kb.lookup(key))
    ):
        # An organisation's or a place's last word, labelled so and capitalised each time and
        # no acronym, that the knowledge base does not know but as a name an item made ("the
        # Post" after "the Washington Post", "the Sox" after "the Red Sox", "Angeles" after
        # "Los Angeles").
        tails = [g for g in long_names if g.key.split()[-1] == key and _main_label(g) == label]
        if len(tails) == 1 and all(m.label == label for m in group.mentions):
            return tails[0]
    surfaces = [s for s in group.surfaces if s.isupper() and 2 <= len(s) <= 6]
    if surfaces:
        expanding = [g for g in long_names if not _is_person(g) and _abbreviates(key, g.name)]
        if len(expanding) == 1:
            return expanding[0]
    return None


def _has_digit(word: str) -> bool:
    return any(c.isdigit() for c in word)


def _unknown_or_made(key: str, kb: KnowledgeBase) -> bool:
    """Whether the knowledge base knows the name by nothing but an organisation an item made of
    it ("Kraft", where an earlier story named only "Kraft"), if at all."""
    if not kb.is_known_name(key):
        return True
    known = kb.lookup(key)
    return bool(known) and all(
        r.origin == "discovered" and r.entity_kind in _ORG_KINDS for r in known
    )


def _first_name_called_a_place(
    text: str, group: _Group, long_names: list[_Group], kb: KnowledgeBase
) -> _Group | None:
    """The person a first name alone stands for when that word is also a place's name
    ("Regina's clinic" after "Regina Benjamin"; "Paris said" after "Paris Hilton"): exactly one
    full name of the item starts with it, the recogniser called that name a person and it ends
    as people's names do, the item wrote it before the word alone, the word is written as a
    name (not "US" of "US Fish"), the knowledge base knows it as places only, and no mention
    reads as a place ("in Regina", "Regina-based"). Its mentions become the person's."""
    key = group.key
    known = kb.lookup(key)
    if not known or any(r.entity_kind == "person" for r in known):
        return None
    name = _clean_surface(group.name)
    if not all(r.entity_kind == "place" for r in known) or not (name.isalpha() and name.istitle()):
        return None
    first = min(m.start for m in group.mentions)
    owners = [
        g
        for g in long_names
        if key == _first_name_key(g.key)
        and _is_person(g)
        and len(g.key.split()) <= 3
        and _ends_like_a_persons_name(g.key, kb)
        and min(m.start for m in g.mentions) < first
    ]
    if len(owners) != 1:
        return None
    if _placed(text, group):
        return None
    group.mentions = [_as_person(m) for m in group.mentions]
    return owners[0]


# Prepositions a place is written after ("on Mars", "near Louis"), wider than the kind cues'.
_PLACE_PREPOSITION = re.compile(
    r"\b(?:in|at|on|near|into|onto|across|around|inside|outside|towards?|throughout)\s+$",
    re.IGNORECASE,
)


def _after_a_preposition(text: str, mention: Mention) -> bool:
    return _PLACE_PREPOSITION.search(text, max(0, mention.start - 12), mention.start) is not None


def _placed_mentions(text: str, group: _Group) -> int:
    """How many mentions of the group the words around make a place ("in Regina")."""
    return sum(1 for m in group.mentions if kind_cues(text, m.start, m.end).get(PLACE))


def _placed(text: str, group: _Group) -> bool:
    return _placed_mentions(text, group) > 0


def _ends_like_a_persons_name(key: str, kb: KnowledgeBase) -> bool:
    """Whether a name key's last word is a first name or a known person's surname ("thomas")."""
    last = key.split()[-1]
    return kb.is_given_name(last) or bool(kb.lookup_surname(last))


def _first_name_key(key: str) -> str:
    """The first word of a name key that is no initial ("mark" of "w mark felt")."""
    words = key.split()
    return next((w for w in words if not is_initial(w)), words[0])


def _abbreviates(acronym: str, name: str) -> bool:
    """ "ecb" for "European Central Bank", "fbi" for "Federal Bureau of Investigation"."""
    words = [w for w in re.split(r"[\s-]+", name) if w]
    every = "".join(w[0] for w in words).lower()
    capitals = "".join(w[0] for w in words if w.lower() not in _CONNECTING).lower()
    return acronym in (every, capitals)


def _has_person_label(group: _Group) -> bool:
    return any(m.label == "PERSON" for m in group.mentions)


def _as_person(mention: Mention) -> Mention:
    return Mention(mention.text, "PERSON", mention.start, mention.end)


def _is_demonym(group: _Group) -> bool:
    return all(m.label == "NORP" for m in group.mentions)


def _main_label(group: _Group) -> str:
    """The recogniser's most frequent label for the group's mentions."""
    return Counter(m.label for m in group.mentions).most_common(1)[0][0]


def _is_person(group: _Group) -> bool:
    return _main_label(group) == "PERSON"


def _half_decided(kinds: dict[str, float], kind: str) -> dict[str, float]:
    """The kind distribution with half its weight moved to ``kind``."""
    return {k: 0.5 * v + (0.5 if k == kind else 0.0) for k, v in kinds.items()}


def _starts_like_a_place(name: str) -> bool:
    """A name of several words whose first says it is a place ("Mt Cook", "Stade de Suisse")
    and whose last does not say otherwise."""
    words = name.lower().split()
    return (
        len(words) > 1 and words[0] in _PLACE_STARTS and words[-1].strip(".") not in _NAMING_WORDS
    )


def _kind_distribution(
    doc: _Document,
    group: _Group,
    neighbours: dict[int, tuple[Mention | None, Mention | None]],
    kb: KnowledgeBase,
) -> dict[str, float]:
    text = doc.text
    named_place = _starts_like_a_place(group.name)
    # In a sports report, "the Jays", "the top-ranked Tar Heels": a plural name after "the" is
    # a team.
    team_name = (
        doc.sports and group.name.endswith("s") and not group.name.endswith(("ss", "'s", "’s"))
    )
    label_votes: dict[str, float] = defaultdict(float)
    cue_votes: dict[str, float] = defaultdict(float)
    # "Mo Cheeks" where the item calls "Cheeks" a person: the full name of a person.
    words = group.name.split()
    family_name = (
        2 <= len(words) <= 3
        and alias_key(words[-1]) in doc.lone_people
        and not named_place
        and not (team_name and any(_after_the(text, m) for m in group.mentions))
        and all(w[:1].isupper() for w in words)
        and words[-1].lower() not in _NAMING_WORDS
    )
    # The small model's usual slip: a person's name ("Olaf Scholz") called an organisation.
    given_name = _has_given_name(group.name, kb)
    person_shaped = given_name and not any(m.label in _PLACE_LABELS for m in group.mentions)
    for mention in group.mentions:
        cues = kind_cues(text, mention.start, mention.end)
        # (unless the words around it agree with the recogniser: "Abu Sayyaf militants"), or a
        # place where the words around it say person outright ("in memory of Madeline
        # Kafoury"; a relative named after it is not enough: "LaRue of Crystal Springs, Miss.;
        # his brother")
        slip = (person_shaped and mention.label == "ORG" and ORG not in cues) or (
            given_name
            and mention.label in _PLACE_LABELS
            and cues.get(PERSON, 0.0) >= 1.0
            and PLACE not in cues
        )
        label = "PERSON" if slip else mention.label
        if team_name and _after_the(text, mention):
            label = "ORG"
        for kind, p in LABEL_GROUPS.get(label, {}).items():
            label_votes[kind] += p
        for kind, vote in cues.items():
            cue_votes[kind] += vote
        if named_place:
            cue_votes[PLACE] += 1.0
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


_AFTER_THE = re.compile(r"\b[Tt]he\s+(?:[\w-]+\s+)?$")


def _after_the(text: str, mention: Mention) -> bool:
    """Whether "the" (and maybe one word) comes right before the mention ("the Jays")."""
    return _AFTER_THE.search(text, max(0, mention.start - 30), mention.start) is not None


# A surname more people share than this is too common to pick one of them by fame.
_MAX_NAMESAKES = 50
_PLACE_LABELS = frozenset({"GPE", "LOC", "FAC"})
_COORDINATION = frozenset({"and", ",", "or", ", and", ", or", "&"})


def _has_given_name(name: str, kb: KnowledgeBase) -> bool:
    """Two or three capitalised words starting with a known first name ("Olaf Scholz"), the
    last not a word organisations and places are named with ("Christine Hospital")."""
    words = _clean_surface(name).split()
    if not 2 <= len(words) <= 3 or not all(w[:1].isupper() for w in words):
        return False
    last = words[-1].lower().strip(".")
    if not kb.is_given_name(fold(words[0])) or last in _NAMING_WORDS or last in _HONOUR_ENDINGS:
        return False
    # "Red Sox": a name the knowledge base knows as something else only is not a person's.
    known = kb.lookup(alias_key(_clean_surface(name)))
    return not known or any(r.entity_kind == "person" for r in known)


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


def _neighbours(mentions: Sequence[Mention]) -> dict[int, tuple[Mention | None, Mention | None]]:
    ordered = sorted(mentions, key=lambda m: m.start)
    out: dict[int, tuple[Mention | None, Mention | None]] = {}
    for i, mention in enumerate(ordered):
        before = ordered[i - 1] if i > 0 else None
        after = ordered[i + 1] if i + 1 < len(ordered) else None
        out[mention.start] = (before, after)
    return out


def _used_as_a_word(doc: _Document, surfaces: Iterable[str]) -> bool:
    """Whether the text also writes one of these capitalised words in lower case ("apple")."""
    return any(
        surface != surface.lower()
        and bool(word_positions(doc.text, fold(surface), not_after=".", plural=True))
        for surface in surfaces
    )


def _terms_beside(doc: _Document, group: _Group) -> frozenset[str]:
    """The item's content words other than those of the group's own names."""
    own = {term for surface in group.surfaces for term in content_terms(surface)}
    return frozenset(doc.terms - own)


def _needs_context(doc: _Document, group: _Group) -> bool:
    """A one-word name that is also a common word here, or only ever opens a sentence (and
    the words after it do not say what it names: "Houthi militants seize ...")."""
    surfaces = [s for s in group.surfaces if len(s.split()) == 1]
    if not surfaces or len(group.surfaces) > len(surfaces):
        return False
    if _used_as_a_word(doc, surfaces):
        return True
    if any(s.isupper() for s in surfaces):
        return False  # acronyms are names
    kind = _label_group(_main_label(group))
    opening = [
        m.start < doc.title_cased_end  # a title-cased headline's capitals prove nothing
        or (
            (m.start in doc.sentence_starts or m.start == 0)
            and not (kind and said_to_be(doc.text, m.start, m.end, kind))
        )
        for m in group.mentions
    ]
    return all(opening)


def _label_group(label: str) -> str | None:
    """The kind group a recogniser's label stands for, if it is one of them."""
    groups = LABEL_GROUPS.get(label)
    return max(groups, key=lambda g: groups[g]) if groups else None


# Titles the recogniser often keeps in a person's name ("Coroner Gary Hargrove").
# Capitalised tokens the recogniser calls organisations that name nothing: time zones,
# abbreviations of common words, and sports reports' abbreviations (touchdown, injured
# reserve, knockout, most valuable player, quarterback, runs batted in, earned run average).
_STORM_WORDS = wordlists.sequence("storm_words")
_NOT_NAMES = (
    wordlists.words("not_names")
    # a storm's word without its name ("caused by Tropical Storm…" in a cut headline)
    | {alias_key(word) for word in _STORM_WORDS}
    | wordlists.words("common_abbreviations")
    # "Injured Reserve"; a web page's time stamps kept with its text ("First Posted: 10/25/11")
    | wordlists.words("not_name_phrases")
)
# Offices, not organisations, though the recogniser calls them so ("the U.S. Surgeon General").
_POSITION = re.compile(
    r"^(?:(?:us|u s|uk|u k|united states|united kingdom|state|deputy|assistant|acting)\s+)*"
    r"(?:" + "|".join(wordlists.sequence("general_offices")) + r") general$"
    # and an office named by where it serves ("Fire Marshal", "L.A. County Sheriff", "U.S.
    # Marshal")
    r"|^(?:[\w]+\s+){0,3}(?:" + "|".join(wordlists.sequence("local_offices")) + r")$"
    # and the Pope's ambassador ("the Apostolic Nuncio to the United States")
    r"|^(?:apostolic|papal)\s+nuncio$"
)
# Titles written before a surname ("Deputy Ortiz") and those that go with a given name as well
# ("Pope Francis", "King Salman", "Sheikh Hasina").
_SURNAME_TITLES = wordlists.words("surname_titles")
_TITLES = _SURNAME_TITLES | wordlists.words("given_name_titles")
# What may follow a surname in a person's full name ("Arcade Joseph Comeaux Jr").
_GENERATIONS = wordlists.words("generations")
# Letters written after a person's name: honours, degrees, a barrister's rank ("Anthony Russell
# QC", "Regina Benjamin MD").
_POST_NOMINALS = wordlists.words("post_nominals")
# How ships' names start (Indian, US, British and Commonwealth navies' and merchant ships').
_VESSEL_PREFIXES = wordlists.words("vessel_prefixes")
_OPENING_QUOTES = "\"'“‘"
_CLOSING_QUOTES = "\"'”’"


def _ship(text: str, group: _Group) -> bool:
    """Whether most of a group's mentions follow a ship's prefix ("INS Sukanya" where the
    recogniser saw only "Sukanya")."""
    ships = 0
    for mention in group.mentions:
        before = text[max(0, mention.start - 7) : mention.start].split()
        ships += bool(before) and before[-1] in _VESSEL_PREFIXES
    return ships * 2 > len(group.mentions)


def _quoted(text: str, group: _Group) -> bool:
    """Whether most of a group's mentions stand in quotation marks: a title ("'Catching
    Fire'", "the "Deep Throat" source"), not the name of a person, place or organisation; also
    as the end of a longer title ("Take Me Out to the Ball Game")."""
    quoted = 0
    for mention in group.mentions:
        before = text[max(0, mention.start - 3) : mention.start].rstrip()
        after = text[mention.end : mention.end + 4].lstrip(" ,.")
        if after[:1] not in _CLOSING_QUOTES:
            continue
        # an opening quotation mark, not a possessive's apostrophe ("ABC News' Peter Jennings")
        opening = bool(before) and before[-1] in _OPENING_QUOTES and not before[-2:-1].isalnum()
        if opening or _ends_a_quoted_title(text, mention):
            quoted += 1
    return quoted * 2 > len(group.mentions)


def _ends_a_quoted_title(text: str, mention: Mention) -> bool:
    """Whether the words from an opening quotation mark to the mention read as a title's: two
    to eight, each capitalised or a small word ("“Take Me Out to the Ball Game”"; not "“We
    met Barack Obama”")."""
    before = text[max(0, mention.start - 60) : mention.start]
    at = max(before.rfind(quote) for quote in _OPENING_QUOTES)
    if at == -1 or "\n" in before[at:]:
        return False
    words = before[at + 1 :].split()
    return 2 <= len(words) <= 8 and all(w[:1].isupper() or w in _TITLE_CASE_LOWER for w in words)


# Words that say the name beside them is a work's title: "the 1999 movie American Pie", "the
# Hunger Games sequel", "the novel Mockingjay".
_WORK_NOUNS = "|".join(wordlists.sequence("work_nouns"))
_WORK_BEFORE = re.compile(rf"\b(?:{_WORK_NOUNS})[ ,]+$", re.I)
_WORK_AFTER = re.compile(rf"^(?: ?[\"”])? (?:{_WORK_NOUNS})\b", re.I)


def _a_work(text: str, group: _Group) -> bool:
    """Whether a mention of the group is called a work by the word before or after it, for a
    name the recogniser did not call a person ("the Gary Ross film" is his)."""
    if _is_person(group):
        return False
    for mention in group.mentions:
        before = text[max(0, mention.start - 30) : mention.start]
        after = text[mention.end : mention.end + 20]
        if _WORK_BEFORE.search(before) or _WORK_AFTER.match(after):
            return True
    return False


def _lone_person(
    doc: _Document, group: _Group, kinds: dict[str, float], kb: KnowledgeBase
) -> tuple[str, float] | None:
    """The one word a person is named by, and the confidence, when the item names someone by
    that word only: the recogniser calls most of its mentions a person, the kinds agree, and
    the words around a mention say so too ("my wife Portia", "Heller argued", "Mr Lyons")."""
    person = kinds.get(PERSON, 0.0)
    labels = [m.label == "PERSON" for m in group.mentions]
    if person < 0.5 or 2 * sum(labels) <= len(labels) or _used_as_a_word(doc, group.surfaces):
        return None
    words = _clean_surface(group.name).split()
    titled = _titled_surname(words)
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
        or key in _NOT_NAMES
        or key in _TITLES
        or (kb.is_known_name(key) and not _known_only_as_places_elsewhere(doc, group, key, kb))
        or kb.lookup_demonym(key)
        or kb.lookup_demonym(key.removesuffix("s"))  # "Greeks"
        or any(key in g.split() for g in doc.keys if " " in g and g != group.key)
    ):
        return None  # a word of a name the item writes in full ("Kimani" of "Kimani Gray")
    if _only_in_headline(doc, group):
        return None  # capitalisation proves nothing in a title-cased headline
    if all(_part_of_a_name(doc.text, m) for m in group.mentions):
        return None
    if not titled and not any(person_cue(doc.text, m.start, m.end) for m in group.mentions):
        return None
    confidence = round(min(1.0, person * _mention_weight(len(group.mentions)) + 0.1), 3)
    return name, confidence


def _titled_surname(words: Sequence[str]) -> bool:
    """Whether two words are a title or a role written before a surname ("Deputy Ortiz",
    "Producer Moffat"): one word names the person."""
    return len(words) == 2 and (
        words[0].lower().strip(".") in _SURNAME_TITLES or words[0].lower() in _ROLES
    )


def _known_only_as_places_elsewhere(
    doc: _Document, group: _Group, key: str, kb: KnowledgeBase
) -> bool:
    """Whether the knowledge base knows a word only as places the item neither writes as a place
    nor puts it near: it names none of their regions, or countries where they have none
    ("Jackson" of "said Jackson" in a story from San Diego; not "Gotcher of McAlester argued"
    beside Oklahoma, nor "in Jackson")."""
    records = kb.lookup(key)
    return (
        bool(records)
        and all(r.entity_kind == "place" and not _near(doc, r, kb) for r in records)
        and _placed_mentions(doc.text, group) == 0
    )


def _near(doc: _Document, place: EntityRecord, kb: KnowledgeBase) -> bool:
    """Whether the item names the region a place lies in, or its country when it has none."""
    region = place.first_tag("region")
    if region is not None:
        return alias_key(region) in doc.keys
    country = kb.country_of(place)
    return country is not None and _names(doc, country)


def _of_at(words: Sequence[str]) -> int:
    """Where "of" joins a name's head to what it is of ("School" of "Morehouse School of
    Medicine"), or the name's length."""
    return next((i for i, w in enumerate(words) if w == "of" and i > 0), len(words))


def _head_word(name: str) -> str:
    """The word that says what a name names, lower case: its last, or the last before "of"
    ("Medical Association of the State of Alabama", "Department of Health and Human
    Services")."""
    words = name.split()
    return words[_of_at(words) - 1].lower().strip(".")


def _only_in_headline(doc: _Document, group: _Group) -> bool:
    """Whether every mention of the group is in a title-cased headline."""
    return all(m.start < doc.title_cased_end for m in group.mentions)


def _mention_weight(count: int) -> float:
    """How much a new name's mentions count toward its confidence: 0.55 for one, 1.0 from
    three on."""
    return 0.55 + 0.45 * min(1.0, count / 3)


# A word abbreviated before a name ("Det. Colin Orpe", "Dist. Atty. Steve Cooley"), a tag
# ("#DrWho", "@TheAcademy"), or an owner's name in a business's ("Hardester's Market").
_ABBREVIATION_AFTER = re.compile(r"^\.\s+[A-Z]")
_OWNER_OF_A_NAME = re.compile(r"^['’]s\s+[A-Z]")


def _part_of_a_name(text: str, mention: Mention) -> bool:
    after = text[mention.end : mention.end + 4]
    if text[max(0, mention.start - 1) : mention.start] in ("#", "@"):
        return True
    owner = mention.text.endswith(("'s", "’s")) and after[:1].isspace() and after[1:2].isupper()
    if owner or _OWNER_OF_A_NAME.match(after):
        return True
    return len(mention.text) <= 4 and bool(_ABBREVIATION_AFTER.match(after))


def _without_title(name: str) -> str:
    words = name.split()
    if len(words) >= 3 and words[0].lower().strip(".") in _TITLES:
        return " ".join(words[1:])
    return name


# Words a title-cased headline leaves in lower case ("Man Charged in Fire at Church").
_TITLE_CASE_LOWER = wordlists.words("title_case_lower")


def title_cased(title: str) -> bool:
    """Whether a title capitalises every word but the small ones ("Lohan Checks Into Rehab"),
    rather than only its names, as a sentence does ("Lohan checks into rehab in Malibu")."""
    words = [w for w in re.findall(r"[\w'’-]+", title)[1:] if w[0].isalpha() and len(w) > 1]
    return not any(w.islower() and w not in _TITLE_CASE_LOWER for w in words)


def _looks_like_a_name(name: str) -> bool:
    """Capitalised words but for connecting ones, five at most; eight when a word saying what
    is named comes before "of" ("Medical Association of the State of Alabama"; not "Union of
    Concerned Scientists' Scientific Integrity Program", two names)."""
    words = name.split()
    longest = 5
    if (
        _of_at(words) < len(words)
        and _head_word(name) in _NAMING_WORDS
        and not any(_POSSESSIVE.search(w) for w in words[:-1])
    ):
        longest = 8
    if not 1 <= len(words) <= longest or len(name) < 2 or len(name) > 80 or "," in name:
        return False
    if words[-1].lower() in _CONNECTING:
        return False  # a name cut short ("National Player of")
    if not any(ch.isalpha() for ch in name):
        return False
    return all(
        w[0].isupper() or w[0].isdigit() or w.lower() in _CONNECTING or _particle(w) for w in words
    )


def _particle(word: str) -> bool:
    """Whether a lower-case word belongs in a person's name: "van", "da", and one joined to the
    name by a hyphen or an apostrophe ("el-Sisi", "d'Estaing")."""
    return re.split(r"[-'’]", word, maxsplit=1)[0] in _NAME_PARTICLES


def _entity_kind(group: str, name: str) -> EntityKind:
    if _STORM.match(name):
        return "event"  # the recogniser calls storms organisations or people
    words = {w.strip(".,").lower() for w in name.split()}
    if (_YEAR_FIRST.match(name) and not words & _COMPANY_WORDS) or _edition(name) is not None:
        return "event"  # "2013 Academy Awards", "2014 World Cup", "the 81st Academy Awards"
    if group == ORG:
        last = name.split()[-1].strip(".,").lower() if name.split() else ""
        return "company" if words & _COMPANY_WORDS or last in _FIRM_ENDINGS else "organization"
    if group == PERSON:
        return "person"
    if group == "product":
        return "product"
    if group == "event":
        return "event"
    return "place"


def _discovered(group: _Group, group_kind: str, name: str) -> EntityRecord:
    """A new entity of the kind group ``group_kind`` named ``name``."""
    kind = _entity_kind(group_kind, name)
    return EntityRecord(
        id=entity_id_for(kind, name, f"discovered:{kind}:{alias_key(name)}"),
        display_name=name,
        entity_kind=kind,
        aliases=_national_aliases(name) if kind in _ORG_KINDS else _nicknamed(group, name),
        origin="discovered",
    )


def _storm_named_in_full(text: str, group: _Group, name: str) -> str:
    """ "Storm Fred" with the "Tropical" the recogniser left out before it (a sentence's first
    word): "Tropical Storm Fred", a storm, not a person called Storm."""
    if not _STORM_CUT.match(name):
        return name
    for mention in group.mentions:
        before = _TROPICAL_BEFORE.search(text, max(0, mention.start - 16), mention.start)
        if before is not None:
            return f"{before.group(1).capitalize()} {name}"
    return name


_NON_SPACE = re.compile(r"\S+")
_STORM_CUT = re.compile(r"^(?:storm|depression)\s", re.I)
_TROPICAL_BEFORE = re.compile(r"\b((?:sub|post-)?tropical)\s+$", re.I)
_STORM = re.compile(r"^(?:" + "|".join(re.escape(w) for w in _STORM_WORDS) + r")\s", re.I)
_YEAR_FIRST = re.compile(r"^(?:1[89]|20)\d\d\s+[A-Z]")
# How the names of recurring events end (by name key).
_EVENT_ENDINGS = wordlists.words("event_endings")
# An edition of a recurring event: an ordinal, then a name ending as such events' names do.
_EDITION = re.compile(
    r"^\d{1,3}(?:st|nd|rd|th)\s+(?:[Aa]nnual\s+)?((?:[A-Z][\w.&'-]*\s+)*(?:Awards|Games|"
    r"Olympics|Festival|Championships?|Ceremony|Summit|Convention|Oscars|Emmys|Grammys))$"
)


def _edition(name: str) -> str | None:
    """The recurring event a name is an edition of ("Academy Awards" of "79th Academy
    Awards"), or None; ordinal names of other things ("101st Airborne Division", "117th
    Street") are not editions."""
    found = _EDITION.match(name)
    return found.group(1) if found else None


# How a country is written before an organisation's name (by name key: "U.S.", "U.S" and
# "US" are one), and its name in full.
_NATIONAL_PREFIXES = wordlists.mapping("national_prefixes")


# A nickname of one word: "Yogi" of "Lawrence Peter "Yogi" Berra".
_ONE_WORD = re.compile(r"[A-Z][\w.-]*")


def _nicknamed(group: _Group, name: str) -> tuple[str, ...]:
    """A person's name as the nickname and the surname (``name``'s last word), when a mention
    writes a one-word nickname in quotation marks inside the full name: "Yogi Berra" of
    "Lawrence Peter "Yogi" Berra", the name people know him by."""
    for mention in group.mentions:
        found = _NICKNAME.search(mention.text)
        if found is None or found.group()[1] not in _OPENING_QUOTES:
            continue  # none, or one in brackets
        nickname = found.group()[2:-2]
        if _ONE_WORD.fullmatch(nickname):
            return (f"{nickname} {name.split()[-1]}",)
    return ()


def _national_aliases(name: str) -> tuple[str, ...]:
    """Other names of a discovered organisation named with its country's abbreviation: "U.S.
    Environmental Protection Agency" is also the "United States Environmental Protection
    Agency" and, with three words or more left, the "Environmental Protection Agency"."""
    first, _, rest = name.partition(" ")
    full = _NATIONAL_PREFIXES.get(alias_key(first))
    if full is None or not rest:
        return ()
    aliases = [f"{full} {rest}"]
    if len(rest.split()) >= 3:
        aliases.append(rest)
    return tuple(aliases)


def _split_glued(text: str, mentions: Sequence[Mention], kb: KnowledgeBase) -> list[Mention]:
    """Mentions where the recogniser glued a name to the person after it as two: a well-known
    place ("Governor of Wisconsin Scott Walker" read as the organisation "Wisconsin Scott
    Walker"), what an office is of ("Secretary of the Interior Ken Salazar" read as "the
    Interior Ken Salazar"), or an organisation and the person its title introduces ("Carolina
    Panthers QB Cam Newton"). A person's name, and a name the knowledge base knows as a whole
    ("San Diego Padres'", a team), are left whole."""
    out: list[Mention] = []
    for mention in mentions:
        words = [(w.start(), w.end()) for w in _NON_SPACE.finditer(mention.text)]
        if mention.label == "PERSON" and len(words) >= 3:
            out.extend(_split_team_member(mention, words, kb) or [mention])
            continue
        if (
            mention.label in ("PERSON", "NORP")
            or len(words) < 3
            or kb.is_known_name(_surface_key(mention.text))
        ):
            out.append(mention)
            continue
        office = _OFFICE_OF.search(text, max(0, mention.start - 40), mention.start) is not None
        out.extend(
            _split_at_title(mention, words, kb)
            or _split_after_place(mention, words, kb, office)
            or [mention]
        )
    return out


# What a name right after it is part of an office's name with ("Secretary of State John Kerry";
# narrower than _OFFICE_OF below: "the governor of Hormozgan Province" still names a place).
_SECRETARY_OF = re.compile(
    r"\b(?:" + "|".join(wordlists.sequence("secretaries_of")) + r") of\s+$", re.IGNORECASE
)
# An office written before what it is of ("Secretary of the", "Minister of").
_OFFICE_OF = re.compile(
    r"\b(?:" + "|".join(wordlists.sequence("offices_of")) + r")\s+of"
    r"(?:\s+the)?\s+$",
    re.IGNORECASE,
)


def _split_after_place(
    mention: Mention, words: list[tuple[int, int]], kb: KnowledgeBase, office: bool = False
) -> list[Mention]:
    """A well-known place of one or two words, or after an office what it is of (``office``),
    then a person (a known first name and one or two more words)."""
    if len(words) > 5:
        return []
    if office and mention.text.lower().startswith("the "):
        words = words[1:]  # "the Interior Ken Salazar"
    for n in (1, 2):
        if n >= len(words):
            break
        place = mention.text[words[0][0] : words[n - 1][1]]
        if not 2 <= len(words) - n <= 3 or not _has_given_name(mention.text[words[n][0] :], kb):
            continue
        longer = alias_key(mention.text[: words[n][1]])
        if any(r.entity_kind == "place" for r in kb.lookup(longer)):
            continue  # "the San Diego Union-Tribune": the place goes on ("San Diego")
        if office:  # what the office is of, a department or a place
            return _then_a_person(mention, words[n - 1][1], words[n][0], "ORG")
        if any(
            r.entity_kind == "place" and kb.prior(r.id) >= 0.5 for r in kb.lookup(alias_key(place))
        ):
            return _then_a_person(mention, words[n - 1][1], words[n][0], "GPE")
    return []


def _split_at_title(
    mention: Mention, words: list[tuple[int, int]], kb: KnowledgeBase
) -> list[Mention]:
    """An organisation, then a title and the person it introduces ("ABC Entertainment Group
    president Paul Lee"); the title is dropped."""
    for i in range(1, len(words) - 2):
        title = mention.text[words[i][0] : words[i][1]].lower().strip(".")
        if title in _TITLES and _has_given_name(mention.text[words[i + 1][0] :], kb):
            return _then_a_person(mention, words[i - 1][1], words[i + 1][0], mention.label)
    return []


def _split_team_member(
    mention: Mention, words: list[tuple[int, int]], kb: KnowledgeBase
) -> list[Mention]:
    """A person's name after a team's, maybe with a title between ("Colts QB Andrew Luck",
    "former Razorback Peyton Hillis", a team's player called by its name in the singular):
    the team and the person. The team's word is no first name ("Chelsea Victoria Clinton"
    stays whole), and the knowledge base knows it (or its plural) as teams only."""
    head = mention.text[: words[0][1]]
    titled = mention.text[words[1][0] : words[1][1]].lower().strip(".") in _TITLES
    at = 2 if titled else 1
    if (
        len(words) - at not in (2, 3)
        or kb.is_given_name(fold(head))
        or kb.is_known_name(_surface_key(mention.text))
        or not _has_given_name(mention.text[words[at][0] :], kb)
    ):
        return []
    key = alias_key(head)
    known = kb.lookup(key) or kb.lookup(f"{key}s")
    if not known or any(r.entity_kind not in _ORG_KINDS or not r.first_tag("home") for r in known):
        return []  # not only teams (a team's record says where it is at home)
    return _then_a_person(mention, words[0][1], words[at][0], "ORG")


def _then_a_person(mention: Mention, end: int, person_start: int, label: str) -> list[Mention]:
    """The mention as two: its text up to ``end`` labelled ``label``, and from ``person_start``
    a person."""
    head, person = mention.text[:end], mention.text[person_start:]
    at = mention.start + person_start
    return [
        Mention(head, label, mention.start, mention.start + len(head)),
        Mention(person, "PERSON", at, at + len(person)),
    ]


def _headline_names(
    mentions: Sequence[Mention], kb: KnowledgeBase, title_cased_end: int
) -> list[Mention]:
    """Names in a title-cased headline cut from the words the recogniser ran them into
    ("Lindsay Lohan Checks Into Rehab" is Lindsay Lohan, "Obama Reverses Bush" Obama): the
    longest first words that the knowledge base knows or the item names elsewhere, else the
    longest last words ("Flips Bush" is Bush)."""
    named: set[str] | None = None  # the names of the body, read when a headline needs them
    out: list[Mention] = []
    for mention in mentions:
        words = list(_NON_SPACE.finditer(mention.text)) if mention.end <= title_cased_end else []
        if len(words) >= 2:
            if named is None:
                named = {_surface_key(m.text) for m in mentions if m.start >= title_cased_end}
            # the whole name (kept), its first words, longest first, then its last words
            heads = [(0, words[n - 1].end()) for n in range(len(words), 0, -1)]
            tails = [(words[n].start(), len(mention.text)) for n in range(1, len(words))]
            for start, end in heads + tails:
                key = _surface_key(mention.text[start:end])
                if key in named or kb.is_known_name(key):
                    at = mention.start + start
                    mention = Mention(mention.text[start:end], mention.label, at, at + end - start)
                    break
        out.append(mention)
    return out


_DATE_WORDS = wordlists.words("date_words")
# Where a name cannot go on: a blank line, a line break after a sentence's end, a colon.
_BREAK = re.compile(r"\n\s*\n|(?<=[.!?])[ \t]*\n\s*|(?<=\w):\s+")


def _within_paragraphs(mentions: Sequence[Mention]) -> list[Mention]:
    """Mentions cut at blank lines and at line breaks after a sentence's end: no name runs
    from a title into the text below it ("Jags", a blank line, "Quarterback Peyton Manning"
    read as one organisation) or from one sentence into the next ("Old Tappan, N.J.", a line
    break, "He"); a name wrapped onto the next line stays whole. A headline's colon ends a name
    ("Bettie Page: Life in Pictures"), and a comma or semicolon the recogniser kept at a span's
    end is cut too ("Schenectady," before "New York")."""
    out: list[Mention] = []
    for mention in mentions:
        breaks = [i for b in _BREAK.finditer(mention.text) for i in b.span()]
        if not breaks and not mention.text.endswith((",", ";", " ")):
            out.append(mention)
            continue
        bounds = [0, *breaks, len(mention.text)]
        for begin, end in zip(bounds[::2], bounds[1::2], strict=True):
            piece = mention.text[begin:end]
            part = piece.strip().rstrip(",;").rstrip()
            # a date line caught with a name ("Sep 10", "Sat Nov 12 2011", "Tue Jul") is left
            # out, and so is a common word opening the next sentence ("He")
            words = [w.strip(".,").lower() for w in part.split()]
            dated = all(w.isdigit() or w in _DATE_WORDS for w in words)
            if any(ch.isalpha() for ch in part) and not dated and part.lower() not in stop_words():
                at = mention.start + begin + piece.index(part)
                out.append(Mention(part, mention.label, at, at + len(part)))
    return out


# Capitalised words and "and" before a name, or after it ("Fish and" of "Fish and Wildlife
# Service", "and Rescue" of "Surrey Fire and Rescue").
_CAPITALS_AND = re.compile(r"(?<![\w'’-])((?:[A-Z][\w'’-]* ){1,3})and $")
_AND_CAPITALS = re.compile(r" and ((?:[A-Z][\w'’-]*)(?: [A-Z][\w'’-]*){0,2})\b")  # .match


def _joined_across_and(text: str, mentions: Sequence[Mention]) -> list[Mention]:
    """Names the recogniser cut at an "and": "Wildlife Service" of "the Fish and Wildlife
    Service", "Surrey Fire" (and "Rescue") of "Surrey Fire and Rescue". The words on the other
    side join the name when they are capitalised, hold no other name (a lone "Rescue" the whole
    takes in), and the whole ends with a word organisations and places are named with;
    whatever the label, the whole is then an organisation's or a place's name."""
    joined: dict[int, Mention] = {}
    taken: set[int] = set()  # mentions a joined name took in
    for n, mention in enumerate(mentions):
        if n in taken:
            continue
        start, end, label = mention.start, mention.end, mention.label
        before = _CAPITALS_AND.search(text, max(0, start - 60), start)
        if before is not None and mention.text.split()[-1].lower() in _NAMING_WORDS:
            inside = _within(mentions, n, before.start(1), start)
            if inside is not None:
                start, taken = before.start(1), taken | inside
        after = _AND_CAPITALS.match(text, end)
        if after is not None and after.group(1).split()[-1].lower() in _NAMING_WORDS:
            inside = _within(mentions, n, end, after.end())
            if inside is not None:
                end, taken = after.end(), taken | inside
                # the name's last words, and so its kind, are the other side's ("Rescue")
                label = next((mentions[i].label for i in inside if mentions[i].end == end), "ORG")
        if (start, end) != (mention.start, mention.end):
            label = "ORG" if label == "PERSON" else label
            joined[n] = Mention(text[start:end], label, start, end)
    return [joined.get(n, m) for n, m in enumerate(mentions) if n in joined or n not in taken]


# A capitalised first name right before a surname, maybe with a nickname between them, quoted
# or in brackets ("Kimani (Kiki) Gray").
_GIVEN_BEFORE = re.compile(
    r"(?<![\w.'’-])([A-Z][a-z]+) (?:[\"'“‘][^\"'“”‘’\n]{1,30}[\"'”’] |\([A-Z][^()\n]{0,29}\) )?$"
)


def _with_given_names(text: str, mentions: Sequence[Mention], kb: KnowledgeBase) -> list[Mention]:
    """A surname the recogniser called a person without the first name written right before
    it takes the first name back ("Vincent 'The Chin' Gigante", where it saw "Gigante" and
    "Vincent '"): a known first name, capitalised, no title ("Governor Palin"), and no part of
    another mention but a person's it then absorbs. So does a word the recogniser called
    something else when neither it, the first name nor the two together name anything the
    knowledge base knows ("Italian Flavia Pennetta", where it saw the place "Pennetta"); the
    name is then a person's."""
    out = list(mentions)
    absorbed: set[int] = set()
    for i, mention in enumerate(out):
        if len(mention.text.split()) != 1:
            continue
        if mention.label != "PERSON" and (
            not mention.text.isalpha() or kb.is_known_name(alias_key(mention.text))
        ):
            continue
        before = _GIVEN_BEFORE.search(text, max(0, mention.start - 50), mention.start)
        if before is None:
            continue
        given, start = before.group(1), before.start(1)
        if (
            given.lower() in stop_words()
            or given.lower() in _TITLES
            or not kb.is_given_name(fold(given))
        ):
            continue
        inside = _people_within(out, i, start, mention.start)
        if inside is None:
            continue
        whole = text[start : mention.end]
        if mention.label != "PERSON" and (
            inside or kb.is_known_name(alias_key(given)) or kb.is_known_name(_surface_key(whole))
        ):
            continue
        absorbed.update(inside)
        out[i] = Mention(whole, "PERSON", start, mention.end)
    return [m for j, m in enumerate(out) if j not in absorbed]


def _people_within(mentions: Sequence[Mention], n: int, start: int, end: int) -> list[int] | None:
    """The other mentions in ``start:end``, the words mention ``n`` grows by, when each is a
    person's lying wholly inside; None when one is of another kind or runs out of it."""
    inside = [j for j, m in enumerate(mentions) if j != n and m.start < end and m.end > start]
    if any(
        mentions[j].label != "PERSON" or mentions[j].start < start or mentions[j].end > end
        for j in inside
    ):
        return None
    return inside


# A nickname, quoted or in brackets, then a capitalised word: "Kimani (Kiki) Gray".
_NICKNAME_THEN_SURNAME = re.compile(
    r" (?:[\"'“‘][^\"'“”‘’\n]{1,30}[\"'”’]|\([A-Z][^()\n]{0,29}\)) ([A-Z][\w'’-]*[a-z])\b"
)


def _with_surnames_after_nicknames(text: str, mentions: Sequence[Mention]) -> list[Mention]:
    """A first name (or first names) the recogniser called a person takes the surname written
    after a nickname ("Kimani 'Kiki' Gray", where it saw only "Kimani"; "Lawrence Peter "Yogi"
    Berra", where it saw "Lawrence Peter" and "Yogi" Berra"): a nickname between two names says
    a person is named. A surname the recogniser called a person too is absorbed; one it called
    something else stays apart."""
    out = list(mentions)
    absorbed: set[int] = set()
    for i, mention in enumerate(out):
        words = mention.text.split()
        if mention.label != "PERSON" or not 1 <= len(words) <= 3:
            continue
        if not all(w[:1].isupper() for w in words):
            continue
        after = _NICKNAME_THEN_SURNAME.match(text, mention.end)
        if after is None:
            continue
        end = after.end(1)
        inside = _people_within(out, i, mention.end, end)
        if inside is None:
            continue
        absorbed.update(inside)
        out[i] = Mention(text[mention.start : end], "PERSON", mention.start, end)
    return [m for j, m in enumerate(out) if j not in absorbed]


def _joined_split_names(text: str, mentions: Sequence[Mention], kb: KnowledgeBase) -> list[Mention]:
    """Two mentions one space apart that the recogniser split are one nationality when the
    knowledge base knows the whole as one ("American" and "Samoan"); two one-word mentions
    ("Piara" and "Singh", each called a place) are one person's name when the first is no name
    the knowledge base knows, both are written as names, and the second ends as people's names
    do (a first name or a known person's surname)."""
    out: list[Mention] = []
    for mention in mentions:
        previous = out[-1] if out else None
        if (
            previous is not None
            and previous.end + 1 == mention.start
            and text[previous.end] == " "
            and kb.lookup_demonym(alias_key(text[previous.start : mention.end]))
        ):
            # "American" and "Samoan", one nationality the recogniser split: "American Samoan"
            out[-1] = Mention(
                text[previous.start : mention.end], "NORP", previous.start, mention.end
            )
            continue
        if (
            previous is not None
            and previous.end + 1 == mention.start
            and text[previous.end] == " "
            and all(m.text.isalpha() and m.text.istitle() for m in (previous, mention))
            and not kb.is_known_name(alias_key(previous.text))
            and _ends_like_a_persons_name(alias_key(mention.text), kb)
        ):
            out[-1] = Mention(
                text[previous.start : mention.end], "PERSON", previous.start, mention.end
            )
            continue
        out.append(mention)
    return out


def _within(mentions: Sequence[Mention], n: int, start: int, end: int) -> set[int] | None:
    """The other mentions in ``start:end``, each a lone word names are made with ("Rescue"), or
    None when one is a name of its own ("Evansville" of "Evansville and Indiana State") or
    runs out of it."""
    inside = set()
    for i, m in enumerate(mentions):
        if i == n or m.end <= start or end <= m.start:
            continue
        if not (start <= m.start and m.end <= end) or m.text.lower() not in _NAMING_WORDS:
            return None
        inside.add(i)
    return inside


_PRONOUNS = wordlists.words("pronouns")
# Adjectives written before a known name that are no part of it (unless the whole is known:
# "New York", "New Zealand").
_NEWNESS = wordlists.words("newness")
_ROMAN = re.compile(r"^[IVX]+$")  # "Anthony LaCalamita III"
_SCORE_OR_ORDINAL = re.compile(r"^\d+(?:\s*[-–]\s*\d+|st|nd|rd|th)?[,.;:]?$")
# "U.S.", "U. S.", "U.K.", "US", "UK" after a word of a name (not "U. S. Grant" itself).
_COUNTRY_INSIDE = re.compile(r"(?<=\w)\s+(?:U\.\s?[SK]\.?|US|UK)(?=\s|$)")
# A participle or an adverb made from an adjective opening a sentence ("Having", "Unemployed",
# "Naturally", "Obviously"; not "Gurbanguly").
_PARTICIPLE = re.compile(
    r"^[A-Z](?:[a-z]{2,}ing|[a-z]{3,}ed|[a-z]{2,}(?:al|ful|ous|ive|ent|ant|ate|ing|ed|ib|ab|ar)ly)$"
)
# Ranks written abbreviated after a unit's name, which the recogniser may keep with it.
_RANKS = wordlists.words("ranks")
# What people are, written before their names like a title ("Comedian Ellen DeGeneres").
_ROLES = wordlists.words("roles")


def _without_openers(mentions: Sequence[Mention], kb: KnowledgeBase) -> list[Mention]:
    """Mentions without a word the recogniser kept before a name: an article ("the Jays"); a
    nationality before a person ("the American Hasim Rahman", when "Hasim Rahman" is named here
    too or starts with a known first name); a title or a role before a full name ("Quarterback
    Peyton Manning", "Comedian Ellen DeGeneres"), unless the knowledge base knows the whole
    ("Queen Elizabeth II"); "New", "Latest", "Former" or "Historic" before a name the knowledge
    base knows as no place ("New MacBook Air"; not "New England"); a participle or an adverb
    opening a person's name ("Unemployed John Jenkin", "Joining Cooley", "Naturally Scott
    Boras"; not a known first name such as "Sterling" or "Kelly", nor a word known names start
    with, such as "United") or a name the knowledge base knows ("Considering Lionsgate"). Nor
    letters after a person's name ("Judge Anthony Russell QC" is Anthony Russell), nor a
    country's abbreviation after it ("Regina Benjamin U.S. Surgeon"), nor a rank after a unit's
    ("Philadelphia Homicide Capt." is Philadelphia Homicide)."""
    named: set[str] | None = None  # the names of the item, read when a nationality opens one
    out: list[Mention] = []
    for mention in mentions:
        article = _LEADING.match(mention.text)
        if article is not None:
            at = article.end()
            mention = Mention(mention.text[at:], mention.label, mention.start + at, mention.end)
        words = list(_NON_SPACE.finditer(mention.text))
        pronoun = next((i for i, w in enumerate(words[1:], 1) if w.group() in _PRONOUNS), None)
        if pronoun is not None:
            # A name does not run into the next sentence's pronoun ("Old Tappan, N. J. He").
            mention, words = _first_words(mention, words, pronoun)
        if len(words) < 2:
            out.append(mention)
            continue
        first, cut = words[0].group(), words[1].start()
        rest = mention.text[cut:]
        if len(words) in (3, 4) and kb.lookup_demonym(alias_key(first)):
            if named is None:
                named = {_surface_key(m.text) for m in mentions}
            opener = _surface_key(rest) in named or _has_given_name(rest, kb)
        elif first.lower().strip(".") in _TITLES or first.lower() in _ROLES:
            opener = _has_given_name(rest, kb)
        elif first.lower() in _NEWNESS:
            # "New MacBook Air"; not a place ("New England", which the seed may not know)
            known = kb.lookup(_surface_key(rest))
            opener = bool(known) and all(r.entity_kind != "place" for r in known)
        elif _PARTICIPLE.match(first) is None or kb.starts_a_name(alias_key(first)):
            opener = False
        else:
            # before a person's name, or a name the knowledge base knows ("Considering
            # Lionsgate recently absorbed Summit")
            opener = (
                mention.label == "PERSON" and not kb.is_given_name(fold(first))
            ) or kb.is_known_name(_surface_key(rest))
        if opener and not kb.is_known_name(_surface_key(mention.text)):
            mention = Mention(rest, mention.label, mention.start + cut, mention.end)
            words = list(_NON_SPACE.finditer(mention.text))
        scored = next(
            (i for i, w in enumerate(words[1:], start=1) if _SCORE_OR_ORDINAL.match(w.group())),
            None,
        )
        if mention.label == "PERSON" and scored is not None:
            # Nor into a score, a record or an ordinal ("Joe Louis 26-1" is Joe Louis, "John S.
            # Pritchard 3rd" John S. Pritchard; a model's number stays: "BlackBerry Q10").
            mention, words = _first_words(mention, words, scored)
        if mention.label == "PERSON" and len(words) >= 3:
            # A person's name does not go on in lower case but by a particle ("Chris Ivory on
            # Injured Reserve" is Chris Ivory; "Ludwig van Beethoven", "Abdel Fattah el-Sisi"
            # and "Valéry Giscard d'Estaing" stay whole).
            prose = next(
                (
                    i
                    for i, w in enumerate(words[2:], start=2)
                    if w.group()[:1].islower() and not _particle(w.group())
                ),
                None,
            )
            if prose is not None:
                mention, words = _first_words(mention, words, prose)
        country = _COUNTRY_INSIDE.search(mention.text) if mention.label == "PERSON" else None
        if country is not None:
            # Nor through a country's abbreviation ("Regina Benjamin U.S. Surgeon General").
            before = sum(1 for w in words if w.end() <= country.start())
            mention, words = _first_words(mention, words, before)
        last = words[-1]
        if len(words) >= 3 and (
            (mention.label == "PERSON" and last.group().strip(".,") in _POST_NOMINALS)
            # a rank the recogniser kept after a unit ("Philadelphia Homicide Capt. James
            # Clark")
            or (mention.label != "PERSON" and last.group().strip(".,").lower() in _RANKS)
        ):
            mention, words = _first_words(mention, words, len(words) - 1)
        out.append(mention)
    return out


def _first_words(
    mention: Mention, words: list[re.Match[str]], count: int
) -> tuple[Mention, list[re.Match[str]]]:
    """The mention cut to its first ``count`` words (``words`` are its words), and those."""
    end = words[count - 1].end()
    cut = Mention(mention.text[:end], mention.label, mention.start, mention.start + end)
    return cut, words[:count]


def _measure(
    doc: _Document, resolved: dict[str, tuple[EntityRecord, float, _Group]]
) -> list[LinkedEntity]:
    """Mention counts over the whole text and salience for every linked entity."""
    spans: list[tuple[int, int, bool, str]] = []  # start, end, a surname alone, the entity
    names_of: dict[str, set[str]] = {}
    for entity_id, (record, _, group) in resolved.items():
        names = set(group.surfaces)
        names.update(n for n in (record.display_name, *record.aliases) if len(n) >= 3)
        names_of[entity_id] = names
        for name in names:
            spans.extend(
                (at, at + len(name), False, entity_id) for at in word_positions(doc.text, name)
            )
        spans.extend((m.start, m.end, False, entity_id) for m in group.mentions)
    for word, entity_id in _surnames_to_count(resolved, names_of).items():
        spans.extend(
            (at, at + len(word), True, entity_id)
            for at in word_positions(doc.text, word)
            if _alone(doc.text, at, at + len(word))
        )
    # Longest match wins where names overlap ("Paris" inside "Paris Hilton"); a name the
    # recogniser or the knowledge base gave wins over a surname found alone.
    spans.sort(key=lambda s: (-(s[1] - s[0]), s[0], s[2]))
    taken = bytearray(len(doc.text) + 1)  # 1 where a counted mention is (a C-speed check)
    counts: Counter[str] = Counter()
    first: dict[str, int] = {}
    in_title: set[str] = set()
    alone: dict[str, str] = {}  # the surnames counted alone, by entity
    for start, end, surname, entity_id in spans:
        if taken.find(1, start, end) != -1:
            continue
        taken[start:end] = b"\x01" * (end - start)
        counts[entity_id] += 1
        if surname:
            alone[entity_id] = doc.text[start:end]
        first[entity_id] = min(first.get(entity_id, start), start)
        if start < doc.title_end:
            in_title.add(entity_id)
    top = max(counts.values(), default=1)
    length = max(len(doc.text), 1)
    out = []
    for entity_id, (record, confidence, group) in resolved.items():
        count = max(counts[entity_id], 1)
        position = 1.0 - min(first.get(entity_id, length), length) / length
        frequency = math.log1p(count) / math.log1p(top)
        salience = (
            0.30 * (1.0 if entity_id in in_title else 0.0) + 0.25 * position**2 + 0.45 * frequency
        )
        out.append(
            LinkedEntity(
                entity_id=entity_id,
                display_name=record.display_name,
                entity_kind=record.entity_kind,
                mention_count=count,
                salience=round(min(1.0, salience), 3),
                confidence=confidence,
                surfaces=tuple(sorted({*group.surfaces, *alone.get(entity_id, "").split()})),
            )
        )
    return out


def _surnames_to_count(
    resolved: dict[str, tuple[EntityRecord, float, _Group]], names_of: dict[str, set[str]]
) -> dict[str, str]:
    """The surname of each person named here in full, to count where the item writes it alone
    and the recogniser did not tag it ("Manning threw for 364 yards" after "Peyton Manning";
    the small model often misses a surname opening a sentence). Only a surname that is no other
    entity's name here and belongs to one person named here ("Bush" beside "George W. Bush"
    and "Laura Bush" is neither's), capitalised and not an acronym, a title or a common word."""
    owners: dict[str, set[str]] = defaultdict(set)
    for entity_id, (record, _, group) in resolved.items():
        if record.entity_kind != PERSON:
            continue
        for surface in group.surfaces:
            words = [w.strip(",.") for w in surface.split()]
            while words and (words[-1] in _POST_NOMINALS or words[-1].lower() in _GENERATIONS):
                words.pop()
            if len(words) >= 2:
                owners[words[-1]].add(entity_id)
    others = {alias_key(n) for entity_id, names in names_of.items() for n in names if " " not in n}
    return {
        surname: next(iter(people))
        for surname, people in owners.items()
        if len(people) == 1
        and len(surname) >= 3
        and surname[:1].isupper()
        and not surname.isupper()
        and surname.replace("-", "").replace("'", "").replace("’", "").isalpha()
        and surname.lower() not in _TITLES
        and surname.lower() not in stop_words()
        and alias_key(surname) not in others - {alias_key(n) for n in names_of[next(iter(people))]}
    }


def _alone(text: str, start: int, end: int) -> bool:
    """Whether the surname at ``start:end`` stands alone for a person: no capitalised word
    right before it but a title ("Mr", "Coach") or a common word opening a sentence ("In"),
    none after it ("Manning threw", "Mr Alishbandi told"; not "Eli Manning", "Manning Field"),
    no "the" before it and no "family" or "clan" after it, which name something else ("the
    Genovese family", "the Doctor", "two Genovese family members")."""
    before = text[max(0, start - 30) : start]
    previous = before.rstrip(" ").rsplit(None, 1)[-1] if before.strip() else ""
    if before.endswith(" ") and previous[-1:].isalpha():
        word = previous.lower().strip(".")
        titled = word in _TITLES or word in stop_words()
        if word == "the" or (previous[:1].isupper() and not titled):
            return False
    after = text[end : end + 30]
    after = after[2:] if after[:2] in ("'s", "’s") else after
    following = after.lstrip(" ")
    named_on = following[:1].isupper() or following.startswith(_KIN_GROUPS)
    return not (after[:1] == " " and named_on)


_KIN_GROUPS = wordlists.sequence("kin_groups")


def link_many(
    linker: EntityLinker,
    documents: Iterable[tuple[str, str]],
    mentions: Iterable[Sequence[Mention]],
) -> list[LinkResult]:
    return [linker.link(t, b, m) for (t, b), m in zip(documents, mentions, strict=True)]
