"""Named-entity recognition with spaCy, batched, with every pipe but the recogniser disabled."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final, Protocol

from herald.enrich.model_files import SPACY_MODEL, bundled_spacy_folder, verify_model_folder
from herald.enrich.text import split_sentences, words

DEFAULT_SPACY_MODEL: Final = SPACY_MODEL

# spaCy (OntoNotes) labels Herald links; numbers, dates, laws and works are not entities of the
# knowledge base. NORP (nationalities, groups) only links to a known place ("French" -> France).
LINKABLE_LABELS: Final = frozenset(
    {"PERSON", "ORG", "GPE", "LOC", "FAC", "PRODUCT", "EVENT", "NORP"}
)


_CASE_SAMPLE_WORDS = 100  # words before a text's lack of capitals counts as not marking case
_PRONOUN_I = frozenset({"I", "I'm", "I've", "I'll", "I'd", "I’m", "I’ve", "I’ll", "I’d"})


# The form of a cached list of mentions: caches of the recognisers' output key on it, so a
# change of :class:`Mention`'s fields never reads an older cache.
MENTION_FORMAT = 2


@dataclass(frozen=True, slots=True)
class Mention:
    """A recognised name: ``text`` is ``document[start:end]``."""

    text: str
    label: str
    start: int
    end: int
    # How sure the recogniser is of the name and its label (0-1); None when it gives no
    # confidence (spaCy's does not) or a rule, not a model, found the name.
    score: float | None = None


class Recognizer(Protocol):
    """What enrichment needs of a recogniser: mentions per text, in text order."""

    model_name: str

    def recognize(self, texts: Sequence[str]) -> list[list[Mention]]: ...


def _checked_location(model: str) -> str | Path:
    """The bundled pipeline's folder once its files match the recorded digests; another package
    name or a folder (the operator's own pipeline) as given."""
    if model != SPACY_MODEL:
        return model
    folder = bundled_spacy_folder()
    verify_model_folder(SPACY_MODEL, folder)
    return folder


class EntityRecognizer:
    """Loads a spaCy pipeline once and runs only its ``ner`` component over batches of texts."""

    def __init__(
        self,
        model: str = DEFAULT_SPACY_MODEL,
        *,
        batch_size: int = 32,
        max_chars: int = 0,
        name_passages_only: bool = True,
    ) -> None:
        import spacy
        from thinc.api import NumpyOps

        _single_threaded_blas()
        nlp: Any = spacy.load(_checked_location(model))
        # The small English pipeline's recogniser has its own token-to-vector layer, so the
        # shared tok2vec, tagger, parser and lemmatiser are pure cost here.
        unused = [name for name in nlp.pipe_names if name != "ner"]
        nlp.select_pipes(disable=unused)
        if "ner" not in nlp.pipe_names:
            raise ValueError(f"spaCy model {model!r} has no 'ner' component")
        ops = NumpyOps(use_blis=False)  # see _numpy_blas
        for node in nlp.get_pipe("ner").model.walk():
            node.ops = ops
        self._nlp = nlp
        self._batch_size = batch_size
        self._max_chars = max_chars
        self._name_passages_only = name_passages_only
        self._lock = threading.Lock()
        self.model_name = model

    def recognize(self, texts: Sequence[str]) -> list[list[Mention]]:
        """Mentions per text, in text order. ``max_chars`` > 0 reads only that much of each."""
        if self._max_chars:
            texts = [cut_text(text, self._max_chars) for text in texts]
        # What the recogniser reads: (text index, offset in the text, passage).
        pieces = [
            (index, start, text[start:end])
            for index, text in enumerate(texts)
            for start, end in (
                name_passages(text) if self._name_passages_only else [(0, len(text))]
            )
        ]
        out: list[list[Mention]] = [[] for _ in texts]
        with self._lock, _numpy_blas():
            docs = self._nlp.pipe((piece for _, _, piece in pieces), batch_size=self._batch_size)
            for (index, offset, _), doc in zip(pieces, docs, strict=True):
                out[index].extend(
                    Mention(ent.text, ent.label_, offset + ent.start_char, offset + ent.end_char)
                    for ent in doc.ents
                    if ent.label_ in LINKABLE_LABELS
                )
        return out


def name_passages(text: str) -> list[tuple[int, int]]:
    """The spans of ``text`` that can hold a name: runs of consecutive sentences that each have
    a capitalised word other than a sentence-initial stop word or "I" (every label Herald links
    is a proper name). Sentences without one are not read: on the benchmark corpus that skips
    12% of news and 39% of transcript text, and 99.3% of the linked entities are the same
    (docs/benchmarks.md). A text that does not mark case (fewer than one word in 200 capitalised
    inside a sentence, as in lower-case speech-to-text output) is read whole."""
    runs, whole = _name_runs(text)
    if whole:
        return [(0, len(text))]
    return [(run[0][0], run[-1][1]) for run in runs]


def name_sentences(text: str) -> list[list[tuple[int, int]]]:
    """The sentences :func:`name_passages` reads, as runs of ``(start, end)`` spans: every
    sentence of a text that does not mark case, else the runs of sentences that can hold a
    name."""
    return _name_runs(text)[0]


def _name_runs(text: str) -> tuple[list[list[tuple[int, int]]], bool]:
    runs: list[list[tuple[int, int]]] = []
    every: list[tuple[int, int]] = []
    word_total = inner_capitals = 0
    for sentence in split_sentences(text):
        found = words(sentence.text)
        every.append((sentence.start, sentence.end))
        capitals = sum(1 for w in found[1:] if _has_capital(w) and w not in _PRONOUN_I)
        word_total += len(found)
        inner_capitals += capitals
        if not found or not (capitals or _may_start_a_name(found[0])):
            continue
        if runs and _adjacent(text, runs[-1][-1][1], sentence.start):
            runs[-1].append((sentence.start, sentence.end))
        else:
            runs.append([(sentence.start, sentence.end)])
    if word_total >= _CASE_SAMPLE_WORDS and inner_capitals * 200 < word_total:
        return ([every] if every else []), True
    return runs, False


def _may_start_a_name(first: str) -> bool:
    return _has_capital(first[1:]) or (first[0].isupper() and first.lower() not in _stop_words())


def stop_words() -> frozenset[str]:
    """spaCy's English stop words (lower case)."""
    return _stop_words()


@cache
def _stop_words() -> frozenset[str]:
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(STOP_WORDS)


def _has_capital(word: str) -> bool:
    return any(map(str.isupper, word))


def _adjacent(text: str, end: int, start: int) -> bool:
    """Only white space between two sentences: nothing was skipped between them."""
    return not text[end:start].strip()


def _numpy_blas() -> AbstractContextManager[Any]:
    """thinc multiplies matrices with its bundled BLIS by default, whose CPU detection falls back
    to the generic reference kernel on CPUs it does not know (AMD Zen 4 here); numpy's OpenBLAS
    picks a tuned kernel. The loaded recogniser's layers get numpy ops directly; the step model
    it builds for each batch takes thinc's current ops (per thread), so predicting runs inside
    this. Same entities (2,000 articles compared), NER 46 -> 35 ms of CPU per article:
    docs/benchmarks.md."""
    from thinc.api import use_ops

    return use_ops("numpy", use_blis=False)


def _single_threaded_blas() -> None:
    """One BLAS thread per process: the recogniser's matrices are small, so a second OpenBLAS
    thread only spins (35 -> 56 ms of CPU per article for the same wall time), and the embedding
    already runs on the other core. Applies to the whole process (numpy elsewhere included)."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")


def cut_text(text: str, limit: int) -> str:
    """The text up to ``limit`` characters, ending at a sentence or line end when possible."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    cut = max(head.rfind(". "), head.rfind("\n"), head.rfind("? "), head.rfind("! "))
    return head[: cut + 1] if cut > limit // 2 else head
