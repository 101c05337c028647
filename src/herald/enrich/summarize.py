"""Extractive summaries and key points: every output sentence is a sentence of the input.

Sentences are scored by centrality (similarity to the document's term centroid), position (news
puts the essentials first; transcripts do not, so position counts less there) and overlap with
the title, then picked with maximal marginal relevance so that the picks do not repeat each
other. Picks are shown in document order, which keeps the text readable.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from herald.enrich.text import Sentence, content_terms, length_in_words, split_sentences

# Lines that are navigation, bylines or boilerplate rather than statements.
_BOILERPLATE = re.compile(
    r"^(by\s+[A-Z]|photo|image|credit|copyright|©|all rights reserved|click here|read more|"
    r"subscribe|sign up|advertisement|related:|share this|follow us|updated:)",
    re.IGNORECASE,
)
_DISCOURSE_OPENER = re.compile(
    r"^(so|and|but|yeah|yes|okay|ok|well|i mean|i think|um|uh|like|right|now)\b", re.IGNORECASE
)
_URLISH = re.compile(r"https?://|www\.|\S+@\S+\.\w+")
# A "sentence" of bracketed groups only, e.g. "(The San Diego Union-Tribune) (La Jornada)": the
# sources a news summary cites, not a statement.
_CITATIONS_ONLY = re.compile(r"^(?:\([^()]*\)\W*)+$|^(?:\[[^\[\]]*\]\W*)+$")
_MIN_WORDS = 6
_MAX_WORDS = 60
_KEY_POINT_MAX_WORDS = 40


@dataclass(frozen=True, slots=True)
class SummaryResult:
    summary: str  # 2-3 sentences
    brief: str  # 1 sentence
    detailed: str  # up to 6 sentences
    key_points: tuple[str, ...]  # 3-5 sentences when the text has that many

    def summaries(self) -> list[dict[str, str]]:
        """The API's ``summaries`` list."""
        out = []
        if self.brief:
            out.append({"style": "brief", "text": self.brief})
        if self.detailed:
            out.append({"style": "detailed", "text": self.detailed})
        return out


EMPTY_SUMMARY = SummaryResult("", "", "", ())


# What a statement ends with (a sentence end, or a closing quote or bracket after one).
_ENDINGS = ".!?\"'”’)。！？」』»“؟۔।။។"


@dataclass(frozen=True, slots=True)
class _Candidate:
    index: int
    sentence: Sentence
    terms: Counter[str]
    norm: float
    words: float  # length for the limits: words, a CJK character counting half


