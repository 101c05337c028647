"""Words and their casing, as Herald's trained recogniser reads them.

The recogniser's encoder is uncased (it shares the embedding model's lower-cased word pieces),
so what capitals say about names reaches it as a separate feature per word: the word's shape
(lower, capitalised, all capitals, ...) combined with the casing mode of its sentence. A
capitalised word means little in a headline where every word is capitalised and nothing in an
all-capitals headline; the mode lets the model learn that instead of being misled by it.

Words are split the way the CoNLL-2003 annotations split them (the model is trained on them):
punctuation apart, "'s" and other clitics apart, abbreviations with their dots ("U.S.",
"Corp.") and numbers with their separators whole. The same code prepares the training data
(scripts/train_recognizer.py) and the text at run time, so the two cannot drift apart.

This module needs only the standard library.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import IntEnum
from functools import lru_cache
from typing import Final, NamedTuple


class Shape(IntEnum):
    LOWER = 0  # no capital letter
    CAPITALISED = 1  # a capital, then lower case ("Paris", "Mr.")
    CAPITALS = 2  # two or more letters, no lower case ("NATO", "U.S.")
    SINGLE_CAPITAL = 3  # one letter, a capital ("A", "I")
    MIXED = 4  # capitals inside the word ("McDonald", "iPhone")
    NO_LETTERS = 5  # numbers and punctuation


class Mode(IntEnum):
    PROSE = 0  # ordinary sentence case
    TITLE_CASE = 1  # most longer words capitalised (headlines in title case)
    ALL_CAPITALS = 2  # no lower-case letter (wire headlines, shouted text)
    NO_CAPITALS = 3  # no capital at all (lower-case transcripts, social text)


SHAPES: Final = len(Shape)
MODES: Final = len(Mode)
CASING_IDS: Final = 1 + SHAPES * MODES  # id 0 is padding and continuation pieces

_CLITIC = r"['’](?:s|S|re|RE|ve|VE|ll|LL|d|D|m|M|t|T)\b"
_WORD_RE: Final = re.compile(
    r"(?:[A-Za-z]\.){2,}"  # initialisms: U.S., U.K., a.m.
    r"|[A-Z]\.(?=\s)"  # an initial: the "P." of "P. Simmons"
    r"|(?:Mr|Mrs|Ms|Dr|Prof|Gen|Gov|Sen|Rep|Lt|Col|Sgt|Capt|Mt|St|Jr|Sr|Corp|Inc|Ltd|Co|Bros"
    r"|No|Jan|Feb|Mar|Apr|Aug|Sept|Sep|Oct|Nov|Dec|vs)\.(?!\w)"  # common abbreviations
    r"|\d+(?:[.,:/]\d+)*"  # numbers: 1,000 3.5 12:30 1/2
    rf"|{_CLITIC}"  # 's 're n't-like endings, apart as in CoNLL
    r"|n['’]t\b"
    r"|\w+?(?=n['’]t\b)"  # "didn't" -> "did" "n't"
    rf"|\w+(?:[-'’]\w+)*?(?={_CLITIC})"  # the word before a clitic
    r"|\w+(?:[-'’]\w+)*"  # words, hyphenated words, O'Neill
    r"|\S",  # any other character alone
)


class Word(NamedTuple):
    """A word and its offsets (a named tuple: an article has hundreds, made on every read)."""

    text: str
    start: int
    end: int


def split_words(text: str, start: int = 0, end: int | None = None) -> list[Word]:
    """The words of ``text[start:end]`` with offsets in ``text``."""
    stop = len(text) if end is None else end
    return [Word(m.group(), m.start(), m.end()) for m in _WORD_RE.finditer(text, start, stop)]


@lru_cache(maxsize=1 << 16)  # words repeat: a text's shapes are mostly known ones
def shape(word: str) -> Shape:
    letters = [c for c in word if c.isalpha()]
    if not letters:
        return Shape.NO_LETTERS
    upper = sum(1 for c in letters if c.isupper())
    if upper == 0:
        return Shape.LOWER
    if upper == len(letters):
        return Shape.SINGLE_CAPITAL if len(letters) == 1 else Shape.CAPITALS
    if upper == 1 and letters[0].isupper():
        return Shape.CAPITALISED
    return Shape.MIXED


def mode(words: Sequence[str]) -> Mode:
    """The casing mode of one sentence (or headline), from its words."""
    lettered = [w for w in words if any(c.isalpha() for c in w)]
    if not lettered:
        return Mode.PROSE
    if not any(c.isupper() for w in lettered for c in w):
        return Mode.NO_CAPITALS if len(lettered) >= 3 else Mode.PROSE
    if len(lettered) >= 3 and not any(c.islower() for w in lettered for c in w):
        return Mode.ALL_CAPITALS
    longer = [w for w in lettered if len(w) >= 4]
    capitalised = sum(1 for w in longer if w[0].isupper())
    if len(longer) >= 3 and capitalised >= 0.8 * len(longer):
        return Mode.TITLE_CASE
    return Mode.PROSE


def casing_ids(words: Sequence[str], sentence_mode: Mode | None = None) -> list[int]:
    """One casing id (1..CASING_IDS-1) per word of a sentence."""
    found = mode(words) if sentence_mode is None else sentence_mode
    return [1 + int(found) * SHAPES + int(shape(w)) for w in words]


def windows(lengths: Sequence[int], max_pieces: int, overlap: int) -> list[tuple[int, int, int]]:
    """Cuts a run of units (sentences or words) of ``lengths`` word pieces into windows of at most
    ``max_pieces``: ``(first, stop, keep_from)`` units. Consecutive windows share up to
    ``overlap`` pieces of context; a unit's labels are taken from the window whose ``keep_from``
    <= unit index (each unit is kept once, from the window where it has context on its left).
    A unit longer than ``max_pieces`` stands alone (the caller cuts it)."""
    out: list[tuple[int, int, int]] = []
    first = 0
    keep_from = 0
    total = len(lengths)
    while first < total:
        size, stop = 0, first
        while stop < total and (stop == first or size + lengths[stop] <= max_pieces):
            size += lengths[stop]
            stop += 1
        out.append((first, stop, keep_from))
        if stop >= total:
            break
        # The next window starts early enough to repeat up to ``overlap`` pieces of context,
        # leaving room for its first new unit.
        back, shared = stop, 0
        room = min(overlap, max_pieces - lengths[stop])
        while back - 1 > first and back - 1 >= keep_from and shared + lengths[back - 1] <= room:
            back -= 1
            shared += lengths[back]
        first, keep_from = back, stop
    return out
