"""Names the knowledge base knows, found in a text even where the statistical recogniser missed
them: a dictionary matcher over the knowledge base's name keys.

The text's words are scanned once; at each capitalised word ("Apple", or "iPhone") the longest
run of up to ``MAX_WORDS`` words (ending on a capitalised word, within one sentence) whose
normalised key (:func:`herald.entities.names.alias_key`) names a knowledge-base entity is a
match. The keys are
already a hash index of the knowledge base (:meth:`KnowledgeBase.lookup`), so each try costs one
dictionary look-up whatever the knowledge base's size: no automaton to build or keep in memory.

A match becomes a recogniser-like mention with the label of its entities' kind and then goes
through the same grouping, kind and ambiguity rules as the recogniser's mentions. It is only
kept when the dictionary alone is fairly sure: its entities are all of one kind, and a one-word
match must not open a sentence, must not be a common word (nor one the text uses in lower
case: "People" beside "people"), and must name a well-known entity
(a country, a big city, a listed company: prior >= ``ONE_WORD_MIN_PRIOR``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from herald.enrich.ner import Mention, stop_words
from herald.entities import wordlists
from herald.entities.cues import KIND_GROUP, ORG, PERSON, PLACE, PRODUCT
from herald.entities.kb import KnowledgeBase
from herald.entities.names import alias_key, word_positions

MAX_WORDS: Final = 8
ONE_WORD_MIN_PRIOR: Final = 0.7
_LABEL_OF_GROUP: Final = {
    PERSON: "PERSON",
    PLACE: "GPE",
    ORG: "ORG",
    PRODUCT: "PRODUCT",
    "event": "EVENT",
}
# A word; spaced initials ("D. R." in "D. R. Horton") are one word, as their name key makes them.
_WORD = re.compile(r"[^\W\d_]\.(?: [^\W\d_]\.)+|[^\W_][\w'’.&-]*", re.UNICODE)
# A possessive after a name ("the European Central Bank's chief"), but in "McDonald's" a name's.
_POSSESSIVE = re.compile(r"['’]s$")
# What may separate two words of one name: spaces, or nothing else.
_JOIN = re.compile(r"^[ \t]{1,2}$")
_SENTENCE_END = re.compile(r"[.!?:;\"“”()\n]\s*$")
_CONNECTING: Final = wordlists.words("dictionary_connecting")
_ARTICLES: Final = frozenset({"the", "a", "an"})


def with_dictionary_mentions(
    text: str, kb: KnowledgeBase, found: Sequence[Mention]
) -> list[Mention]:
    """The ``found`` mentions and the knowledge-base names of ``text``
    (:func:`dictionary_mentions`), without the found mentions a longer knowledge-base name
    covers."""
    extra = dictionary_mentions(text, kb, found)
    if not extra:
        return list(found)
    kept = [m for m in found if not any(_covers(text, d, m) for d in extra)]
    return [*kept, *extra]


def dictionary_mentions(text: str, kb: KnowledgeBase, found: Sequence[Mention]) -> list[Mention]:
    """Knowledge-base names in ``text`` that overlap none of the ``found`` mentions, or that
    are longer names holding the found mentions they overlap: "Islamic State of Iraq and the
    Levant" where the recogniser saw "the Islamic State of Iraq" and "Levant"."""
    words = [(m.start(), m.end()) for m in _WORD.finditer(text)]
    taken = sorted((m.start, m.end) for m in found)
    longest = min(MAX_WORDS, kb.longest_name)
    out: list[Mention] = []
    i = 0
    while i < len(words):
        start = words[i][0]
        first = text[start : words[i][1]].rstrip(".")
        if not _capitalised(text, start) or not (
            kb.starts_a_name(alias_key(first))
            or kb.starts_a_name(alias_key(_POSSESSIVE.sub("", first)))
        ):
            i += 1
            continue
        match = _longest_match(text, words, i, longest, kb)
        if match is None:
            i += 1
            continue
        last, group, surface = match
        label = _LABEL_OF_GROUP[group]
        span_end = start + len(surface)
        match_ = Mention(surface, label, start, span_end)
        if label == "PERSON" and _goes_on(text, words, last, span_end):
            i = last + 1  # a person's name inside another's: "the Nelson Mandela Award"
            continue
        if last > i:
            overlapping = [m for m in found if m.start < span_end and start < m.end]
            if all(_covers(text, match_, m) for m in overlapping):
                out.append(match_)
        elif not _overlaps(taken, start, span_end) and _one_word_ok(
            text, start, surface, group, kb
        ):
            out.append(match_)
        i = last + 1
    return out


def _longest_match(
    text: str, words: list[tuple[int, int]], i: int, longest: int, kb: KnowledgeBase
) -> tuple[int, str, str] | None:
    """The last word, kind group and text of the longest known name starting at word ``i``."""
    last = i
    for j in range(i + 1, min(len(words), i + longest)):
        if not _JOIN.match(text[words[j - 1][1] : words[j][0]]):
            break
        last = j
    for j in range(last, i - 1, -1):
        tail = text[words[j][0] : words[j][1]]
        if not _capitalised(tail, 0) and not tail[0].isdigit():
            continue  # a name ends on a capitalised word ("Bank of England", not "Bank of")
        surface = text[words[i][0] : words[j][1]].rstrip(".")
        for name in dict.fromkeys((surface, _POSSESSIVE.sub("", surface))):
            key = alias_key(name)
            records = kb.lookup(key) if key else []
            groups = {KIND_GROUP[r.entity_kind] for r in records}
            if len(groups) == 1:
                return j, next(iter(groups)), name
            if groups:
                return None  # names of several kinds: the recogniser's label must decide
    return None


def _goes_on(text: str, words: list[tuple[int, int]], last: int, end: int) -> bool:
    """Whether a capitalised word follows the match ending at word ``last`` in the same name."""
    if last + 1 >= len(words) or words[last][1] != end:
        return False
    following = words[last + 1][0]
    return bool(_JOIN.match(text[end:following])) and _capitalised(text, following)


def _capitalised(text: str, at: int) -> bool:
    """A word written as a name: a capital first, or second ("iPhone", "eBay")."""
    return text[at].isupper() or (text[at].islower() and text[at + 1 : at + 2].isupper())


def _one_word_ok(text: str, start: int, surface: str, group: str, kb: KnowledgeBase) -> bool:
    """Whether a one-word match of the knowledge base's names of kind ``group`` is a name."""
    if len(surface) < 2 or (len(surface) < 4 and not surface.isupper()):
        return False
    if surface.lower() in stop_words() or surface.lower() in _CONNECTING:
        return False
    if start == 0 or _SENTENCE_END.search(text[max(0, start - 3) : start]):
        return False  # a sentence's first word is capitalised anyway
    if not surface.isupper() and word_positions(text, surface.lower(), not_after="."):
        return False  # "People" where "people" is a word of the text: maybe a title's word
    return max(kb.prior(r.id) for r in kb.lookup(alias_key(surface))) >= ONE_WORD_MIN_PRIOR


def _covers(text: str, name: Mention, mention: Mention) -> bool:
    """Whether ``name`` holds ``mention`` and is longer: the mention lies inside it (but for a
    leading article the recogniser kept: "the Islamic State of Iraq")."""
    if mention.end > name.end or (mention.start, mention.end) == (name.start, name.end):
        return False
    if mention.start >= name.start:
        return True
    return text[mention.start : name.start].strip().lower() in _ARTICLES


def _overlaps(taken: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(s < end and start < e for s, e in taken)
