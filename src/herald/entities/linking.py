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
from dataclasses import dataclass, replace

from herald.enrich.ner import Mention, stop_words
from herald.enrich.text import content_terms, split_sentences
from herald.entities import wordlists
from herald.entities.coreference import group_mentions
from herald.entities.cues import (
    EVENT,
    ORG,
    PERSON,
    PLACE,
    PRODUCT,
    SPORTS_WORDS,
    person_cue,
)
from herald.entities.disambiguation import by_surname, choose, person_over_a_far_town, team
from herald.entities.document import (
    Document,
    Group,
    LinkedEntity,
    LinkingConfig,
    clean_surface,
    document_text,
    is_demonym,
    needs_context,
    only_in_headline,
    surface_key,
    title_cased,
    used_as_a_word,
)
from herald.entities.geography import after_a_preposition, located_in, near, placed, placed_mentions
from herald.entities.jsonl import entity_id_for
from herald.entities.kb import NAMED_WITH, KnowledgeBase
from herald.entities.kind_stage import group_kinds, kind_distribution, kind_evidence, neighbours_of
from herald.entities.kinds import NONE, KindEvidence
from herald.entities.known import ends_like_a_persons_name, whole_name_of
from herald.entities.matcher import with_dictionary_mentions
from herald.entities.model import EntityDraft, EntityKind, EntityRecord, Tag
from herald.entities.names import (
    alias_key,
    fold,
    word_positions,
)
from herald.entities.repair import (
    headline_names,
    split_glued,
    within_paragraphs,
    without_openers,
)
from herald.entities.repair_joins import (
    joined_across_and,
    joined_split_names,
    with_given_names,
    with_state_mentions,
    with_surnames_after_nicknames,
)
from herald.entities.shapes import (
    a_work,
    edition_of,
    has_digit,
    head_word,
    is_quoted,
    looks_like_a_name,
    model_of,
    of_at,
    ship,
    starts_like_a_place,
    titled_surname,
    without_title,
)
from herald.entities.vocabulary import (
    COMPANY_WORDS,
    EITHER_ENDINGS,
    EVENT_ENDINGS,
    FIRM_ENDINGS,
    HONOUR_ENDINGS,
    NAMING_WORDS,
    NICKNAME,
    OPENING_QUOTES,
    ORG_KINDS,
    PLACE_ENDINGS,
    POST_NOMINALS,
    STATE_BY_KEY,
    TITLES,
    VESSEL_PREFIXES,
)

_COMPANY = frozenset({"company"})


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


def _opens_with_the_items_place(kb: KnowledgeBase, doc: Document, group: Group, key: str) -> bool:
    """Whether a name that might be a new person's opens with a place the item also names
    alone and ends with no word people's names end with ("Palmer Public Safety", "Palmer
    Fire" in a story about Palmer, Alaska; "Texas Ranger"): what that place has, not who.
    A name the recogniser calls a person twice or more stays one ("Sydney Sweeney" in a
    story that also names Sydney)."""
    first = key.split()[0]
    return (
        sum(m.label == "PERSON" for m in group.mentions) < 2
        and first in doc.keys
        and any(r.entity_kind == "place" for r in kb.lookup(first))
        and not ends_like_a_persons_name(key, kb)
    )


def _opens_with_what_is_no_one(kb: KnowledgeBase, words: Sequence[str]) -> bool:
    """Whether a name that might be a new person's opens with a word that is no first name
    and that is an organisation's whole name, of organisations only ("Intel Xeon": what a
    company makes; not "Brady Quinn" beside the Brady Corporation, nor "Dana Tamir"), or a
    nationality ("the Iranian Majlis")."""
    if kb.is_given_name(fold(words[0])):
        return False  # "German Efromovich"
    return whole_name_of(kb, words[0], ORG_KINDS) or bool(kb.lookup_demonym(alias_key(words[0])))


def _common_words_named(kb: KnowledgeBase, doc: Document, words: Sequence[str]) -> bool:
    """Whether a name that might be a new person's opens with no known first name and ends
    with a word the item also writes in lower case ("App Store" beside "the store"), or the
    item writes the name itself with its last word in lower case ("Oscar Host" beside "an
    Oscar host"): common words written as a name, not a person's."""
    if not words[-1].isalpha():
        return False
    if not kb.is_given_name(fold(words[0])):
        return used_as_a_word(doc, words[-1:])
    return bool(word_positions(doc.text, " ".join([*words[:-1], words[-1].lower()])))


