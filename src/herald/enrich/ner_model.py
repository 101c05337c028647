"""Herald's own named-entity recogniser on ONNX Runtime: no torch, no spaCy.

A 3-layer BERT encoder fine-tuned on annotated news and Wikipedia articles (CoNLL-2003 English
train split, wikigold; the model's README in ``herald/data/models/recognizer`` gives its data,
licence and scores) tags each word ``O`` or ``B-``/``I-`` of a kind: person, organisation,
place, nationality or group, event, product, or another name (not linked). It shares the
embedding model's uncased word pieces and their embedding table; capitals reach it as a casing
feature per word (:mod:`herald.enrich.ner_words`), which is also how headlines in title case or
all capitals are read without being taken for names throughout.

The graph is assembled from the shipped weights (float16) plus the embedding model's word table
and, by default, quantised to int8 with fixed activation scales (recorded ranges shipped beside
the weights; :mod:`herald.enrich.onnx_static`), so that a text's names never depend on the texts
read in the same batch; with ``cache_dir`` it is built once and later processes load it, checked
against its recorded digest.

What is read: the sentences that can hold a name (:func:`herald.enrich.ner.name_sentences`),
packed into windows of at most 128 word pieces. A long passage is cut at sentence ends into
windows that overlap, so that every sentence is tagged with sentences before it in view.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import numpy as np

from herald.core.files import sha256_file
from herald.enrich.bert_onnx import BUILDER_VERSION, BertShape, build_tagger_graph
from herald.enrich.model_files import (
    EMBEDDING_MODEL,
    RECOGNIZER_MODEL,
    bundled_embedding_folder,
    bundled_recognizer_folder,
    verify_model_folder,
)
from herald.enrich.ner import Mention, cut_text, name_sentences
from herald.enrich.ner_tags import allowed_transitions, decode_many, spans, start_scores
from herald.enrich.ner_words import Word, casing_ids, split_words, windows
from herald.enrich.onnx_graphs import cached_graph, quantize, session_options
from herald.enrich.onnx_static import with_fixed_scales

log = logging.getLogger(__name__)

_WEIGHTS = "recognizer.safetensors"
_META = "recognizer.json"
RANGES = "activation_ranges.json"
# Word pieces of context a window repeats from the one before. On CoNLL dev, 0 and 32 give the
# same F1 (0.922); 32 costs 11% more CPU than 0.
_OVERLAP = 16
# The kinds Herald links, under the labels the linker reads (spaCy's OntoNotes names).
LABELS: Final = {
    "PER": "PERSON",
    "ORG": "ORG",
    "LOC": "GPE",
    "NORP": "NORP",
    "EVENT": "EVENT",
    "PRODUCT": "PRODUCT",
}


# Words whose pieces are remembered (lower-cased word -> pieces): news repeats its words, and
# the tokenizer's per-call cost is most of what splitting a word costs.
_PIECE_CACHE_WORDS = 200_000


@dataclass
class _Unit:
    """A sentence (or part of an over-long one) of a run, with its words' pieces."""

    words: list[Word]
    casing: list[int]
    pieces: list[list[int]]
    size: int = field(init=False)  # word pieces

    def __post_init__(self) -> None:
        self.size = sum(len(p) for p in self.pieces)


