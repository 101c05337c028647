"""The in-memory knowledge-base index used by linking: names to candidates, priors, profiles.

Built from entity records (the bundled seed, an import file, or the database rows); entities
discovered while linking are added as they appear.
"""

from __future__ import annotations

import gzip
import math
import re
import threading
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path

from herald.enrich.text import content_terms
from herald.entities import wordlists
from herald.entities.model import EntityRecord
from herald.entities.names import alias_key, name_keys, without_initials

SEED_RESOURCE = "entities-seed.jsonl.gz"
# The tag of a person known by one word only: the name of the person they are named with.
NAMED_WITH = "named_with"
GIVEN_NAMES_RESOURCE = "given-names.txt"

# Tags whose values describe an entity's world (they feed its context profile).
_PROFILE_TAG_KEYS = frozenset({"industry", "index", "headquarters", "continent", "key_person"})


def seed_path() -> Path:
    """Where the bundled seed knowledge base is (JSON Lines, gzip)."""
    return Path(__file__).resolve().parent.parent / "data" / "kb" / SEED_RESOURCE


@cache
def bundled_given_names() -> frozenset[str]:
    """First names of many languages (folded keys), bundled with Herald (see its README)."""
    path = seed_path().parent / GIVEN_NAMES_RESOURCE
    return frozenset(alias_key(line) for line in path.read_text(encoding="utf-8").split())


