"""Sentence embeddings behind one small interface, so search and clustering use the same vectors.

The text embedded for a content item is its title plus the lead of its body (see
:func:`embedding_text`): news is written lead-first, all-MiniLM-L6-v2 was trained on inputs of at
most 128 word pieces and truncates longer ones anyway, and a shorter input is much faster.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from herald.enrich.model_files import (
    EMBEDDING_MODEL,
    bundled_embedding_folder,
    verify_model_folder,
)
from herald.enrich.text import content_terms, lead_text

# The bundled model: its files come inside Herald's package (offline use).
BUNDLED_MODEL_NAME = EMBEDDING_MODEL
EMBEDDING_LEAD_WORDS = 96
DEFAULT_MAX_TOKENS = 128

Vectors = npt.NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of ``dimension`` columns."""

    @property
    def model_name(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Vectors: ...


def embedding_text(title: str, body: str, *, lead_words: int = EMBEDDING_LEAD_WORDS) -> str:
    """What Herald embeds for an item: its title and the first sentences of its body."""
    return lead_text(title, body, lead_words)


def bundled_model_path() -> Path:
    return bundled_embedding_folder()


def load_sentence_transformer(
    model: str | None, *, max_tokens: int, device: str = "cpu"
) -> tuple[Any, str]:
    """A sentence-transformers model (the optional ``herald[torch]`` extra) from a local path or
    the local cache (never a model hub at run time), its input cut at ``max_tokens`` word
    pieces, and the name Herald records for it. The bundled model's files are checked first."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise TorchNotInstalled(
            f"embedding model {model or BUNDLED_MODEL_NAME!r} needs torch: install Herald with "
            "the torch extra (pip install 'herald[torch]') or use a BERT model folder, which "
            "runs on ONNX Runtime"
        ) from exc

    if model is None:
        verify_model_folder(EMBEDDING_MODEL, bundled_model_path())
    location = model or str(bundled_model_path())
    loaded: Any = SentenceTransformer(location, device=device)
    loaded.max_seq_length = min(int(loaded.max_seq_length or max_tokens), max_tokens)
    return loaded, model or BUNDLED_MODEL_NAME


def model_dimension(loaded: Any, name: str) -> int:
    get_dimension = (
        getattr(loaded, "get_embedding_dimension", None) or loaded.get_sentence_embedding_dimension
    )
    dimension = get_dimension()
    if not dimension:
        raise ValueError(f"model {name!r} does not report an embedding dimension")
    return int(dimension)


class TorchNotInstalled(Exception):
    """The configured model or runtime needs the optional torch extra, which is missing."""


class ModelEmbedder:
    """What the model-backed embedders share: their name, dimension and the empty result."""

    _name: str
    _dimension: int

    @property
    def model_name(self) -> str:
        return self._name

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self._dimension), dtype=np.float32)
        return self._embed(list(texts))

    def _embed(self, texts: list[str]) -> Vectors:
        raise NotImplementedError


class SentenceTransformerEmbedder(ModelEmbedder):
    """A sentence-transformers model, loaded once, encoding in batches on the CPU with torch
    (only with the optional ``herald[torch]`` extra)."""

    def __init__(
        self,
        model: str | None = None,
        *,
        batch_size: int = 64,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        device: str = "cpu",
    ) -> None:
        self._model, self._name = load_sentence_transformer(
            model, max_tokens=max_tokens, device=device
        )
        self._dimension = model_dimension(self._model, self._name)
        self._batch_size = batch_size
        self._lock = threading.Lock()  # one forward pass at a time; torch uses all cores

    def _embed(self, texts: list[str]) -> Vectors:
        with self._lock:
            vectors = self._model.encode(
                texts,
                batch_size=self._batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return np.ascontiguousarray(vectors, dtype=np.float32)


class HashingEmbedder:
    """A deterministic bag-of-words embedder (feature hashing): no model, no torch.

    For tests of code that only needs *some* consistent embedding, and for machines where the
    neural model cannot run. Texts sharing words get similar vectors; meaning is not captured.
    """

    def __init__(self, dimension: int = 384) -> None:
        self._dimension = dimension

    @property
    def model_name(self) -> str:
        return f"herald-hashing-{self._dimension}"

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        out = np.zeros((len(texts), self._dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for term in content_terms(text):
                digest = hashlib.blake2b(term.encode(), digest_size=8).digest()
                bucket = int.from_bytes(digest[:4], "little") % self._dimension
                sign = 1.0 if digest[4] & 1 else -1.0
                out[row, bucket] += sign
            norm = float(np.linalg.norm(out[row]))
            if norm:
                out[row] /= norm
        return out


def vector_to_bytes(vector: npt.NDArray[np.float32]) -> bytes:
    return np.asarray(vector, dtype="<f4").tobytes()


def vector_from_bytes(data: bytes) -> Vectors:
    return np.frombuffer(data, dtype="<f4").copy()