class TrainedRecognizer:
    """Loads the recogniser once; :meth:`recognize` runs it over batches of texts."""

    def __init__(
        self,
        folder: Path | None = None,
        *,
        batch_size: int = 16,
        max_chars: int = 0,
        precision: str = "int8",
        cache_dir: Path | None = None,
    ) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        if folder is None:
            folder = bundled_recognizer_folder()
            digests = verify_model_folder(RECOGNIZER_MODEL, folder)
        else:
            needed = (_WEIGHTS,) if precision == "float32" else (_WEIGHTS, RANGES)
            digests = {name: sha256_file(folder / name) for name in needed}
        weights_sha256 = digests[_WEIGHTS]
        meta: dict[str, Any] = json.loads((folder / _META).read_text("utf-8"))
        base = bundled_embedding_folder()
        base_sha256 = verify_model_folder(EMBEDDING_MODEL, base)["model.safetensors"]
        if base_sha256 != meta["base_weights_sha256"]:
            raise ValueError(
                f"recogniser {folder}: trained on a word table with SHA-256 "
                f"{meta['base_weights_sha256']}, the embedding model's is {base_sha256}"
            )
        # int8: the activation ranges are part of the graph (cached mentions keyed by this name
        # are not reused across them)
        variant = precision if precision == "float32" else f"{precision}-{digests[RANGES][:8]}"
        self.model_name = f"{RECOGNIZER_MODEL}@{weights_sha256[:12]}#{variant}"
        self._tags: list[str] = list(meta["tags"])
        self._kinds = [t[2:] if t != "O" else "" for t in self._tags]
        # each kind's B- and I- columns of the tag scores
        self._columns = {
            kind: [i for i, k in enumerate(self._kinds) if k == kind]
            for kind in set(self._kinds) - {""}
        }
        self._transitions = allowed_transitions(self._tags)
        self._start = start_scores(self._tags)
        self._max_pieces = int(meta["max_pieces"])
        self._batch_size = batch_size
        self._max_chars = max_chars
        tokenizer = Tokenizer.from_file(str(base / "tokenizer.json"))
        tokenizer.no_padding()
        tokenizer.no_truncation()
        self._tokenizer = tokenizer
        self._tokenizer_lock = threading.Lock()
        self._pieces: dict[str, list[int]] = {}
        key = f"{weights_sha256[:16]}-{base_sha256[:12]}-v{BUILDER_VERSION}-{variant}"
        graph = cached_graph(cache_dir, f"recognizer-{key}", lambda: _build(folder, precision))
        self._session = ort.InferenceSession(
            graph, session_options(ort), providers=["CPUExecutionProvider"]
        )

    def recognize(self, texts: Sequence[str]) -> list[list[Mention]]:
        """Mentions of the kinds Herald links, per text, in text order, each with the model's
        confidence in it (:meth:`scored_names`)."""
        out: list[list[Mention]] = []
        for text, found in zip(texts, self.scored_names(texts), strict=True):
            out.append(
                [
                    Mention(text[a:b], LABELS[kind], a, b, round(score, 4))
                    for a, b, kind, score in found
                    if kind in LABELS
                ]
            )
        return out

    def names(self, texts: Sequence[str]) -> list[list[tuple[int, int, str]]]:
        """Every name the model tags, ``(start, end, kind)`` with its own kinds (MISC included)."""
        return [[(a, b, kind) for a, b, kind, _ in found] for found in self.scored_names(texts)]

    def scored_names(self, texts: Sequence[str]) -> list[list[tuple[int, int, str, float]]]:
        """Every name the model tags, ``(start, end, kind, confidence)``: the confidence is the
        mean over the name's words of the model's probability that the word is part of a name
        of that kind (its ``B-`` and ``I-`` tags together)."""
        runs: list[tuple[int, list[_Unit]]] = []
        for index, text in enumerate(texts):
            cut = cut_text(text, self._max_chars) if self._max_chars else text
            for sentences in name_sentences(cut):
                units = [u for start, end in sentences for u in self._units(cut, start, end)]
                if units:
                    runs.append((index, units))
        # Each window: (run, first unit, stop, first unit kept); kept units take its scores.
        jobs = [
            (r, first, stop, keep)
            for r, (_, units) in enumerate(runs)
            for first, stop, keep in windows(
                [u.size for u in units], self._max_pieces - 2, _OVERLAP
            )
        ]
        scores: list[list[np.ndarray[Any, Any] | None]] = [[None] * len(u) for _, u in runs]
        for chosen in self._batches(jobs, runs):
            self._score(
                [(runs[r][1], first, stop, keep) for r, first, stop, keep in chosen],
                scores,
                [c[0] for c in chosen],
            )
        out: list[list[tuple[int, int, str, float]]] = [[] for _ in texts]
        matrices = [np.concatenate([s for s in u if s is not None]) for u in scores]
        paths = decode_many(matrices, self._transitions, self._start)
        for (index, units), path, matrix in zip(runs, paths, matrices, strict=True):
            words = [w for u in units for w in u.words]
            text = texts[index]
            for first, stop, kind in spans(self._tags, path):
                for a, b in _paragraph_parts(text, words, first, stop):
                    confidence = float(np.exp(matrix[a:b, self._columns[kind]]).sum(axis=1).mean())
                    out[index].append((words[a].start, words[b - 1].end, kind, confidence))
        return out

    def _batches(
        self, jobs: list[tuple[int, int, int, int]], runs: list[tuple[int, list[_Unit]]]
    ) -> list[list[tuple[int, int, int, int]]]:
        """The windows of all texts in batches of at most ``batch_size``, windows of like size
        together (little padding). A text's names do not depend on its batch: the int8 graph
        quantises activations with fixed scales (:mod:`herald.enrich.onnx_static`)."""
        order = sorted(jobs, key=lambda j: sum(u.size for u in runs[j[0]][1][j[1] : j[2]]))
        return [
            order[start : start + self._batch_size]
            for start in range(0, len(order), self._batch_size)
        ]

    def _units(self, text: str, start: int, end: int) -> list[_Unit]:
        words = split_words(text, start, end)
        if not words:
            return []
        pieces = self._word_pieces([w.text.lower() for w in words])
        casing = casing_ids([w.text for w in words])
        limit = self._max_pieces - 2
        units, first, size = [], 0, 0
        for i, word_pieces in enumerate(pieces):
            if size + len(word_pieces) > limit and i > first:
                units.append(_Unit(words[first:i], casing[first:i], pieces[first:i]))
                first, size = i, 0
            size += len(word_pieces)
        units.append(_Unit(words[first:], casing[first:], pieces[first:]))
        return units

    def _word_pieces(self, words: list[str]) -> list[list[int]]:
        """Each word's pieces (a word is split alone, so remembering its pieces changes
        nothing); the tokenizer sees only words not met before."""
        with self._tokenizer_lock:
            known = self._pieces
            new = [w for w in dict.fromkeys(words) if w not in known]
            if new and len(known) + len(new) > _PIECE_CACHE_WORDS:
                known.clear()
                new = list(dict.fromkeys(words))
            for word in new:
                # One call per word: encode_batch hands a few words to a thread pool, which costs
                # more than it saves and competes with the other worker processes for the cores.
                pieces = self._tokenizer.encode(word, add_special_tokens=False).ids
                known[word] = pieces or [100]  # 100: [UNK]
            return [known[w] for w in words]

    def _score(
        self,
        chosen: list[tuple[list[_Unit], int, int, int]],
        scores: list[list[np.ndarray[Any, Any] | None]],
        run_ids: list[int],
    ) -> None:
        rows: list[tuple[list[int], list[int], list[int]]] = []
        for units, first, stop, _ in chosen:
            ids, casing, heads = [101], [0], []  # [CLS]
            for unit in units[first:stop]:
                for word_pieces, c in zip(unit.pieces, unit.casing, strict=True):
                    heads.append(len(ids))
                    ids += word_pieces[: self._max_pieces - 2]
                    casing += [c] * len(word_pieces[: self._max_pieces - 2])
            rows.append(([*ids, 102], [*casing, 0], heads))  # [SEP]
        width = max(len(r[0]) for r in rows)
        feed = {
            "input_ids": np.zeros((len(rows), width), dtype=np.int64),
            "attention_mask": np.zeros((len(rows), width), dtype=np.int64),
            "token_type_ids": np.zeros((len(rows), width), dtype=np.int64),
            "casing_ids": np.zeros((len(rows), width), dtype=np.int64),
        }
        for i, (ids, casing, _) in enumerate(rows):
            feed["input_ids"][i, : len(ids)] = ids
            feed["attention_mask"][i, : len(ids)] = 1
            feed["casing_ids"][i, : len(ids)] = casing
        result = self._session.run(None, feed)[0]
        for row, (units, first, stop, keep), (_, _, heads), run in zip(
            result, chosen, rows, run_ids, strict=True
        ):
            position = 0
            for u in range(first, stop):
                count = len(units[u].words)
                if u >= keep:
                    scores[run][u] = row[heads[position : position + count]]
                position += count