def _may_be_a_new_place(kb: KnowledgeBase, doc: Document, group: Group, name: str) -> bool:
    """Whether a word the knowledge base does not know may name a new place: no acronym
    ("from XP to RT"; a dotted one, "B.C.", may be), nor a first name the text does not
    write as a place ("another brother, Louis, was a priest"; not "water on Mars", "in
    Regina"). Known places are known by such names too."""
    if name.isupper() and "." not in name:
        return False
    return not kb.is_given_name(alias_key(name)) or (
        placed(doc.text, group) or any(after_a_preposition(doc.text, m) for m in group.mentions)
    )


def new_entity(
    kb: KnowledgeBase,
    config: LinkingConfig,
    doc: Document,
    group: Group,
    kinds: dict[str, float],
    located: EntityRecord | None,
) -> tuple[EntityRecord, float] | None:
    if is_demonym(group):
        return None  # nationalities and groups ("Icelanders") only link to known places
    name = _storm_named_in_full(doc.text, group, clean_surface(group.name))
    key = alias_key(name)
    if not key or key in NOT_NAMES or key in TITLES or key in STATE_BY_KEY:
        return None  # ("Mich." is an abbreviated state, "Msgr." a title)
    if _POSITION.match(key):
        return None  # "Surgeon General" is an office
    if all(_SECRETARY_OF.search(doc.text, max(0, m.start - 20), m.start) for m in group.mentions):
        return None  # "State" of "Secretary of State John Kerry" names an office
    if not looks_like_a_name(name):
        return None
    group_kind, share = max(
        ((k, v) for k, v in kinds.items() if k != NONE), key=lambda item: item[1]
    )
    # How sure the kind model is that the group names a thing of that kind (0 without it).
    sure = round(share * (1.0 - kinds[NONE]), 3) if NONE in kinds else 0.0
    if sure < config.kind_threshold:
        sure = 0.0
    if located is not None and group_kind == PLACE:
        return _new_place(config, group, name, located, share)
    if kb.is_known_name(key) and not sure:
        # A known name that did not fit here is not a new entity, unless the kind model is
        # sure of its kind: a club named after its city ("Somerset won by six wickets").
        return None
    last = head_word(name)
    several = len(name.split()) > 1
    # A name that says what it is needs only to read as a name: any of the three kinds.
    a_name = kinds.get(PERSON, 0.0) + kinds.get(PLACE, 0.0) + kinds.get(ORG, 0.0)
    if several and model_of(name, kb):
        # A model of a known product line ("BlackBerry Q10", "Galaxy S4", "Windows 8"),
        # whatever the recogniser called it.
        group_kind, share = PRODUCT, a_name + kinds.get(PRODUCT, 0.0)
    elif (
        group_kind == ORG
        and len(name.split()) == 2
        and last not in NAMING_WORDS
        and whole_name_of(kb, name.split()[0], _COMPANY)
    ):
        # A company's whole name and one more word is what it makes ("Intel Atom", "AMD
        # Opteron"), not a part of it ("Intel Capital", "Sony Pictures"); "Apple TV" is not
        # caught so, the company being "Apple Inc." in full
        group_kind, share = PRODUCT, a_name + kinds.get(PRODUCT, 0.0)
    elif edition_of(name) is not None or (several and last in EVENT_ENDINGS):
        # "the 3rd Annual Tribeca Film Festival", "the Sundance Film Festival", "the Asian
        # Games": an event, whatever the recogniser called it
        group_kind, share = EVENT, a_name + kinds.get(EVENT, 0.0)
    elif starts_like_a_place(name):
        group_kind, share = PLACE, a_name  # "Mount Sefton", "Place Vendôme"
    elif last in NAMING_WORDS:
        # The name says what it is, whatever the label and the sentence suggest: no
        # person's name ends so ("Indiana State", "Matanuska Maid Creamery"), "Syntagma
        # Square" is a place, the "American Medical Association" an organisation (a
        # university or a court is either: the text decides).
        if group_kind == PERSON or (
            several and group_kind in (PLACE, ORG) and last not in EITHER_ENDINGS
        ):
            group_kind = PLACE if last in PLACE_ENDINGS else ORG
        if several:
            share = a_name
    if group_kind == PERSON:
        name = without_title(name)
        key = alias_key(name)
    words = name.split()
    if group_kind == PERSON and (len(words) < 2 or titled_surname(words)):
        return None  # "Reid" or "Deputy Ortiz" alone is too ambiguous to become an entity
    if group_kind == PERSON and any(
        (w.isupper() and len(w) >= 3 and not _ROMAN.match(w)) or has_digit(w) for w in words
    ):
        return None  # no person's name has a word in capitals ("EYP MCF") or a number
    if group_kind == PERSON and _opens_with_the_items_place(kb, doc, group, key):
        return None  # "Palmer Fire" beside "Palmer", "Texas Ranger" beside "Texas"
    if group_kind == PERSON and _opens_with_what_is_no_one(kb, words):
        return None  # "Intel Xeon", "the Iranian Majlis"
    if group_kind == PERSON and _common_words_named(kb, doc, words):
        return None  # "App Store" beside "the store", "Dynamic Smart Cooling" by "cooling"
    if len(words) == 1 and group_kind != PRODUCT and has_digit(name):
        # a version or a model ("IE6", "Q10", "A380") is no place, person or organisation
        return None
    if len(words) == 1 and group_kind == PLACE and not _may_be_a_new_place(kb, doc, group, name):
        return None
    if words[0] in VESSEL_PREFIXES or ship(doc.text, group) or is_quoted(doc.text, group):
        return None  # a ship ("INS Sukanya") or a work's title ("'Catching Fire'")
    if "and" in words[: of_at(words)] and words[-1].lower() not in NAMING_WORDS:
        return None  # two names joined ("Lopez and Carrasquillo", "North and South Korea")
    if len(words) > 1 and words[-1].lower() in HONOUR_ENDINGS:
        return None  # an award ("MacArthur Fellowship", "Most Valuable Player Award")
    if (
        len(words) == 2
        and words[-1].lower().endswith("al")
        and words[-1].lower() not in NAMING_WORDS
        and kb.lookup_demonym(alias_key(words[0]))
    ):
        return None  # a nationality and an adjective ("the Indian Naval destroyer")
    if only_in_headline(doc, group):
        return None  # capitalisation proves nothing in a title-cased headline
    body = [m for m in group.mentions if m.start >= doc.title_end]
    if len(words) == 1 and (
        (
            len(group.mentions) < 2
            and not sure
            and not all(m.label in ("GPE", "LOC") for m in group.mentions)
        )
        or needs_context(doc, group)
    ):
        return None
    count = len(group.mentions)
    in_title = len(body) < count
    confidence = share * mention_weight(count)
    if in_title:
        confidence += 0.1
    if group_kind == PERSON or len(words) >= 2:
        confidence += 0.1  # spaCy's multi-word names are rarely wrong
    confidence = round(min(1.0, max(confidence, sure)), 3)
    if confidence < config.new_entity_min_confidence:
        return None
    return _discovered(group, group_kind, name), confidence


