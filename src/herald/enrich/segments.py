"""Podcast segments: timed transcript pieces grouped into topical segments of a few minutes.

TextTiling-style: the lexical cohesion between the minute before and the minute after each
possible boundary is measured, and dynamic programming picks the boundaries with the least
cohesion while keeping every segment between ``min_seconds`` and ``max_seconds`` long (close to
``target_seconds``). Each segment then gets an extractive title, summary and key points.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from herald.enrich.summarize import best_sentence, summarize
from herald.enrich.text import content_terms, split_sentences, word_count


@dataclass(frozen=True, slots=True)
class TranscriptPiece:
    start: float
    end: float
    text: str
    speaker: str | None = None


@dataclass(frozen=True, slots=True)
class SegmentPlan:
    min_seconds: float = 120.0
    target_seconds: float = 240.0
    max_seconds: float = 480.0
    window_seconds: float = 60.0


@dataclass(frozen=True, slots=True)
class PodcastSegment:
    index: int
    start_seconds: float
    end_seconds: float
    speaker: str | None
    title: str
    summary: str
    key_points: tuple[str, ...]

    def as_dict(self) -> dict[str, object]:
        return {
            "index": self.index,
            "start_seconds": round(self.start_seconds, 3),
            "end_seconds": round(self.end_seconds, 3),
            "speaker": self.speaker,
            "title": self.title,
            "summary": self.summary,
            "key_points": list(self.key_points),
        }


@dataclass(frozen=True, slots=True)
class _Unit:
    start: float
    end: float
    text: str
    speaker: str | None
    terms: Counter[str]


def segment_transcript(
    pieces: Sequence[TranscriptPiece],
    plan: SegmentPlan | None = None,
    *,
    language: str | None = None,
) -> list[PodcastSegment]:
    """Group timed pieces into topical segments with titles, summaries and key points
    (``language``: the transcript's language code, for sentence ends and stop words)."""
    plan = plan or SegmentPlan()
    units = _units(pieces, language)
    if not units:
        return []
    bounds = _boundaries(units, plan)
    segments = []
    for index, (first, last) in enumerate(itertools.pairwise(bounds)):
        segments.append(_describe(index, units[first:last], language))
    return segments


def _units(pieces: Sequence[TranscriptPiece], language: str | None) -> list[_Unit]:
    """Pieces in time order, long ones cut into sentences with times shared out by length."""
    units: list[_Unit] = []
    for piece in sorted(pieces, key=lambda p: (p.start, p.end)):
        text = piece.text.strip()
        if not text:
            continue
        end = max(piece.end, piece.start)
        sentences = split_sentences(text, language) if end - piece.start > 30 else []
        if len(sentences) <= 1:
            terms = Counter(content_terms(text, language))
            units.append(_Unit(piece.start, end, text, piece.speaker, terms))
            continue
        total = sum(len(s.text) for s in sentences)
        cursor = piece.start
        for sentence in sentences:
            length = (end - piece.start) * len(sentence.text) / total
            units.append(
                _Unit(
                    cursor,
                    cursor + length,
                    sentence.text,
                    piece.speaker,
                    Counter(content_terms(sentence.text, language)),
                )
            )
            cursor += length
    return units


def _boundaries(units: list[_Unit], plan: SegmentPlan) -> list[int]:
    """Unit indexes where segments start, plus ``len(units)`` at the end."""
    n = len(units)
    total = units[-1].end - units[0].start
    if total <= plan.min_seconds * 1.5 or n < 2:
        return [0, n]
    gap = [_gap_cost(units, i, plan.window_seconds) for i in range(n)]  # boundary before unit i
    starts = [u.start for u in units]
    end_of = [u.end for u in units]
    best = [math.inf] * (n + 1)
    back = [-1] * (n + 1)
    best[0] = 0.0
    for stop in range(1, n + 1):
        stop_time = end_of[stop - 1]
        for first in range(stop - 1, -1, -1):
            duration = stop_time - starts[first]
            if duration < plan.min_seconds and not (first == 0 and stop == n):
                continue
            if duration > plan.max_seconds:
                break
            if best[first] == math.inf:
                continue
            deviation = (duration - plan.target_seconds) / plan.target_seconds
            cost = best[first] + (gap[first] if first else 0.0) + 0.5 * deviation * deviation
            if cost < best[stop]:
                best[stop], back[stop] = cost, first
    if best[n] == math.inf:
        return _fixed_boundaries(units, plan)
    bounds = [n]
    while bounds[-1] > 0:
        bounds.append(back[bounds[-1]])
    return bounds[::-1]


def _gap_cost(units: list[_Unit], index: int, window: float) -> float:
    """Cohesion (0-1) across a boundary before ``units[index]``: low means a topic shift."""
    if index == 0:
        return 0.0
    pivot = units[index].start
    before: Counter[str] = Counter()
    after: Counter[str] = Counter()
    i = index - 1
    while i >= 0 and units[i].end >= pivot - window:
        before.update(units[i].terms)
        i -= 1
    j = index
    while j < len(units) and units[j].start <= pivot + window:
        after.update(units[j].terms)
        j += 1
    cohesion = _cosine(before, after)
    speaker_change = units[index].speaker != units[index - 1].speaker
    return cohesion - (0.05 if speaker_change else 0.0)


def _fixed_boundaries(units: list[_Unit], plan: SegmentPlan) -> list[int]:
    """Fallback when no plan fits (e.g. one piece longer than max_seconds): cut by time."""
    bounds = [0]
    for i, unit in enumerate(units):
        if i and unit.start - units[bounds[-1]].start >= plan.target_seconds:
            bounds.append(i)
    bounds.append(len(units))
    return bounds


def _describe(index: int, units: list[_Unit], language: str | None) -> PodcastSegment:
    text = "\n".join(u.text for u in units)
    result = summarize("", text, position_weight=0.1, language=language)
    words_by_speaker: Counter[str] = Counter()
    for unit in units:
        if unit.speaker:
            words_by_speaker[unit.speaker] += word_count(unit.text)
    speaker = None
    if words_by_speaker:
        name, words = words_by_speaker.most_common(1)[0]
        if words >= 0.6 * sum(words_by_speaker.values()):
            speaker = name
    title = best_sentence(text, language=language) or result.brief or _first_words(text)
    return PodcastSegment(
        index=index,
        start_seconds=units[0].start,
        end_seconds=units[-1].end,
        speaker=speaker,
        title=title,
        summary=result.summary,
        key_points=result.key_points,
    )


def _first_words(text: str) -> str:
    sentences = split_sentences(text)
    return sentences[0].text if sentences else ""


def _cosine(a: Counter[str], b: Counter[str]) -> float:
    if not a or not b:
        return 0.0
    if len(a) > len(b):
        a, b = b, a
    dot = sum(v * b.get(k, 0) for k, v in a.items())
    if not dot:
        return 0.0
    na = math.sqrt(sum(v * v for v in a.values()))
    nb = math.sqrt(sum(v * v for v in b.values()))
    return dot / (na * nb)
