"""The runtime's one shared embedder: search, clustering and enrichment all call
:func:`get_embedder`, so a single model is loaded per process and every vector is comparable.

The model is the ``HERALD_EMBEDDING_MODEL`` setting (a model folder); unset, the bundled
all-MiniLM-L6-v2 (its files in Herald's package, checked against recorded digests).
It runs on ONNX Runtime (no torch); ``HERALD_EMBEDDING_RUNTIME=torch`` and models ONNX Runtime
does not cover need the optional ``herald[torch]`` extra. Nothing is downloaded at run time.
"""

from __future__ import annotations

import importlib.util
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from herald.enrich.embedding import (
    BUNDLED_MODEL_NAME,
    Embedder,
    HashingEmbedder,
    SentenceTransformerEmbedder,
    TorchNotInstalled,
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
            cache_dir=settings.home / "models",
        ),
    )


def build_embedder(
    model: str | None,
    *,
    engine: str = "onnx",
    precision: str = "int8",
    cache_dir: Path | None = None,
) -> Embedder:
    """``engine``: ``onnx`` (ONNX Runtime, the default: same vectors, no torch) or ``torch``.
    A model the ONNX graph builder does not cover (see :mod:`herald.enrich.onnx_embedding`)
    runs on torch when the ``herald[torch]`` extra is installed. ``precision`` ``int8``
    quantises the ONNX graph's weights (torch always runs float32). ``cache_dir``: where built
    graphs are kept for the next process (none: built in memory each time)."""
    if model and model.startswith(HASHING_MODEL):
        _, _, size = model.partition(":")
        return HashingEmbedder(int(size) if size else 384)
    if engine == "onnx":
        from herald.enrich.onnx_embedding import OnnxEmbedder, UnsupportedModel

        try:
            return OnnxEmbedder(model, precision=precision, cache_dir=cache_dir)
        except UnsupportedModel as exc:
            if importlib.util.find_spec("sentence_transformers") is None:
                raise TorchNotInstalled(
                    f"{exc}; such models run on torch: pip install 'herald[torch]'"
                ) from exc
            log.warning("embedding model %s runs on torch: %s", model, exc)
    return SentenceTransformerEmbedder(model)