def named_with(
    kb: KnowledgeBase,
    resolved: dict[str, tuple[EntityRecord, float, Group]],
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


def _new_place(
    config: LinkingConfig, group: Group, name: str, located: EntityRecord, share: float
) -> tuple[EntityRecord, float] | None:
    """A place the text locates ("Harriman, Tennessee"): one mention is enough, and the
    region or country it lies in is kept with it (two Lake Counties stay apart)."""
    confidence = round(min(1.0, share * 0.8 + 0.1), 3)
    if confidence < config.new_entity_min_confidence:
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
        resolved: dict[str, tuple[EntityRecord, float, Group]] = {}
        drafts: dict[str, EntityDraft] = {}
        lone: list[tuple[Group, str, float]] = []  # people named by one word only
        for group in groups:
            # The region or country the text puts the name in ("Harriman, Tennessee").
            located = located_in(self._kb, doc, group)
            kinds = group_kinds(self._kb, self._config, doc, group, neighbours, located)
            choice = (
                team(self._kb, doc, group)
                or person_over_a_far_town(self._kb, doc, group, located)
                or choose(self._kb, self._config, doc, group, kinds, located)
                or by_surname(self._kb, doc, group, kinds)
            )
            if (choice is None or choice[0].origin == "discovered") and (
                a_work(doc.text, group) or is_quoted(doc.text, group)
            ):
                continue  # a work's title ("the Hunger Games sequel"), which no kind here fits
            if choice is None:
                draft = new_entity(self._kb, self._config, doc, group, kinds, located)
                if draft is None:
                    one_word = lone_person(doc, group, kinds, self._kb)
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
                merged = Group(previous[2].key)
                merged.surfaces = previous[2].surfaces + group.surfaces
                merged.mentions = previous[2].mentions + group.mentions
                resolved[record.id] = (record, max(confidence, previous[1]), merged)
        for group, record, confidence in named_with(self._kb, resolved, lone):
            if record.origin == "discovered" and record.id not in self._kb:
                drafts[record.id] = EntityDraft.of(record)
            resolved.setdefault(record.id, (record, confidence, group))
        linked = measure(doc, resolved)
        linked.sort(key=lambda e: (-e.salience, -e.confidence, e.display_name))
        linked = linked[: self._config.max_entities]
        kept = {e.entity_id for e in linked}
        return LinkResult(linked, [d for i, d in drafts.items() if i in kept])

    def _prepare(
        self, title: str, body: str, mentions: Sequence[Mention]
    ) -> tuple[Document, list[Group], dict[int, tuple[Mention | None, Mention | None]]]:
        """The item read for linking: its mentions repaired and grouped by name."""
        text = document_text(title, body)
        title_cased_end = len(title) if title_cased(title) else 0
        mentions = split_glued(text, mentions, self._kb)
        mentions = without_openers(within_paragraphs(mentions), self._kb)
        mentions = with_given_names(text, joined_across_and(text, mentions), self._kb)
        mentions = with_surnames_after_nicknames(text, mentions)
        mentions = joined_split_names(text, mentions, self._kb)
        mentions = with_state_mentions(text, headline_names(mentions, self._kb, title_cased_end))
        if self._config.dictionary:
            mentions = with_dictionary_mentions(text, self._kb, mentions)
        groups = group_mentions(text, mentions, self._kb)
        terms = frozenset(content_terms(text))
        doc = Document(
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
        return doc, groups, neighbours_of(mentions)

    def evidence(
        self, title: str, body: str, mentions: Sequence[Mention]
    ) -> list[tuple[list[Mention], KindEvidence]]:
        """Each group's mentions and what the kind model reads of it (for training it)."""
        doc, groups, neighbours = self._prepare(title, body, mentions)
        return [
            (
                list(group.mentions),
                kind_evidence(
                    self._kb,
                    doc,
                    group,
                    kind_distribution(doc, group, neighbours, self._kb),
                    located_in(self._kb, doc, group),
                ),
            )
            for group in groups
        ]


# Titles the recogniser often keeps in a person's name ("Coroner Gary Hargrove").
# Capitalised tokens the recogniser calls organisations that name nothing: time zones,
# abbreviations of common words, and sports reports' abbreviations (touchdown, injured
# reserve, knockout, most valuable player, quarterback, runs batted in, earned run average).
_STORM_WORDS = wordlists.sequence("storm_words")
NOT_NAMES = (
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
# What may follow a surname in a person's full name ("Arcade Joseph Comeaux Jr").
_GENERATIONS = wordlists.words("generations")


def lone_person(
    doc: Document, group: Group, kinds: dict[str, float], kb: KnowledgeBase
) -> tuple[str, float] | None:
    """The one word a person is named by, and the confidence, when the item names someone by
    that word only: the recogniser calls most of its mentions a person, the kinds agree, and
    the words around a mention say so too ("my wife Portia", "Heller argued", "Mr Lyons")."""
    person = kinds.get(PERSON, 0.0)
    labels = [m.label == "PERSON" for m in group.mentions]
    if person < 0.5 or 2 * sum(labels) <= len(labels) or used_as_a_word(doc, group.surfaces):
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
    if all(_part_of_a_name(doc.text, m) for m in group.mentions):
        return None
    if not titled and not any(person_cue(doc.text, m.start, m.end) for m in group.mentions):
        return None
    confidence = round(min(1.0, person * mention_weight(len(group.mentions)) + 0.1), 3)
    return name, confidence


def _known_only_as_places_elsewhere(
    doc: Document, group: Group, key: str, kb: KnowledgeBase
) -> bool:
    """Whether the knowledge base knows a word only as places the item neither writes as a place
    nor puts it near: it names none of their regions, or countries where they have none
    ("Jackson" of "said Jackson" in a story from San Diego; not "Gotcher of McAlester argued"
    beside Oklahoma, nor "in Jackson")."""
    records = kb.lookup(key)
    return (
        bool(records)
        and all(r.entity_kind == "place" and not near(doc, r, kb) for r in records)
        and placed_mentions(doc.text, group) == 0
    )


def mention_weight(count: int) -> float:
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


def _entity_kind(group: str, name: str) -> EntityKind:
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
    if group == "product":
        return "product"
    if group == "event":
        return "event"
    return "place"


def _discovered(group: Group, group_kind: str, name: str) -> EntityRecord:
    """A new entity of the kind group ``group_kind`` named ``name``."""
    kind = _entity_kind(group_kind, name)
    return EntityRecord(
        id=entity_id_for(kind, name, f"discovered:{kind}:{alias_key(name)}"),
        display_name=name,
        entity_kind=kind,
        aliases=_national_aliases(name) if kind in ORG_KINDS else _nicknamed(group, name),
        origin="discovered",
    )


def _storm_named_in_full(text: str, group: Group, name: str) -> str:
    """ "Storm Fred" with the "Tropical" the recogniser left out before it (a sentence's first
    word): "Tropical Storm Fred", a storm, not a person called Storm."""
    if not _STORM_CUT.match(name):
        return name
    for mention in group.mentions:
        before = _TROPICAL_BEFORE.search(text, max(0, mention.start - 16), mention.start)
        if before is not None:
            return f"{before.group(1).capitalize()} {name}"
    return name


_STORM_CUT = re.compile(r"^(?:storm|depression)\s", re.I)
_TROPICAL_BEFORE = re.compile(r"\b((?:sub|post-)?tropical)\s+$", re.I)
_STORM = re.compile(r"^(?:" + "|".join(re.escape(w) for w in _STORM_WORDS) + r")\s", re.I)
_YEAR_FIRST = re.compile(r"^(?:1[89]|20)\d\d\s+[A-Z]")


# How a country is written before an organisation's name (by name key: "U.S.", "U.S" and
# "US" are one), and its name in full.
_NATIONAL_PREFIXES = wordlists.mapping("national_prefixes")


# A nickname of one word: "Yogi" of "Lawrence Peter "Yogi" Berra".
_ONE_WORD = re.compile(r"[A-Z][\w.-]*")


def _nicknamed(group: Group, name: str) -> tuple[str, ...]:
    """A person's name as the nickname and the surname (``name``'s last word), when a mention
    writes a one-word nickname in quotation marks inside the full name: "Yogi Berra" of
    "Lawrence Peter "Yogi" Berra", the name people know him by."""
    for mention in group.mentions:
        found = NICKNAME.search(mention.text)
        if found is None or found.group()[1] not in OPENING_QUOTES:
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


# What a name right after it is part of an office's name with ("Secretary of State John Kerry";
# narrower than _OFFICE_OF below: "the governor of Hormozgan Province" still names a place).
_SECRETARY_OF = re.compile(
    r"\b(?:" + "|".join(wordlists.sequence("secretaries_of")) + r") of\s+$", re.IGNORECASE
)
_ROMAN = re.compile(r"^[IVX]+$")  # "Anthony LaCalamita III"


def measure(
    doc: Document, resolved: dict[str, tuple[EntityRecord, float, Group]]
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
            if stands_alone(doc.text, at, at + len(word))
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
    resolved: dict[str, tuple[EntityRecord, float, Group]], names_of: dict[str, set[str]]
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
            while words and (words[-1] in POST_NOMINALS or words[-1].lower() in _GENERATIONS):
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
        and surname.lower() not in TITLES
        and surname.lower() not in stop_words()
        and alias_key(surname) not in others - {alias_key(n) for n in names_of[next(iter(people))]}
    }


def stands_alone(text: str, start: int, end: int) -> bool:
    """Whether the surname at ``start:end`` stands alone for a person: no capitalised word
    right before it but a title ("Mr", "Coach") or a common word opening a sentence ("In"),
    none after it ("Manning threw", "Mr Alishbandi told"; not "Eli Manning", "Manning Field"),
    no "the" before it and no "family" or "clan" after it, which name something else ("the
    Genovese family", "the Doctor", "two Genovese family members")."""
    before = text[max(0, start - 30) : start]
    previous = before.rstrip(" ").rsplit(None, 1)[-1] if before.strip() else ""
    if before.endswith(" ") and previous[-1:].isalpha():
        word = previous.lower().strip(".")
        titled = word in TITLES or word in stop_words()
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