def float_graph(folder: Path) -> bytes:
    """The recogniser in ``folder`` as a float32 ONNX graph."""
    from safetensors.numpy import load_file

    meta = json.loads((folder / _META).read_text("utf-8"))
    base = bundled_embedding_folder()

    weights: dict[str, Any] = {
        k: v.astype(np.float32) for k, v in load_file(str(folder / _WEIGHTS)).items()
    }
    table = {
        k.removeprefix("bert."): v for k, v in load_file(str(base / "model.safetensors")).items()
    }
    weights["embeddings.word_embeddings.weight"] = table["embeddings.word_embeddings.weight"]
    shape = BertShape(
        hidden=int(meta["hidden"]),
        heads=int(meta["heads"]),
        layers=int(meta["layers"]),
        layer_norm_eps=float(meta["layer_norm_eps"]),
    )
    return build_tagger_graph(weights, shape, str(meta["casing"]))


def _build(folder: Path, precision: str) -> bytes:
    graph = float_graph(folder)
    if precision == "float32":
        return graph
    # 7-bit weights: the same tags on every x86 processor (onnx_graphs.quantize); activations
    # quantised with the recorded ranges, not per batch (onnx_static)
    return with_fixed_scales(quantize(graph, reduce_range=True), activation_ranges(folder))


def activation_ranges(folder: Path) -> dict[str, tuple[float, float]]:
    """The recorded range of each activation the int8 graph quantises (``RANGES``, written by
    ``scripts/recognizer_ranges.py`` from the training split)."""
    recorded = json.loads((folder / RANGES).read_text("utf-8"))
    if recorded["builder_version"] != BUILDER_VERSION:
        raise ValueError(
            f"{folder / RANGES}: recorded for graph builder version "
            f"{recorded['builder_version']}, this one is {BUILDER_VERSION}"
        )
    return {name: (float(low), float(high)) for name, (low, high) in recorded["ranges"].items()}


_PARAGRAPH_BREAK = re.compile(r"\n[ \t\r]*\n")


def _paragraph_parts(
    text: str, words: Sequence[Word], first: int, stop: int
) -> list[tuple[int, int]]:
    """The words ``first:stop`` of a tagged name, cut where a blank line lies between two of
    them: no name runs from a headline into the body ("... beat Kent" / "Somerset beat")."""
    parts, start = [], first
    for i in range(first + 1, stop):
        if _PARAGRAPH_BREAK.search(text, words[i - 1].end, words[i].start):
            parts.append((start, i))
            start = i
    parts.append((start, stop))
    return parts
