"""Sentence embeddings on ONNX Runtime, with no torch at run time.

The graph is assembled from the model's released weights (:mod:`herald.enrich.bert_onnx`) and
the text is split by the model's own ``tokenizer.json`` (HF tokenizers). Vectors agree with the
original model run by sentence-transformers to cosine >= 0.99999 in float32
(tests/enrich/test_onnx_embedding.py, against reference vectors stored in the tests).

``precision="int8"`` quantises the weights of the graph's matrix products (ONNX Runtime's
dynamic quantisation, one scale per output channel): about 2.2x less CPU per article, vectors
within cosine 0.98 (mean 0.994) of float32. Such vectors carry the model name with ``#int8``
appended, so an index never mixes them with float32 ones.

Building and quantising the graph takes a few seconds; with ``cache_dir`` (the runtime passes
HOME/models) the result is written there once and later processes load it. A cached graph is
keyed by the SHA-256 of the weights it was built from and checked against its own recorded
digest when loaded (a damaged one is rebuilt).

Models covered: a folder holding a BERT encoder (``config.json`` with ``model_type`` bert,
``model.safetensors``, ``tokenizer.json``) with sentence-transformers' mean pooling and optional
normalisation. Anything else is reported by :class:`UnsupportedModel`; such models run on torch
with the optional ``herald[torch]`` extra.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from herald.core.files import sha256_file
from herald.enrich.bert_onnx import BUILDER_VERSION, BertShape, build_graph
from herald.enrich.embedding import DEFAULT_MAX_TOKENS, ModelEmbedder, Vectors
from herald.enrich.model_files import EMBEDDING_MODEL, bundled_embedding_folder, verify_model_folder
from herald.enrich.onnx_graphs import cached_graph, quantize, session_options

__all__ = ["PRECISIONS", "OnnxEmbedder", "UnsupportedModel"]

log = logging.getLogger(__name__)

PRECISIONS = frozenset({"float32", "int8"})

_SUPPORTED_MODULES = ("Transformer", "Pooling", "Normalize")
_WEIGHTS = "model.safetensors"


class UnsupportedModel(Exception):
    """The model is not a BERT + mean pooling folder this embedder can build a graph for."""


@dataclass(frozen=True)
class _ModelFolder:
    folder: Path
    name: str
    shape: BertShape
    max_seq_length: int
    lower_case: bool
    weights_sha256: str


class OnnxEmbedder(ModelEmbedder):
    def __init__(
        self,
        model: str | None = None,
        *,
        batch_size: int = 64,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        precision: str = "float32",
        cache_dir: Path | None = None,
    ) -> None:
        import onnxruntime as ort

        if precision not in PRECISIONS:
            raise ValueError(f"precision {precision!r}: expected one of {sorted(PRECISIONS)}")
        found = _open_model(model)
        self._name = found.name if precision == "float32" else f"{found.name}#{precision}"
        self.precision = precision
        self._dimension = found.shape.hidden
        self._lower_case = found.lower_case
        self._tokenizer = _tokenizer(found.folder, min(found.max_seq_length, max_tokens))
        self._batch_size = batch_size
        graph = _graph(found, precision, cache_dir)
        # One thread (measured on 2 cores: 18.7 articles/s with one, 16.7 with two competing
        # with the recogniser). Sessions run concurrently from several threads.
        self._session = ort.InferenceSession(graph, session_options(ort), providers=_CPU)
        self._tokenizer_lock = threading.Lock()

    def _embed(self, texts: list[str]) -> Vectors:
        # Texts of similar length share a batch (less padding), results in the input order.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.zeros((len(texts), self._dimension), dtype=np.float32)
        for start in range(0, len(order), self._batch_size):
            chunk = order[start : start + self._batch_size]
            out[chunk] = self._run([texts[i] for i in chunk])
        return out

    def _run(self, texts: list[str]) -> Vectors:
        # sentence-transformers strips each text (and lower-cases it when the model says so).
        prepared = [text.strip().lower() if self._lower_case else text.strip() for text in texts]
        with self._tokenizer_lock:  # searches embed queries on several threads
            encoded = self._tokenizer.encode_batch(prepared)
        feed = {
            "input_ids": np.array([e.ids for e in encoded], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encoded], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encoded], dtype=np.int64),
        }
        vectors = self._session.run(None, feed)[0]
        return np.ascontiguousarray(vectors, dtype=np.float32)


_CPU = ["CPUExecutionProvider"]


def _open_model(model: str | None) -> _ModelFolder:
    """The bundled model (its files checked against the recorded digests) or a folder."""
    if model is None:
        folder = bundled_embedding_folder()
        weights_sha256 = verify_model_folder(EMBEDDING_MODEL, folder)[_WEIGHTS]
        name = EMBEDDING_MODEL
    else:
        folder = Path(model).expanduser()
        if not (folder / _WEIGHTS).is_file() or not (folder / "tokenizer.json").is_file():
            raise UnsupportedModel(
                f"{model}: not a model folder with {_WEIGHTS} and tokenizer.json "
                "(models are read from a local folder; nothing is downloaded)"
            )
        weights_sha256 = sha256_file(folder / _WEIGHTS)
        name = model
    config = _json(folder / "config.json")
    if config.get("model_type") != "bert" or config.get("hidden_act", "gelu") != "gelu":
        raise UnsupportedModel(f"{name}: not a BERT encoder with GELU ({config.get('model_type')})")
    if config.get("position_embedding_type", "absolute") != "absolute":
        raise UnsupportedModel(f"{name}: position embeddings {config['position_embedding_type']}")
    _check_stack(folder, name)
    st_config = _json(folder / "sentence_bert_config.json", missing_ok=True)
    return _ModelFolder(
        folder=folder,
        name=name,
        shape=BertShape.from_config(config),
        max_seq_length=int(st_config.get("max_seq_length") or config["max_position_embeddings"]),
        lower_case=bool(st_config.get("do_lower_case", False)),
        weights_sha256=weights_sha256,
    )


def _json(path: Path, *, missing_ok: bool = False) -> dict[str, Any]:
    if missing_ok and not path.is_file():
        return {}
    loaded: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return loaded


def _check_stack(folder: Path, name: str) -> None:
    """sentence-transformers' modules.json: a transformer, mean pooling, maybe normalisation."""
    path = folder / "modules.json"
    modules: list[dict[str, Any]] = json.loads(path.read_text("utf-8")) if path.is_file() else []
    kinds = [str(m.get("type", "")).rsplit(".", 1)[-1] for m in modules]
    if modules and (kinds[0] != "Transformer" or any(k not in _SUPPORTED_MODULES for k in kinds)):
        raise UnsupportedModel(f"{name}: modules {kinds}, not transformer + mean pooling")
    for module, kind in zip(modules, kinds, strict=True):
        if kind == "Pooling":
            pooling = _json(folder / module["path"] / "config.json")
            if not _mean_pooling(pooling):
                raise UnsupportedModel(f"{name}: pooling {json.dumps(pooling)}")


