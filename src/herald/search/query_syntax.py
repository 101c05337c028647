"""The query language of content search: natural language, plus the operators of news search.

- plain words are ranked evidence (no word is required, so natural-language questions work);
- ``"quoted phrase"`` must appear as written (a quoted single word must appear);
- ``-word`` or ``-"a phrase"`` excludes items containing it (a hyphen inside a word, as in
  ``covid-19``, is not an operator);
- ``A OR B`` makes quoted items alternatives: ``"climate change" OR "global warming"`` needs one.

Parsing is total: any string parses. Unbalanced quotes, a dangling ``OR`` or a lone ``-`` fall back
to plain words, so a malformed query is never an error. A query is read in Unicode's composed form
(NFC), the form every stored text has: a decomposed accent (a letter, then the mark) would
otherwise split its word in two.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from herald.search.analysis import content_terms, index_terms

_QUOTES = {'"': '"', "“": "”", "„": "“", "«": "»"}
_OR = "OR"


@dataclass(frozen=True, slots=True)
class Phrase:
    """Index terms in order; a one-term phrase is a required word."""

    terms: tuple[str, ...]
    text: str


@dataclass(frozen=True, slots=True)
class ParsedQuery:
    text: str  # what the query means in plain words, for the embedding (operators removed)
    terms: tuple[str, ...]  # distinct ranked query terms (stemmed, stop words dropped)
    required: tuple[tuple[Phrase, ...], ...]  # each group needs at least one of its phrases
    excluded: tuple[Phrase, ...]

    @property
    def is_empty(self) -> bool:
        return not self.terms and not self.required


@dataclass(frozen=True, slots=True)
class _Item:
    text: str
    quoted: bool
    negated: bool


def _scan(query: str) -> list[_Item | None]:
    """Items in order; ``None`` marks an ``OR`` operator."""
    items: list[_Item | None] = []
    i, n = 0, len(query)
    while i < n:
        ch = query[i]
        if ch.isspace():
            i += 1
            continue
        negated = ch == "-" and i + 1 < n and not query[i + 1].isspace()
        start = i + 1 if negated else i
        opener = query[start] if start < n else ""
        if opener in _QUOTES:
            close = query.find(_QUOTES[opener], start + 1)
            if close != -1:
                items.append(_Item(query[start + 1 : close], quoted=True, negated=negated))
                i = close + 1
                continue
            start += 1  # unbalanced quote: the rest is plain words
        end = start
        while end < n and not query[end].isspace():
            end += 1
        word = query[start:end]
        i = end
        if word == _OR and not negated:
            items.append(None)
        elif word:
            items.append(_Item(word.lstrip("+"), quoted=False, negated=negated))
    return items


def _groups(items: list[_Item | None]) -> list[list[_Item]]:
    """Join items linked by ``OR``; operators that link nothing are dropped."""
    groups: list[list[_Item]] = []
    join_next = False
    for item in items:
        if item is None:
            join_next = bool(groups) and not groups[-1][-1].negated
            continue
        if join_next and not item.negated:
            groups[-1].append(item)
        else:
            groups.append([item])
        join_next = False
    return groups


def parse_query(query: str) -> ParsedQuery:
    if not query.isascii():
        query = unicodedata.normalize("NFC", query)
    words: list[str] = []
    terms: dict[str, None] = {}
    required: list[tuple[Phrase, ...]] = []
    excluded: list[Phrase] = []
    for group in _groups(_scan(query)):
        if group[0].negated:
            phrase = Phrase(tuple(index_terms(group[0].text)), group[0].text)
            if phrase.terms:
                excluded.append(phrase)
            continue
        alternatives: list[Phrase] = []
        for item in group:
            if not any(ch.isalnum() for ch in item.text):
                continue
            words.append(item.text)
            terms.update(dict.fromkeys(content_terms(item.text)))
            phrase = Phrase(tuple(index_terms(item.text)), item.text)
            if phrase.terms:
                alternatives.append(phrase)
        if any(item.quoted for item in group) and alternatives:
            required.append(tuple(alternatives))
    if not terms:  # only stop words ("to be or not to be"): rank by them after all
        terms.update(dict.fromkeys(index_terms(" ".join(words))))
    return ParsedQuery(
        text=" ".join(words),
        terms=tuple(terms),
        required=tuple(required),
        excluded=tuple(excluded),
    )