def read_seed() -> Iterator[EntityRecord]:
    from herald.entities.jsonl import parse_entity_line

    with gzip.open(seed_path(), "rt", encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                yield parse_entity_line(line, number, origin="seed")


class KnowledgeBase:
    """Entities indexed by every key of their names and aliases."""

    def __init__(self, records: Iterable[EntityRecord] = ()) -> None:
        self._records: dict[str, EntityRecord] = {}
        self._by_key: dict[str, list[str]] = {}
        self._profiles: dict[str, frozenset[str]] = {}
        self._priors: dict[str, float] = {}
        self._countries: dict[str, str] = {}  # ISO alpha-2 -> entity id
        self._by_demonym: dict[str, list[str]] = {}  # "french" -> France
        # By the value of a tag read in linking: "home" ("indianapolis" -> its teams) and "line"
        # ("galaxy" -> the Samsung Galaxy line, whose model names start so).
        self._by_tag: dict[str, dict[str, list[str]]] = {tag: {} for tag in _INDEXED_TAGS}
        # People by last name ("lagarde" -> Christine Lagarde): most surnames name one person,
        # so those are kept as a plain id, the shared ones as a list (a third of the memory).
        self._one_surname: dict[str, str] = {}
        self._shared_surname: dict[str, list[str]] = {}
        self._given_names: set[str] = set()  # first words of people's names ("christine")
        self._first_words: set[str] = set()  # first word of every key (the matcher's filter)
        self._longest_key = 1  # words in the longest name key (the dictionary matcher's window)
        # People known only by one word and the person they are named with ("Portia" with Ellen
        # DeGeneres): (name key, that person's name key) -> entity id; their names are indexed
        # nowhere else, so the word alone never links to them.
        self._named_with: dict[tuple[str, str], str] = {}
        self._lock = threading.Lock()
        for record in records:
            self.add(record)

    @classmethod
    def from_seed(cls) -> KnowledgeBase:
        return cls(read_seed())

    def __getstate__(self) -> dict[str, object]:
        """A knowledge base pickles without its lock (an evaluation copies one seed many times)."""
        state = self.__dict__.copy()
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._records)

    def __contains__(self, entity_id: object) -> bool:
        return entity_id in self._records

    def get(self, entity_id: str) -> EntityRecord | None:
        return self._records.get(entity_id)

    def records(self) -> Iterable[EntityRecord]:
        return self._records.values()

    def add(self, record: EntityRecord) -> None:
        """Add or replace an entity (replacing drops the keys of its old names and tags)."""
        with self._lock:
            old = self._records.get(record.id)
            if old == record:
                return
            if old is not None:
                self._unindex(old)
            self._records[record.id] = record
            self._priors[record.id] = _prior(record)
            anchor = record.first_tag(NAMED_WITH)
            if anchor:
                self._named_with[(alias_key(record.display_name), alias_key(anchor))] = record.id
                return
            for demonym in record.tag_values("demonym"):
                ids = self._by_demonym.setdefault(alias_key(demonym), [])
                if record.id not in ids:
                    ids.append(record.id)
            for tag, index in self._by_tag.items():
                for value in record.tag_values(tag):
                    ids = index.setdefault(alias_key(value), [])
                    if record.id not in ids:
                        ids.append(record.id)
            for key in self._keys_of(record):
                ids = self._by_key.setdefault(key, [])
                if record.id not in ids:
                    ids.append(record.id)
                self._longest_key = max(self._longest_key, key.count(" ") + 1)
                self._first_words.add(key.split(" ", 1)[0])
            if record.entity_kind == "person":
                words = alias_key(record.display_name).split()
                if len(words) >= 2 and words[0].isalpha() and len(words[0]) >= 2:
                    self._given_names.add(words[0])
                self._add_surname(_surname(record), record.id)
            if record.entity_kind == "place" and record.first_tag("place_type") == "country":
                code = record.first_tag("country")
                if code:
                    self._countries[code] = record.id

    def remove(self, entity_id: str) -> None:
        """Forget an entity (one merged into another)."""
        with self._lock:
            old = self._records.pop(entity_id, None)
            if old is not None:
                self._unindex(old)
                self._priors.pop(entity_id, None)

    def _unindex(self, old: EntityRecord) -> None:
        """Drop the keys of ``old``'s names and tags (its record stays in ``_records``)."""
        anchor = old.first_tag(NAMED_WITH)
        if anchor:
            pair = (alias_key(old.display_name), alias_key(anchor))
            if self._named_with.get(pair) == old.id:
                del self._named_with[pair]
            return
        stale = [(self._by_key, key) for key in self._keys_of(old)]
        stale += [(self._by_demonym, alias_key(v)) for v in old.tag_values("demonym")]
        stale += [
            (index, alias_key(v))
            for tag, index in self._by_tag.items()
            for v in old.tag_values(tag)
        ]
        for index, key in stale:
            ids = index.get(key)
            if ids and old.id in ids:
                ids.remove(old.id)
        self._profiles.pop(old.id, None)
        if old.entity_kind == "person":
            self._drop_surname(_surname(old), old.id)
        code = old.first_tag("country")
        if code and self._countries.get(code) == old.id:
            del self._countries[code]

    def lookup(self, key: str) -> list[EntityRecord]:
        """Entities having a name or alias with this key (see :func:`alias_key`)."""
        return [self._records[i] for i in self._by_key.get(key, ())]

    def lookup_named_with(self, key: str, anchor: EntityRecord) -> EntityRecord | None:
        """The person called by this one-word name key beside the person ``anchor`` (by any of
        the anchor's names: a discovered anchor merged since into a known person is found by
        the name it was discovered by, which the known person has)."""
        for name in (anchor.display_name, *anchor.aliases):
            entity_id = self._named_with.get((key, alias_key(name)))
            if entity_id is not None and entity_id in self._records:
                return self._records[entity_id]
        return None

    def lookup_demonym(self, key: str) -> list[EntityRecord]:
        """Places whose people are called this ("French" -> France)."""
        return [self._records[i] for i in self._by_demonym.get(key, ())]

    def lookup_home(self, key: str) -> list[EntityRecord]:
        """Teams named after this place ("Indianapolis" -> the Colts and the Pacers): the
        entities with a ``home`` tag of this key."""
        return [self._records[i] for i in self._by_tag["home"].get(key, ())]

    def lookup_line(self, key: str) -> list[EntityRecord]:
        """Products whose model names start with these words ("galaxy" -> Samsung Galaxy, as in
        "Galaxy S4"): the entities with a ``line`` tag of this key."""
        return [self._records[i] for i in self._by_tag["line"].get(key, ())]

    def lookup_surname(self, key: str) -> list[EntityRecord]:
        """People whose name ends with this word ("nixon" -> Richard Nixon)."""
        one = self._one_surname.get(key)
        ids = [one] if one is not None else self._shared_surname.get(key, [])
        return [self._records[i] for i in ids]

    def _add_surname(self, surname: str, entity_id: str) -> None:
        if not surname:
            return
        shared = self._shared_surname.get(surname)
        if shared is not None:
            if entity_id not in shared:
                shared.append(entity_id)
            return
        other = self._one_surname.setdefault(surname, entity_id)
        if other != entity_id:
            self._shared_surname[surname] = [self._one_surname.pop(surname), entity_id]

    def _drop_surname(self, surname: str, entity_id: str) -> None:
        if self._one_surname.get(surname) == entity_id:
            del self._one_surname[surname]
            return
        shared = self._shared_surname.get(surname)
        if shared is None or entity_id not in shared:
            return
        shared.remove(entity_id)
        if len(shared) == 1:
            self._one_surname[surname] = self._shared_surname.pop(surname)[0]

    def is_given_name(self, key: str) -> bool:
        """Whether a person of the knowledge base has this first name ("christine")."""
        if key not in self._given_names and key not in bundled_given_names():
            return False
        # "Washington Post", "Boston Herald": a well-known place's name is not a first name here.
        return not any(
            r.entity_kind != "person" and self.prior(r.id) >= 0.6 for r in self.lookup(key)
        )

    def starts_a_name(self, word_key: str) -> bool:
        """Whether some name key starts with this word (cheap filter before longer look-ups)."""
        return word_key in self._first_words

    @property
    def longest_name(self) -> int:
        """How many words the longest name key has."""
        return self._longest_key

    def is_known_name(self, key: str) -> bool:
        return bool(self._by_key.get(key))

    def prior(self, entity_id: str) -> float:
        return self._priors.get(entity_id, 0.3)

    def country_of(self, record: EntityRecord) -> EntityRecord | None:
        code = record.first_tag("country")
        if not code:
            return None
        entity_id = self._countries.get(code)
        if entity_id is None or entity_id == record.id:
            return None
        return self._records.get(entity_id)

    def profile(self, entity_id: str) -> frozenset[str]:
        """Content words that signal this entity in a text (from description, tags, aliases)."""
        cached = self._profiles.get(entity_id)
        if cached is not None:
            return cached
        record = self._records[entity_id]
        parts = [record.description]
        parts.extend(tag.value for tag in record.tags if tag.key in _PROFILE_TAG_KEYS)
        country = self.country_of(record)
        if country is not None:
            parts.append(country.display_name)
        own = set(content_terms(record.display_name))
        profile = frozenset(t for t in content_terms(" ".join(parts)) if t not in own)
        self._profiles[entity_id] = profile
        return profile

    @staticmethod
    def _keys_of(record: EntityRecord) -> set[str]:
        keys: set[str] = set()
        for name in (record.display_name, *record.aliases):
            keys |= name_keys(name)
            if record.entity_kind == "place":
                keys |= name_keys(short_place_name(name))
            elif record.entity_kind == "person":
                keys.add(without_initials(alias_key(name)))
        keys.discard("")
        return keys


