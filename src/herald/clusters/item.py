"""What the clusterer reads of one news or wire item, and how it is made from enriched content.

The enrichment pipeline already produces the MiniLM embedding of title and lead and the linked
entities with their salience. The clusterer adds three lexical bags, compared separately because
they tell different things apart (measured on ECB+, where each topic holds two events of one kind):

- ``terms``: stemmed content words (what happened), title words counted twice;
- ``names``: capitalised words, a recogniser-free view of names, places and dates ("Thompson",
  "Aceh", "November") that still works when a name is not linked to the knowledge base;
- ``numbers``: figures (tolls, magnitudes, scores, years), which single out one event among
  similar ones;

and the candidate key ideas (short phrases of the title and lead).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
import numpy.typing as npt

from herald.enrich.text import STOPWORDS, content_terms, lead_text, stem

Embedding = npt.NDArray[np.float32]

TITLE_WEIGHT = 2  # title terms count this many times
PHRASE_LEAD_WORDS = 80  # key ideas come from the title and this much of the lead
MAX_PHRASE_WORDS = 4

_NAME = re.compile(r"\b[A-Z][\w'’-]*")
_NUMBER = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)*(?![\w])")
# A word of key ideas is letters of any script ("façade", "São"), with inner ' ’ -; every other
# run of non-space characters (digits, punctuation) is a token that ends a run of words.
_LETTER = r"[^\W\d_]"
_PHRASE_WORD = re.compile(rf"{_LETTER}(?:{_LETTER}|['’-])*|(?:[^\s\w]|[\d_])+")
# Words that may not start or end a key idea although they are not stopwords.
_WEAK = frozenset(
    (
        "according", "added", "announced", "told", "reported", "reports", "reportedly",
        "yesterday", "today", "tomorrow", "monday", "tuesday", "wednesday", "thursday", "friday",
        "saturday", "sunday", "week", "weeks", "month", "months", "year", "years", "ago", "last",
        "next", "first", "second", "third", "former", "latest", "early", "late", "several",
        "among", "another", "around", "including", "least", "more", "than",
    )
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class StoryItem:
    """One article as the clusterer sees it; ``article_id`` is shared by syndicated copies."""

    content_id: str
    article_id: str
    source_key: str
    published_at: datetime
    title: str
    abstract: str
    embedding: Embedding  # L2-normalised
    terms: Mapping[str, float]  # stemmed content term -> count
    names: Mapping[str, float] = field(default_factory=dict)  # capitalised word -> count
    numbers: Mapping[str, float] = field(default_factory=dict)  # figure -> count
    entities: Mapping[str, float] = field(default_factory=dict)  # entity id -> salience (0-1)
    entity_names: Mapping[str, str] = field(default_factory=dict)  # entity id -> display name
    phrases: Sequence[str] = ()  # candidate key ideas, as written

    def __post_init__(self) -> None:
        if self.published_at.tzinfo is None:
            raise ValueError("published_at must be timezone-aware")


def lexical_bag(item: StoryItem, name: str) -> Mapping[str, float]:
    """One of the item's lexical bags by name: ``terms``, ``names`` or ``numbers``."""
    bag: Mapping[str, float] = getattr(item, name)
    return bag


def story_terms(title: str, body: str) -> Counter[str]:
    counts: Counter[str] = Counter()
    for _ in range(TITLE_WEIGHT):
        counts.update(content_terms(title))
    counts.update(content_terms(body))
    return counts


def story_names(title: str, body: str) -> Counter[str]:
    """Capitalised words, lower-cased; stopwords ("The", "He") and single letters dropped."""
    counts: Counter[str] = Counter()
    for text in (title, body):
        for word in _NAME.findall(text):
            key = word.lower().rstrip("'’").removesuffix("'s").removesuffix("’s")
            if len(key) > 1 and key not in STOPWORDS:
                counts[key] += 1
    return counts


def story_numbers(title: str, body: str) -> Counter[str]:
    """Figures as written, without thousands separators ("1,200" and "1200" are one)."""
    counts: Counter[str] = Counter()
    for text in (title, body):
        counts.update(number.replace(",", "") for number in _NUMBER.findall(text))
    return counts


def candidate_phrases(title: str, body: str, *, lead_words: int = PHRASE_LEAD_WORDS) -> list[str]:
    """Short phrases of content words in the title and lead ("Betty Ford Center", "pirate attack").

    A run of content words ends at punctuation, a digit or a stopword, and is split where the
    capitalisation changes ("Hurricane Ana | came ashore | near | Corpus Christi"); weak words
    ("yesterday", "said") are trimmed from the ends. Pieces of 2 to 4 words are candidates; a
    longer piece (a title-case headline) gives its 2- and 3-word windows. Each phrase appears
    once, in order of first appearance.
    """
    text = lead_text(title, body, lead_words)
    seen: dict[str, str] = {}
    for line in text.splitlines():
        run: list[str] = []
        for token in [*_PHRASE_WORD.findall(line), "."]:
            word = token.strip("'’-")
            if word and word[0].isalpha() and word.lower() not in STOPWORDS and len(word) > 1:
                run.append(word)
                continue
            for piece in _case_pieces(run):
                _take_piece(piece, seen)
            run = []
    return list(seen.values())


def _case_pieces(run: list[str]) -> list[list[str]]:
    pieces: list[list[str]] = []
    for word in run:
        if pieces and pieces[-1][-1][0].isupper() == word[0].isupper():
            pieces[-1].append(word)
        else:
            pieces.append([word])
    return pieces


def _take_piece(piece: list[str], seen: dict[str, str]) -> None:
    while piece and piece[0].lower() in _WEAK:
        piece = piece[1:]
    while piece and piece[-1].lower() in _WEAK:
        piece = piece[:-1]
    if len(piece) <= MAX_PHRASE_WORDS:
        windows = [piece] if len(piece) >= 2 else []
    else:
        windows = [piece[i : i + n] for n in (3, 2) for i in range(len(piece) - n + 1)]
    for window in windows:
        phrase = " ".join(window)
        seen.setdefault(phrase_key(phrase), phrase)


def phrase_key(phrase: str) -> str:
    """Spelling- and inflection-insensitive key of a phrase ("Pirate attacks" ~ "pirate attack")."""
    return " ".join(stem(word.lower()) for word in phrase.split())
