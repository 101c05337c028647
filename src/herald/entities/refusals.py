"""What is no new entity: names that the lists of what is no name refuse, or that the form of
the name and the words around it refuse for a kind. The rules of new entities
(:mod:`herald.entities.discovery`) and the admission model (:mod:`herald.entities.admission`)
both ask here, so each refusal is written once."""

from __future__ import annotations

import re
from collections.abc import Sequence

from herald.entities import wordlists
from herald.entities.cues import PERSON, PLACE, PRODUCT
from herald.entities.document import Document, Group, only_in_headline, used_as_a_word
from herald.entities.geography import after_a_preposition, placed
from herald.entities.kb import KnowledgeBase
from herald.entities.known import ends_like_a_persons_name, whole_name_of
from herald.entities.names import alias_key, fold, word_positions
from herald.entities.shapes import (
    has_digit,
    is_quoted,
    looks_like_a_name,
    of_at,
    ship,
    titled_surname,
)
from herald.entities.vocabulary import (
    HONOUR_ENDINGS,
    NAMING_WORDS,
    ORG_KINDS,
    STATE_BY_KEY,
    TITLES,
    VESSEL_PREFIXES,
)

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


# What a name right after it is part of an office's name with ("Secretary of State John Kerry";
# narrower than _OFFICE_OF below: "the governor of Hormozgan Province" still names a place).
_SECRETARY_OF = re.compile(
    r"\b(?:" + "|".join(wordlists.sequence("secretaries_of")) + r") of\s+$", re.IGNORECASE
)
_ROMAN = re.compile(r"^[IVX]+$")  # "Anthony LaCalamita III"


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


def not_a_name(doc: Document, group: Group, name: str) -> bool:
    """Whether ``name`` is no entity's whatever its kind: a word of the lists of what is no
    name ("Mich." is an abbreviated state, "Msgr." a title, time zones), an office ("Surgeon
    General"; "State" of "Secretary of State John Kerry"), or no name's shape."""
    key = alias_key(name)
    return (
        not key
        or key in NOT_NAMES
        or key in TITLES
        or key in STATE_BY_KEY
        or _POSITION.match(key) is not None
        or all(
            _SECRETARY_OF.search(doc.text, max(0, m.start - 20), m.start) for m in group.mentions
        )
        or not looks_like_a_name(name)
    )


def refused_as(kb: KnowledgeBase, doc: Document, group: Group, kind: str, name: str) -> bool:
    """Whether ``name`` (a person's without a title before it) is no new entity of the kind
    group ``kind``, by its form and the words around it."""
    words = name.split()
    key = alias_key(name)
    if kind == PERSON and (
        titled_surname(words)  # "Deputy Ortiz"
        # no person's name has a word in capitals ("EYP MCF") or a number
        or any((w.isupper() and len(w) >= 3 and not _ROMAN.match(w)) or has_digit(w) for w in words)
        # "Palmer Fire" beside "Palmer", "Texas Ranger" beside "Texas"
        or _opens_with_the_items_place(kb, doc, group, key)
        or _opens_with_what_is_no_one(kb, words)  # "Intel Xeon", "the Iranian Majlis"
        # "App Store" beside "the store", "Dynamic Smart Cooling" by "cooling"
        or _common_words_named(kb, doc, words)
    ):
        return True
    if len(words) == 1 and kind != PRODUCT and has_digit(name):
        return True  # a version or a model ("IE6", "Q10", "A380") is no place, person or org
    if len(words) == 1 and kind == PLACE and not _may_be_a_new_place(kb, doc, group, name):
        return True
    if words[0] in VESSEL_PREFIXES or ship(doc.text, group) or is_quoted(doc.text, group):
        return True  # a ship ("INS Sukanya") or a work's title ("'Catching Fire'")
    if "and" in words[: of_at(words)] and words[-1].lower() not in NAMING_WORDS:
        return True  # two names joined ("Lopez and Carrasquillo", "North and South Korea")
    if len(words) > 1 and words[-1].lower() in HONOUR_ENDINGS:
        return True  # an award ("MacArthur Fellowship", "Most Valuable Player Award")
    if (
        len(words) == 2
        and words[-1].lower().endswith("al")
        and words[-1].lower() not in NAMING_WORDS
        and kb.lookup_demonym(alias_key(words[0]))
    ):
        return True  # a nationality and an adjective ("the Indian Naval destroyer")
    return only_in_headline(doc, group)  # capitals prove nothing in a title-cased headline
