"""Sentences and terms: the text primitives every enrichment step shares.

Sentences are returned as character spans of the input, so a summary built from them can only
ever contain sentences that are in the input (Herald never invents a sentence).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

# Words after which a period does not end a sentence.
_ABBREVIATIONS = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "dr",
        "prof",
        "sen",
        "rep",
        "gov",
        "gen",
        "lt",
        "col",
        "sgt",
        "capt",
        "cmdr",
        "adm",
        "maj",
        "st",
        "jr",
        "sr",
        "rev",
        "hon",
        "pres",
        "inc",
        "corp",
        "ltd",
        "co",
        "bros",
        "vs",
        "etc",
        "al",
        "approx",
        "dept",
        "est",
        "fig",
        "no",
        "nos",
        "vol",
        "op",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "mon",
        "tue",
        "tues",
        "wed",
        "thu",
        "thur",
        "thurs",
        "fri",
        "sat",
        "sun",
        "ave",
        "blvd",
        "rd",
        "mt",
        "ft",
        "u.s",
        "u.k",
        "e.g",
        "i.e",
        "a.m",
        "p.m",
    ]
)

# A candidate boundary: terminal punctuation, optional closing quotes/brackets, then whitespace.
_BOUNDARY = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s)")
_WORD = re.compile(r"[^\W\d_][\w'’-]*|\d+(?:[.,]\d+)*", re.UNICODE)
_TERM = re.compile(r"[a-z][a-z'-]{1,}")
_SPACE = re.compile(r"\s+")

STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "aren't",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "can't",
        "cannot",
        "could",
        "couldn't",
        "did",
        "didn't",
        "do",
        "does",
        "doesn't",
        "doing",
        "don't",
        "down",
        "during",
        "each",
        "even",
        "ever",
        "every",
        "few",
        "for",
        "from",
        "further",
        "get",
        "gets",
        "got",
        "had",
        "hadn't",
        "has",
        "hasn't",
        "have",
        "haven't",
        "having",
        "he",
        "he'd",
        "he'll",
        "he's",
        "her",
        "here",
        "here's",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "how's",
        "however",
        "i",
        "i'd",
        "i'll",
        "i'm",
        "i've",
        "if",
        "in",
        "into",
        "is",
        "isn't",
        "it",
        "it's",
        "its",
        "itself",
        "just",
        "let's",
        "like",
        "made",
        "make",
        "many",
        "may",
        "me",
        "might",
        "more",
        "most",
        "much",
        "must",
        "mustn't",
        "my",
        "myself",
        "new",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "one",
        "only",
        "or",
        "other",
        "ought",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "per",
        "put",
        "quite",
        "rather",
        "really",
        "said",
        "same",
        "say",
        "says",
        "see",
        "seen",
        "shan't",
        "she",
        "she'd",
        "she'll",
        "she's",
        "should",
        "shouldn't",
        "since",
        "so",
        "some",
        "still",
        "such",
        "than",
        "that",
        "that's",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "there's",
        "these",
        "they",
        "they'd",
        "they'll",
        "they're",
        "they've",
        "thing",
        "things",
        "think",
        "this",
        "those",
        "though",
        "through",
        "thus",
        "to",
        "too",
        "two",
        "under",
        "until",
        "up",
        "upon",
        "us",
        "very",
        "via",
        "was",
        "wasn't",
        "way",
        "we",
        "we'd",
        "we'll",
        "we're",
        "we've",
        "were",
        "weren't",
        "what",
        "what's",
        "when",
        "when's",
        "where",
        "where's",
        "whether",
        "which",
        "while",
        "who",
        "who's",
        "whom",
        "whose",
        "why",
        "why's",
        "will",
        "with",
        "within",
        "without",
        "won't",
        "would",
        "wouldn't",
        "yeah",
        "yes",
        "yet",
        "you",
        "you'd",
        "you'll",
        "you're",
        "you've",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "okay",
        "oh",
        "um",
        "uh",
        "know",
        "going",
        "gonna",
        "kind",
        "sort",
        "lot",
        "lots",
        "right",
        "well",
        "actually",
    ]
)


@dataclass(frozen=True, slots=True)
class Sentence:
    """A sentence as a span of the text it was split from."""

    start: int
    end: int
    text: str  # text[start:end] with runs of whitespace collapsed

    @property
    def words(self) -> int:
        return len(words(self.text))


def _ends_with_abbreviation(chunk: str) -> bool:
    tail = chunk.rstrip(".!?…\"'”’)]").rsplit(None, 1)
    if not tail:
        return False
    word = tail[-1].lower().lstrip("(\"'“‘")
    if word in _ABBREVIATIONS:
        return True
    # An initial ("John F. Kennedy") or a dotted acronym ("U.S.") is rarely a sentence end.
    return (
        bool(re.fullmatch(r"(?:[^\W\d_]\.)*[^\W\d_]", word)) and len(word) <= 3 and word.isalpha()
    )


def split_sentences(text: str) -> list[Sentence]:
    """Split text into sentences; newlines always end a sentence (paragraphs, headlines)."""
    sentences: list[Sentence] = []
    offset = 0
    for line in text.splitlines(keepends=True):
        _split_line(line, offset, sentences)
        offset += len(line)
    return sentences


def _split_line(line: str, offset: int, out: list[Sentence]) -> None:
    start = 0
    for match in _BOUNDARY.finditer(line):
        end = match.end()
        following = line[end:].lstrip()
        if not following:
            break
        first = following[0]
        if not (first.isupper() or first.isdigit() or first in "\"'“‘(["):
            continue
        if match.group(0).startswith(".") and _ends_with_abbreviation(line[start:end]):
            continue
        if first.isdigit() and match.start() > 0 and line[match.start() - 1].isdigit():
            continue  # "$2. 6 million": a decimal broken by a tokeniser, not a sentence end
        _add(line, start, end, offset, out)
        start = end
    _add(line, start, len(line), offset, out)


def _add(line: str, start: int, end: int, offset: int, out: list[Sentence]) -> None:
    raw = line[start:end]
    stripped = raw.strip()
    if not stripped:
        return
    lead = len(raw) - len(raw.lstrip())
    real_start = offset + start + lead
    out.append(Sentence(real_start, real_start + len(stripped), _SPACE.sub(" ", stripped)))


def stem(word: str) -> str:
    """A deliberately light stemmer: plural and common verb endings only (fast, predictable)."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            if suffix == "s" and word.endswith("ss"):
                return word
            return word[: -len(suffix)]
    return word


def content_terms(text: str) -> list[str]:
    """Lower-cased, stemmed content words (stopwords and one-letter words dropped)."""
    lowered = text.lower().replace("’", "'")
    return [stem(w.strip("'-")) for w in _TERM.findall(lowered) if w not in STOPWORDS]


def term_counts(texts: Iterable[str]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(content_terms(text))
    return counts


def words(text: str) -> list[str]:
    """The words of ``text`` (letters with apostrophes and hyphens, or numbers), in order."""
    return _WORD.findall(text)


def word_count(text: str) -> int:
    return len(words(text))


def lead_text(title: str, body: str, max_words: int) -> str:
    """Title plus the first ``max_words`` words of the body, cut at a sentence end when possible."""
    parts: list[str] = [title.strip()] if title.strip() else []
    budget = max_words
    for sentence in split_sentences(body):
        if budget <= 0:
            break
        words = sentence.text.split()
        if len(words) > budget:
            parts.append(" ".join(words[:budget]))
            break
        parts.append(sentence.text)
        budget -= len(words)
    return "\n".join(parts)