def summarize(
    title: str,
    text: str,
    *,
    position_weight: float = 0.35,
    language: str | None = None,
    wrapped_lines: bool = False,
) -> SummaryResult:
    """Summaries and key points of one text (an article body or a podcast segment).

    ``language`` (a language code; ``None`` reads English rules) chooses how sentences end and
    which words are stop words; ``wrapped_lines`` joins lines wrapped mid-sentence (article
    bodies, not transcripts)."""
    sentences = split_sentences(text, language, wrapped_lines=wrapped_lines)
    candidates = _candidates(title, sentences, language)
    if not candidates:
        return EMPTY_SUMMARY
    relevance = _relevance(title, candidates, position_weight, language)
    n = len(candidates)

    summary_size = 3 if n >= 6 else min(2, n)
    sim = _Similarity()
    summary = _mmr(candidates, relevance, summary_size, max_words=_MAX_WORDS, similarity=sim)
    brief = _mmr(candidates, relevance, 1, max_words=45, similarity=sim) or summary[:1]
    detailed_size = min(6, max(summary_size + 1, n // 2))
    detailed = _mmr(candidates, relevance, detailed_size, max_words=_MAX_WORDS, similarity=sim)
    key_count = 5 if n >= 12 else 4 if n >= 8 else min(3, n)
    short_bias = [
        score * (1.0 if c.words <= 30 else 0.75)
        for score, c in zip(relevance, candidates, strict=False)
    ]
    key_points = _mmr(
        candidates, short_bias, key_count, max_words=_KEY_POINT_MAX_WORDS, similarity=sim
    )
    if len(key_points) < key_count:  # a text of long sentences still gets its points
        key_points = _mmr(candidates, short_bias, key_count, max_words=_MAX_WORDS, similarity=sim)
    return SummaryResult(
        summary=_join(summary),
        brief=_join(brief),
        detailed=_join(detailed),
        key_points=tuple(c.sentence.text for c in sorted(key_points, key=lambda c: c.index)),
    )


def summarize_many(
    items: Sequence[tuple[str, str]], *, position_weight: float = 0.35
) -> list[SummaryResult]:
    return [summarize(title, text, position_weight=position_weight) for title, text in items]


def best_sentence(
    text: str, *, min_words: int = 4, max_words: int = 14, language: str | None = None
) -> str | None:
    """The most central short sentence of a text (used as an extractive segment title)."""
    sentences = [
        s
        for s in split_sentences(text, language)
        if min_words <= length_in_words(s.text) <= max_words
    ]
    sentences = [
        s for s in sentences if not _URLISH.search(s.text) and not s.text.endswith(("?", "？"))
    ]
    if not sentences:
        return None
    centroid = Counter(content_terms(text, language))
    best: tuple[float, int, str] | None = None
    for index, sentence in enumerate(sentences):
        terms = Counter(content_terms(sentence.text, language))
        if len(terms) < 3:
            continue  # "Yes, it is." says nothing about the topic
        score = _cosine(terms, centroid)
        if _DISCOURSE_OPENER.match(sentence.text):
            score *= 0.7  # spoken openers ("So", "I mean") make weak titles
        if best is None or score > best[0]:
            best = (score, -index, sentence.text)
    return best[2] if best else None


def _candidates(title: str, sentences: list[Sentence], language: str | None) -> list[_Candidate]:
    title_key = " ".join(title.lower().split())
    out: list[_Candidate] = []
    for index, sentence in enumerate(sentences):
        text = sentence.text
        words = length_in_words(text)
        if not _MIN_WORDS <= words <= 2 * _MAX_WORDS:
            continue
        if _BOILERPLATE.match(text) or _URLISH.search(text) or _CITATIONS_ONLY.match(text):
            continue
        if " ".join(text.lower().split()) == title_key:
            continue  # the headline repeated as the first line of the body
        if text[-1] not in _ENDINGS and words < 12:
            continue  # a short fragment without an ending: a sub-heading or a caption
        letters = sum(ch.isalpha() for ch in text)
        if letters < 0.6 * len(text) and not text.isascii():
            # Vowel signs of Indic scripts are marks, not letters, but are part of words.
            letters += sum(unicodedata.category(ch)[0] == "M" for ch in text)
        if letters < 0.6 * len(text):
            continue  # tables, numbers, scores
        terms = Counter(content_terms(text, language))
        if not terms:
            continue
        norm = math.sqrt(sum(v * v for v in terms.values()))
        out.append(_Candidate(index, sentence, terms, norm, words))
    return out


def _relevance(
    title: str, candidates: list[_Candidate], position_weight: float, language: str | None
) -> list[float]:
    centroid: Counter[str] = Counter()
    for candidate in candidates:
        centroid.update(candidate.terms)
    title_terms = set(content_terms(title, language))
    centroid_sq = sum(v * v for v in centroid.values())
    scores = []
    for rank, candidate in enumerate(candidates):
        # Similarity to the rest of the text (centroid minus the sentence itself), in closed form.
        dot = sum(v * centroid[k] for k, v in candidate.terms.items())
        self_sq = candidate.norm * candidate.norm
        rest_dot = dot - self_sq
        rest_sq = centroid_sq - 2 * dot + self_sq
        centrality = rest_dot / (candidate.norm * math.sqrt(rest_sq)) if rest_sq > 0 else 0.0
        position = 1.0 / (1.0 + 0.25 * rank)
        overlap = (
            len(title_terms & candidate.terms.keys()) / len(title_terms) if title_terms else 0.0
        )
        content_weight = 1.0 - position_weight
        scores.append(
            content_weight * (0.7 * max(centrality, 0.0) + 0.3 * overlap)
            + position_weight * position
        )
    return scores


def _mmr(
    candidates: list[_Candidate],
    relevance: list[float],
    k: int,
    *,
    max_words: int,
    similarity: _Similarity,
) -> list[_Candidate]:
    pool = [
        (score, c) for score, c in zip(relevance, candidates, strict=False) if c.words <= max_words
    ]
    redundancy = [0.0] * len(pool)
    chosen: list[_Candidate] = []
    taken = [False] * len(pool)
    while len(chosen) < k:
        best_index = -1
        best_value = -math.inf
        for i, (score, _) in enumerate(pool):
            if taken[i]:
                continue
            value = 0.7 * score - 0.3 * redundancy[i]
            if value > best_value:
                best_value, best_index = value, i
        if best_index < 0:
            break
        taken[best_index] = True
        picked = pool[best_index][1]
        if redundancy[best_index] > 0.8:
            continue  # a near-duplicate sentence (wire copy often repeats itself)
        chosen.append(picked)
        for i, (_, candidate) in enumerate(pool):
            if not taken[i]:
                redundancy[i] = max(redundancy[i], similarity(candidate, picked))
    return sorted(chosen, key=lambda c: c.index)


class _Similarity:
    """Cosine similarity between candidate sentences, computed once per pair."""

    def __init__(self) -> None:
        self._cache: dict[tuple[int, int], float] = {}

    def __call__(self, a: _Candidate, b: _Candidate) -> float:
        key = (a.index, b.index) if a.index < b.index else (b.index, a.index)
        value = self._cache.get(key)
        if value is None:
            small, large = (a, b) if len(a.terms) <= len(b.terms) else (b, a)
            dot = sum(v * large.terms.get(t, 0) for t, v in small.terms.items())
            value = dot / (a.norm * b.norm) if dot else 0.0
            self._cache[key] = value
        return value


def _join(chosen: list[_Candidate]) -> str:
    out = ""
    for candidate in sorted(chosen, key=lambda c: c.index):
        text = candidate.sentence.text
        # Chinese and Japanese write sentences one after the other, without a space.
        out += text if not out or out[-1] in _CJK_JOIN else " " + text
    return out


_CJK_JOIN = "。！？」』"


def _cosine(a: Counter[str], b: Counter[str]) -> float:
    if len(a) > len(b):
        a, b = b, a
    dot = sum(v * b.get(k, 0) for k, v in a.items() if v > 0)
    if dot <= 0:
        return 0.0
    na = math.sqrt(sum(v * v for v in a.values() if v > 0))
    nb = math.sqrt(sum(v * v for v in b.values() if v > 0))
    return dot / (na * nb) if na and nb else 0.0
