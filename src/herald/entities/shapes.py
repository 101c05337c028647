"""What a name's own form and the words right around it say: an edition of a recurring event
("the 79th Academy Awards"), a place's first word ("Mount Cook"), a title before a surname, a
product's model ("Galaxy S4"), a work's title ("'Catching Fire'"), and whether the words
read as a name at all."""

from __future__ import annotations

import re
from collections.abc import Sequence

from herald.entities import wordlists
from herald.entities.document import Group, is_person
from herald.entities.kb import KnowledgeBase
from herald.entities.names import alias_key
from herald.entities.vocabulary import (
    CONNECTING,
    NAMING_WORDS,
    OPENING_QUOTES,
    POSSESSIVE,
    ROLES,
    SURNAME_TITLES,
    TITLES,
)

# First words of place names ("Mount Cook", "Place Vendôme", "Rue de Castiglione", "Fort Smith").
_PLACE_STARTS = wordlists.words("place_starts")
# Lower-case words inside people's names ("Ludwig van Beethoven", "Luiz Inácio Lula da Silva").
_NAME_PARTICLES = wordlists.words("name_particles")


# Words a product's model name goes on with, after its line's name ("MacBook Pro", "iPhone SE").
_MODEL_WORDS = wordlists.words("model_words")


def model_of(name: str, kb: KnowledgeBase) -> bool:
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
    if any(has_digit(w) or w.lower() in _MODEL_WORDS for w in words):
        return True
    word = words[0]
    return (
        len(words) == 1
        and word.isalpha()
        and word.istitle()
        and word.lower() not in NAMING_WORDS
        and word.lower() not in TITLES
    )


def has_digit(word: str) -> bool:
    return any(c.isdigit() for c in word)


def starts_like_a_place(name: str) -> bool:
    """A name of several words whose first says it is a place ("Mt Cook", "Stade de Suisse")
    and whose last does not say otherwise."""
    words = name.lower().split()
    return len(words) > 1 and words[0] in _PLACE_STARTS and words[-1].strip(".") not in NAMING_WORDS


_CLOSING_QUOTES = "\"'”’"


def is_quoted(text: str, group: Group) -> bool:
    """Whether most of a group's mentions stand in quotation marks: a title ("'Catching
    Fire'", "the "Deep Throat" source"), not the name of a person, place or organisation."""
    quoted = 0
    for mention in group.mentions:
        before = text[max(0, mention.start - 3) : mention.start].rstrip()
        after = text[mention.end : mention.end + 4].lstrip(" ,.")
        if after[:1] not in _CLOSING_QUOTES:
            continue
        # an opening quotation mark, not a possessive's apostrophe ("ABC News' Peter Jennings")
        opening = bool(before) and before[-1] in OPENING_QUOTES and not before[-2:-1].isalnum()
        if opening:
            quoted += 1
    return quoted * 2 > len(group.mentions)


# Words that say the name beside them is a work's title: "the 1999 movie American Pie", "the
# Hunger Games sequel", "the novel Mockingjay".
_WORK_NOUNS = "|".join(wordlists.sequence("work_nouns"))
_WORK_BEFORE = re.compile(rf"\b(?:{_WORK_NOUNS})[ ,]+$", re.I)
_WORK_AFTER = re.compile(rf"^(?: ?[\"”])? (?:{_WORK_NOUNS})\b", re.I)


def a_work(text: str, group: Group) -> bool:
    """Whether a mention of the group is called a work by the word before or after it, for a
    name the recogniser did not call a person ("the Gary Ross film" is his)."""
    if is_person(group):
        return False
    for mention in group.mentions:
        before = text[max(0, mention.start - 30) : mention.start]
        after = text[mention.end : mention.end + 20]
        if _WORK_BEFORE.search(before) or _WORK_AFTER.match(after):
            return True
    return False


def titled_surname(words: Sequence[str]) -> bool:
    """Whether two words are a title or a role written before a surname ("Deputy Ortiz",
    "Producer Moffat"): one word names the person."""
    return len(words) == 2 and (
        words[0].lower().strip(".") in SURNAME_TITLES or words[0].lower() in ROLES
    )


def of_at(words: Sequence[str]) -> int:
    """Where "of" or "for" joins a name's head to what it is of or for ("School" of "Morehouse
    School of Medicine", "Organisation" of "Organisation for Maritime Safety and Cooperation
    in Africa"), or the name's length."""
    return next((i for i, w in enumerate(words) if w in ("of", "for") and i > 0), len(words))


def head_word(name: str) -> str:
    """The word that says what a name names, lower case: its last, or the last before "of"
    ("Medical Association of the State of Alabama", "Department of Health and Human
    Services")."""
    words = name.split()
    return words[of_at(words) - 1].lower().strip(".")


def without_title(name: str) -> str:
    words = name.split()
    if len(words) >= 3 and words[0].lower().strip(".") in TITLES:
        return " ".join(words[1:])
    return name


def looks_like_a_name(name: str) -> bool:
    """Capitalised words but for connecting ones, five at most; eight when its head word says
    what is named ("Medical Association of the State of Alabama", "Regional Water and Sewage
    Treatment Authority"; not "Union of Concerned Scientists' Scientific Integrity Program", two
    names)."""
    words = name.split()
    longest = 5
    if head_word(name) in NAMING_WORDS and not any(POSSESSIVE.search(w) for w in words[:-1]):
        longest = 8
    if not 1 <= len(words) <= longest or len(name) < 2 or len(name) > 80 or "," in name:
        return False
    if words[-1].lower() in CONNECTING:
        return False  # a name cut short ("National Player of")
    if not any(ch.isalpha() for ch in name):
        return False
    return all(
        w[0].isupper() or w[0].isdigit() or w.lower() in CONNECTING or particle(w) for w in words
    )


def particle(word: str) -> bool:
    """Whether a lower-case word belongs in a person's name: "van", "da", and one joined to the
    name by a hyphen or an apostrophe ("el-Sisi", "d'Estaing")."""
    return re.split(r"[-'’]", word, maxsplit=1)[0] in _NAME_PARTICLES


# An edition of a recurring event: an ordinal, then a name ending as such events' names do.
_EDITION = re.compile(
    r"^\d{1,3}(?:st|nd|rd|th)\s+(?:[Aa]nnual\s+)?((?:[A-Z][\w.&'-]*\s+)*(?:"
    + "|".join(wordlists.sequence("edition_endings"))
    + r"))$"
)


def edition_of(name: str) -> str | None:
    """The recurring event a name is an edition of ("Academy Awards" of "79th Academy
    Awards"), or None; ordinal names of other things ("101st Airborne Division", "117th
    Street") are not editions."""
    found = _EDITION.match(name)
    return found.group(1) if found else None
