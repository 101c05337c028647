"""CoNLL-2003 English named-entity data as Herald reads news: documents with a title, a body and
the gold names' character offsets.

The dataset's folder (``--data DIR``, see ``bench/public_data.py``) holds ``train.txt``
(eng.train, 946 documents) and ``valid.txt`` (eng.testa, the development split, 216 documents):
one token a line (``token POS chunk NER``), ``-DOCSTART-`` lines between documents, blank lines
between sentences, tags in IOB (a ``B-`` tag or a change of type starts a name).

Splits: ``train`` to tune, ``dev`` to choose. The official test split (eng.testb) judges Herald on
news it was never tuned on: it is never read here, and asking for it is refused.

Text: a document's sentences are detokenised (no space before closing punctuation and clitics,
none after an opening bracket, straight double quotes paired) and written one a line. The first
sentence is the title when it is an all-capitals headline ("CRICKET - LEICESTERSHIRE TAKE OVER
AT TOP AFTER INNINGS VICTORY ."); otherwise it stays the first line of the body. The text the
recogniser reads is Herald's ``document_text(title, body)``: the title, a blank line, the body;
gold offsets are into that text.

Class: a document is ``sports`` when its first sentence opens with a sports slug: the words
before its first hyphen (at most three words) hold a word that starts with a sport's name of
``SPORTS`` ("SOCCER -",
"RUGBY UNION -", "Boxing-Bruno quits ..."), as Reuters labels its sports wire; every other
document is ``general``. The rule reads only the headline's form, never the annotation.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

SPLITS = {"train": "train.txt", "dev": "valid.txt"}
REFUSED = ("test", "testb", "eng.testb", "test.txt")
TYPES = ("PER", "ORG", "LOC", "MISC")
# Sports as Reuters' sports slugs name them; a slug names a sport when one of these is in it.
SPORTS = (
    "soccer",
    "football",
    "cricket",
    "tennis",
    "golf",
    "baseball",
    "basketball",
    "athletics",
    "boxing",
    "squash",
    "cycling",
    "rugby",
    "racing",
    "rallying",
    "motocross",
    "motorcycling",
    "badminton",
    "swimming",
    "rowing",
    "skiing",
    "hockey",
    "nfl",
    "nhl",
    "nba",
    "volleyball",
    "handball",
    "snooker",
    "judo",
    "wrestling",
    "fencing",
    "gymnastics",
    "triathlon",
    "sailing",
    "yachting",
    "equestrian",
    "olympics",
    "paralympics",
    "sumo",
    "darts",
    "australian rules",
)
_SPORT = re.compile(r"\b(?:" + "|".join(SPORTS) + ")")
SPORTS_RULE = (
    "sports: the headline opens with a sports slug (the words before its first hyphen, at most "
    "three, name a sport: SOCCER -, CRICKET -, RUGBY UNION -, Boxing-...); general: the rest"
)

_NO_SPACE_BEFORE = frozenset(",.;:!?)]}%") | {"'s", "'S", "n't", "'re", "'ve", "'ll", "'d", "'m"}
_NO_SPACE_AFTER = frozenset("([{")


@dataclass(frozen=True, slots=True)
class GoldMention:
    """A gold name: ``text`` is ``document.text[start:end]``; ``label`` PER, ORG, LOC or MISC."""

    text: str
    label: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Document:
    doc_id: str  # "dev-12": the split and the document's position in it, from 1
    title: str
    body: str
    mentions: tuple[GoldMention, ...]
    kind: str  # "sports" or "general"

    @property
    def text(self) -> str:
        """What Herald reads: ``herald.entities.linking.document_text(title, body)``."""
        return f"{self.title}\n\n{self.body}" if self.title else self.body


class RefusedSplit(ValueError):
    """The official test split was asked for: it is held out and never read."""


def split_file(data: Path, split: str) -> Path:
    """The file of ``split`` (``train`` or ``dev``) in the dataset's folder."""
    if split.lower() in REFUSED:
        raise RefusedSplit(
            f"split {split!r}: the CoNLL-2003 test split (eng.testb) is held out to judge Herald "
            "on news it was never tuned on; it is never read. Use train to tune, dev to choose."
        )
    if split not in SPLITS:
        raise ValueError(f"split {split!r}: choose one of {', '.join(SPLITS)}")
    return data / SPLITS[split]


