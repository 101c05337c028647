"""The enrichment pipeline: ordered steps over a batch of items, no database involved.

Steps, in order: language detection, extractive summaries and key points (and podcast segments),
named-entity recognition (English text, one batched spaCy pass), entity linking, embeddings (one
batched model pass). Each step is a plain function or object that tests call on its own; this
module only runs them in order over a batch and records where the time goes.
"""

from __future__ import annotations

import re
import time
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from herald.core.languages import normalise_language
from herald.enrich.embedding import Embedder, embedding_text
from herald.enrich.language import LanguageDetector
from herald.enrich.ner import Mention, Recognizer
from herald.enrich.segments import TranscriptPiece, segment_transcript
from herald.enrich.summarize import SummaryResult, summarize
from herald.enrich.text import word_count
from herald.entities.linking import EntityLinker, LinkedEntity, LinkResult, document_text
from herald.entities.model import EntityDraft
from herald.entities.names import alias_key

# Entity linking reads English: the recogniser and the knowledge base's names are English.
NER_LANGUAGES = frozenset({"en"})


@dataclass(frozen=True, slots=True)
class ItemText:
    """What enrichment reads of a content item."""

    content_id: str
    media_type: str
    title: str
    body: str
    transcript_segments: tuple[TranscriptPiece, ...] = ()
    language: str | None = None  # given at ingestion; detection fills it when absent
    summary: str | None = None  # kept when given at ingestion

    @property
    def text(self) -> str:
        if self.transcript_segments:
            return "\n".join(piece.text for piece in self.transcript_segments)
        return self.body


@dataclass(frozen=True, slots=True)
class EnrichedItem:
    content_id: str
    language: str | None
    summary: str
    summaries: list[dict[str, str]]
    key_points: list[str]
    segments: list[dict[str, Any]]
    word_count: int
    entities: list[LinkedEntity]
    embedding: np.ndarray[Any, np.dtype[np.float32]]
    # The name keys of the recognised mentions no active entity took (see unlinked_names).
    names: tuple[str, ...] = ()


@dataclass
class BatchResult:
    items: list[EnrichedItem]
    new_entities: list[EntityDraft]
    embedding_model: str = ""
    seconds: dict[str, float] = field(default_factory=dict)


class EnrichmentPipeline:
    def __init__(
        self,
        *,
        language: LanguageDetector,
        recognizer: Recognizer,
        linker: EntityLinker,
        embedder: Embedder,
    ) -> None:
        self.language = language
        self.recognizer = recognizer
        self.linker = linker
        self.embedder = embedder

    def run(self, items: Sequence[ItemText]) -> BatchResult:
        seconds: dict[str, float] = defaultdict(float)
        clock = _Stopwatch(seconds)

        with clock("language"):
            # Stored tags from before normalisation ("en-US") are read the same way as new ones.
            languages = [
                normalise_language(item.language)
                or normalise_language(self.language.detect(f"{item.title}\n{item.text}").code)
                for item in items
            ]
        with clock("summaries"):
            summaries = [
                _summaries(item, language) for item, language in zip(items, languages, strict=True)
            ]
        with clock("segments"):
            segments = [
                [
                    s.as_dict()
                    for s in segment_transcript(item.transcript_segments, language=language)
                ]
                if item.media_type == "podcast" and item.transcript_segments
                else []
                for item, language in zip(items, languages, strict=True)
            ]
        english = [i for i, lang in enumerate(languages) if (lang or "en") in NER_LANGUAGES]
        # The embedding model (torch) and spaCy's recogniser each keep a core busy and release
        # the GIL for their heavy loops: running them side by side nearly halves the wall time
        # on a two-core machine.
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="embed") as pool:
            embedding_started = time.perf_counter()
            future = pool.submit(
                self.embedder.embed, [embedding_text(item.title, item.text) for item in items]
            )
            with clock("ner"):
                found = self.recognizer.recognize(
                    [document_text(items[i].title, items[i].text) for i in english]
                )
            mentions: dict[int, list[Mention]] = dict(zip(english, found, strict=True))
            drafts: dict[str, EntityDraft] = {}
            links: list[list[LinkedEntity]] = []
            names: list[tuple[str, ...]] = []
            with clock("linking"):
                for index, item in enumerate(items):
                    if index not in mentions:
                        links.append([])
                        names.append(())
                        continue
                    # The knowledge base is left as it is: a name it lacks is staged as a
                    # candidate when stored (herald.entities.staging), and an item's links
                    # never depend on the items read before it.
                    result = self.linker.link(item.title, item.text, mentions[index])
                    for draft in result.new_entities:
                        drafts.setdefault(draft.id, draft)
                    links.append(result.entities)
                    names.append(unlinked_names(mentions[index], result))
            with clock("embedding_wait"):
                vectors = future.result()
            seconds["embedding"] += time.perf_counter() - embedding_started
        out = []
        for index, item in enumerate(items):
            summary = summaries[index]
            out.append(
                EnrichedItem(
                    content_id=item.content_id,
                    language=languages[index],
                    summary=item.summary if item.summary else summary.summary,
                    summaries=summary.summaries(),
                    key_points=list(summary.key_points),
                    segments=segments[index],
                    word_count=word_count(item.text),  # a CJK character is one word
                    entities=links[index],
                    embedding=vectors[index],
                    names=names[index],
                )
            )
        return BatchResult(out, list(drafts.values()), self.embedder.model_name, dict(seconds))


def unlinked_names(mentions: Sequence[Mention], result: LinkResult) -> tuple[str, ...]:
    """The name keys of ``mentions`` that no knowledge-base entity of ``result`` took: names
    left unlinked or linked to a new (candidate) entity, whose links may change once an entity
    of that name is confirmed."""
    drafted = {d.id for d in result.new_entities}
    taken = {
        alias_key(surface)
        for linked in result.entities
        if linked.entity_id not in drafted
        for surface in linked.surfaces
    }
    keys = {alias_key(_POSSESSIVE.sub("", m.text)) for m in mentions}
    return tuple(sorted(k for k in keys - taken if k))


_POSSESSIVE = re.compile(r"['’]s?$")


def _summaries(item: ItemText, language: str | None) -> SummaryResult:
    # News leads with the essentials; a conversation does not, so position counts less there.
    # An article body may be wrapped mid-sentence (plain text, <br> in a paragraph); a
    # transcript's lines are speaker turns and always end where they end.
    podcast = item.media_type == "podcast"
    return summarize(
        item.title,
        item.text,
        position_weight=0.1 if podcast else 0.35,
        language=language,
        wrapped_lines=not podcast,
    )


class _Stopwatch:
    def __init__(self, seconds: dict[str, float]) -> None:
        self._seconds = seconds

    def __call__(self, step: str) -> _Step:
        return _Step(self._seconds, step)


class _Step:
    def __init__(self, seconds: dict[str, float], step: str) -> None:
        self._seconds = seconds
        self._step = step
        self._started = 0.0
        self._cpu_started = 0.0

    def __enter__(self) -> None:
        self._started = time.perf_counter()
        self._cpu_started = time.process_time()

    def __exit__(self, *exc: object) -> None:
        self._seconds[self._step] += time.perf_counter() - self._started
        # CPU seconds of the whole process (all threads): what the step costs on a busy machine.
        self._seconds[f"{self._step}_cpu"] += time.process_time() - self._cpu_started