def _mean_pooling(config: dict[str, Any]) -> bool:
    mode = config.get("pooling_mode")  # newer sentence-transformers name the mode directly
    if mode is not None:
        return bool(mode == "mean")
    flags = {k for k, v in config.items() if k.startswith("pooling_mode_") and v is True}
    return flags == {"pooling_mode_mean_tokens"}


def _tokenizer(folder: Path, max_tokens: int) -> Any:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    # tokenizer.json may carry fixed-length padding; the batch is padded to its longest text.
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_tokens)
    pad_token = "[PAD]"  # noqa: S105  (BERT's padding token, not a secret)
    pad_id = tokenizer.token_to_id(pad_token)
    tokenizer.enable_padding(pad_id=0 if pad_id is None else pad_id, pad_token=pad_token)
    return tokenizer


def _graph(found: _ModelFolder, precision: str, cache_dir: Path | None) -> bytes:
    """The model's graph, from ``cache_dir`` when built there before, else built now."""
    key = f"embedding-{found.weights_sha256[:16]}-v{BUILDER_VERSION}-{precision}"
    return cached_graph(cache_dir, key, lambda: _build(found, precision))


def _build(found: _ModelFolder, precision: str) -> bytes:
    graph = build_graph(found.folder / _WEIGHTS, found.shape)
    return graph if precision == "float32" else quantize(graph)
