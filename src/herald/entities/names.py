"""Name normalisation shared by the knowledge base, linking and entity search.

Two spellings that a reader takes for the same name get the same key: case, accents, dots and
spaces in acronyms and initials ("U.K." = "U. K." = "U.K" = "UK"; "D. R. Horton" = "D.R.
Horton"), "&" vs "and", hyphens, a leading "The" and a company's legal-form suffix ("Apple
Inc." = "Apple") do not matter.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from herald.entities import wordlists

# Letters joined by dots, each dot maybe followed by one space, the last dot optional ("U.S.",
# "U. S." and "U.S", whose dot a sentence's full stop took, are all "US"; "J. R. R. Tolkien" is
# "JRR Tolkien"). One initial stays a word of its own ("George W. Bush").
_INITIALS = r"\b([^\W\d_](?:\.{space}[^\W\d_])+\.?)(?!\w)"
_ACRONYM_DOTS = re.compile(_INITIALS.format(space=" ?"), re.UNICODE)
# As ids were first derived: initials joined by dots only ("A. J." stays two words).
_ACRONYM_DOTS_UNSPACED = re.compile(_INITIALS.format(space=""), re.UNICODE)
_DOTS_AND_SPACES = re.compile(r"[. ]")
_NON_WORD = re.compile(r"[^\w]+", re.UNICODE)
_APOSTROPHES = re.compile(r"['’`´]")
_SPACES = re.compile(r"\s+")

# Legal-form words that do not change which company a name means.
CORPORATE_SUFFIXES = wordlists.words("corporate_suffixes")


def fold(text: str) -> str:
    """Lower case with accents removed ("Zürich" -> "zurich")."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()


@lru_cache(maxsize=65536)
def alias_key(name: str) -> str:
    """The lookup key of a name or alias (see the module docstring)."""
    return _key(_joined(_ACRONYM_DOTS, name))


def id_key(name: str) -> str:
    """The key an entity's id is derived from when it has no source key: the lookup key as ids
    were first derived, before spaced initials were joined ("A. J. Smith" -> "a j smith"), so an
    id never changes when name matching improves."""
    return _key(_joined(_ACRONYM_DOTS_UNSPACED, name))


def _joined(initials: re.Pattern[str], name: str) -> str:
    """The name with each run of initials ``initials`` finds written as one word ("US")."""
    return initials.sub(lambda m: _DOTS_AND_SPACES.sub("", m.group(1)), name)


def _key(text: str) -> str:
    text = _APOSTROPHES.sub("", fold(text))
    text = text.replace("&", " and ")
    text = _NON_WORD.sub(" ", text).replace("_", " ")
    text = _SPACES.sub(" ", text).strip()
    if text.startswith("the ") and len(text) > 4:
        text = text[4:]
    return text


def strip_corporate_suffix(key: str) -> str:
    """Drop trailing legal-form words from a key, keeping at least one word."""
    words = key.split(" ")
    while len(words) > 1 and words[-1] in CORPORATE_SUFFIXES:
        words.pop()
    return " ".join(words)


def name_keys(name: str) -> set[str]:
    """Every key under which a name should be found (with and without a legal-form suffix)."""
    key = alias_key(name)
    if not key:
        return set()
    return {key, strip_corporate_suffix(key)}


def without_initials(key: str) -> str:
    """A person's name key without its initials ("regina m benjamin", "w mark felt" ->
    "regina benjamin", "mark felt"), when two words or more are left; else the key."""
    words = [w for w in key.split() if not is_initial(w)]
    return " ".join(words) if len(words) >= 2 else key


def is_initial(word: str) -> bool:
    """Whether a word of a name key is an initial (one letter; "3" of "Layer 3" is none)."""
    return len(word) == 1 and word.isalpha()


def word_positions(text: str, word: str, *, not_after: str = "", plural: bool = False) -> list[int]:
    """Where ``word`` occurs in ``text`` as a whole word (no word character either side; nor a
    character of ``not_after`` before it; ``plural``: an "s" may follow it). Non-overlapping,
    left to right: what ``re.finditer`` gives for ``(?<!\\w)word(?!\\w)``, without compiling a
    pattern for every name (linking looks for hundreds of names per article)."""
    positions: list[int] = []
    if not word:
        return positions
    size = len(word)
    start = text.find(word)
    while start != -1:
        before = text[start - 1] if start else ""
        end = start + size
        if plural and text[end : end + 1] == "s":
            after = text[end + 1 : end + 2]
            if _is_word(after):
                after = text[end : end + 1]
        else:
            after = text[end : end + 1]
        if not _is_word(before) and (not before or before not in not_after) and not _is_word(after):
            positions.append(start)
            start = text.find(word, end)
        else:
            start = text.find(word, start + 1)
    return positions


def _is_word(char: str) -> bool:
    return bool(char) and (char.isalnum() or char == "_")