def read_split(data: Path, split: str) -> list[Document]:
    """The documents of ``split`` in file order."""
    path = split_file(data, split)
    return [
        _document(f"{split}-{n}", sentences)
        for n, sentences in enumerate(_documents(path.read_text(encoding="utf-8")), 1)
    ]


def class_counts(documents: list[Document]) -> Counter[str]:
    return Counter(d.kind for d in documents)


Token = tuple[str, str]  # (word, IOB tag)


def _documents(text: str) -> Iterator[list[list[Token]]]:
    sentences: list[list[Token]] = []
    sentence: list[Token] = []
    for line in text.splitlines():
        fields = line.split()
        if fields and fields[0] == "-DOCSTART-":
            if sentence:
                sentences.append(sentence)
            if sentences:
                yield sentences
            sentences, sentence = [], []
        elif not fields:
            if sentence:
                sentences.append(sentence)
            sentence = []
        else:
            sentence.append((fields[0], fields[-1]))
    if sentence:
        sentences.append(sentence)
    if sentences:
        yield sentences


def _document(doc_id: str, sentences: list[list[Token]]) -> Document:
    first = [word for word, _ in sentences[0]]
    headline = _all_capitals(first)
    lines: list[str] = []
    mentions_by_line: list[list[tuple[int, int, str]]] = []
    for sentence in sentences:
        line, offsets = _detokenise([word for word, _ in sentence])
        lines.append(line)
        mentions_by_line.append(
            [(offsets[a][0], offsets[b - 1][1], label) for a, b, label in _names(sentence)]
        )
    title = lines[0] if headline else ""
    body_lines = lines[1:] if headline else lines
    body = "\n".join(body_lines)
    # Where each line starts in document_text(title, body).
    base = len(title) + 2 if title else 0
    starts: list[int] = []
    if headline:
        starts.append(0)
    position = base
    for line in body_lines:
        starts.append(position)
        position += len(line) + 1
    text = f"{title}\n\n{body}" if title else body
    mentions = tuple(
        GoldMention(text[starts[i] + a : starts[i] + b], label, starts[i] + a, starts[i] + b)
        for i, found in enumerate(mentions_by_line)
        for a, b, label in found
    )
    return Document(doc_id, title, body, mentions, _kind(first))


def _all_capitals(words: list[str]) -> bool:
    letters = [c for w in words for c in w if c.isalpha()]
    return bool(letters) and all(c.isupper() for c in letters)


def _kind(headline: list[str]) -> str:
    line = " ".join(headline)
    slug = line.split("-", 1)[0] if "-" in line else ""
    words = slug.split()
    if not words or len(words) > 3:
        return "general"
    return "sports" if _SPORT.search(" ".join(words).lower()) else "general"


def _detokenise(words: list[str]) -> tuple[str, list[tuple[int, int]]]:
    """The sentence as text, and each word's (start, end) in it."""
    out = ""
    offsets: list[tuple[int, int]] = []
    quote_open = False
    glue_next = False
    for word in words:
        closing_quote = word == '"' and quote_open
        space = bool(out) and not glue_next and word not in _NO_SPACE_BEFORE and not closing_quote
        if space:
            out += " "
        offsets.append((len(out), len(out) + len(word)))
        out += word
        glue_next = word in _NO_SPACE_AFTER or (word == '"' and not quote_open)
        if word == '"':
            quote_open = not quote_open
    return out, offsets


def _names(sentence: list[Token]) -> list[tuple[int, int, str]]:
    """(first token, token after the last, type) of each name; IOB1 and IOB2 both read."""
    out: list[tuple[int, int, str]] = []
    start, label = None, ""
    for i, (_, tag) in enumerate([*sentence, ("", "O")]):
        prefix, _, kind = tag.partition("-")
        continues = prefix == "I" and kind == label and start is not None
        if start is not None and not continues:
            out.append((start, i, label))
            start = None
        if prefix in ("B", "I") and not continues:
            start, label = i, kind
    return out