_PLACE_QUALIFIER = re.compile(
    r"\s*\([^)]*\)$|\s+(?:" + "|".join(wordlists.sequence("place_qualifiers")) + r")\s+\S.*$"
)


def short_place_name(name: str) -> str:
    """The name a place goes by in running text: "Frankfurt am Main", "Frankfurt (Oder)" and
    "Newcastle upon Tyne" are "Frankfurt" and "Newcastle" (then the prior picks the bigger)."""
    return _PLACE_QUALIFIER.sub("", name) or name


_NAME_SUFFIXES = wordlists.words("name_suffixes")


def _surname(record: EntityRecord) -> str:
    """The name a person is called by alone: the ``surname`` tag when the record has one
    ("Xi" of "Xi Jinping", "Lula" of "Luiz Inácio Lula da Silva"; a tag of several words, such
    as "Martin Luther King", says no single word stands for the person), else the last name."""
    tagged = record.first_tag("surname")
    if tagged:
        return alias_key(tagged)
    return _last_name(alias_key(record.display_name).split())


def _last_name(words: list[str]) -> str:
    """The last name among a person's name key's words ("arcade joseph comeaux jr" ->
    "comeaux"), or "" for a name of fewer than two words."""
    while words and words[-1] in _NAME_SUFFIXES:
        words = words[:-1]
    return words[-1] if len(words) >= 2 and len(words[-1]) >= 2 else ""


_INDEXED_TAGS = ("home", "line")


def _prior(record: EntityRecord) -> float:
    """How likely a bare mention of one of this entity's names means this entity (0-1): from
    its kind, population or stock-index listings, and, for an entity imported from Wikidata,
    how many wikis have a page about it (its ``sitelinks`` tag), whichever says more."""
    sitelinks = _int(record.first_tag("sitelinks"))
    if sitelinks <= 0:
        return _kind_prior(record)
    # 1 wiki -> 0.3; 10 -> 0.5; 100 -> 0.7; 300 -> 0.8 (a head of state); at most 0.95
    return max(_kind_prior(record), min(0.95, 0.3 + 0.2 * math.log10(sitelinks)))


def _kind_prior(record: EntityRecord) -> float:
    kind = record.entity_kind
    place_type = record.first_tag("place_type")
    if kind == "place":
        if place_type == "country":
            return 1.0
        if place_type == "continent":
            return 0.9
        population = _int(record.first_tag("population"))
        if place_type == "city":
            if population <= 0:
                return 0.3
            # 15,000 people -> 0.3; one million -> ~0.78; ten million -> ~0.95
            return max(0.2, min(1.0, 0.3 + 0.26 * (math.log10(population) - 4.18)))
        if place_type == "region":
            return 0.7 if record.first_tag("country") == "US" else 0.5
        if place_type == "area":
            # a sea, a river, a mountain range, a part of the world: the seed's are the
            # much-reported ones ("Red Sea" is the sea before Sudan's state of that name)
            return 0.8 if record.origin == "seed" else 0.4
        return 0.4
    if kind == "company":
        listings = len(record.tag_values("index"))
        return min(0.85, 0.6 + 0.05 * listings)
    if kind == "organization":
        return 0.8 if record.origin == "seed" else 0.5
    if kind == "person":
        if record.origin != "seed":
            return 0.5
        # the seed's curated people are household names; its listed companies' officers are not
        return 0.8 if record.first_tag("source") == "herald" else 0.6
    if kind == "product":
        return 0.8 if record.origin == "seed" else 0.5  # the seed's are household names
    return 0.5


def _int(value: str | None) -> int:
    try:
        return int(value) if value else 0
    except ValueError:
        return 0
