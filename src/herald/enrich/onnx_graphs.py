"""What Herald's ONNX models share: session options, int8 quantisation and the graph cache.

Building and quantising a graph takes a few seconds; with a cache folder (the runtime passes
HOME/models) the result is written there once and later processes load it. A cached graph is
keyed by the digests of the weights it was built from and checked against its own recorded
digest when loaded (a damaged one is rebuilt).
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


def session_options(ort: Any) -> Any:
    """One thread, on the caller's: a query needs no thread hand-off, and enrichment runs the
    models beside each other; more cores are used by more worker processes."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # Idle pool threads sleep instead of spinning: on a shared 2-core machine spinning threads
    # take the core the other half of the work (the API, another model) needs.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return options


# Where this process last built or read each graph, by name: the name holds the digests of the
# weights and the builder's version, so a second runtime in the process (another home) reads the
# file already made instead of building it again. Paths only: no graph is held in memory.
_KNOWN: dict[str, Path] = {}


def cached_graph(cache_dir: Path | None, name: str, build: Callable[[], bytes]) -> bytes:
    """The graph ``name`` (a file name without suffix) from ``cache_dir`` when built there
    before and intact (or from where this process last had it), else built now and written
    there."""
    if cache_dir is None:
        return build()
    path = cache_dir / f"{name}.onnx"
    known = _KNOWN.get(name)
    for candidate in (path,) if known is None else (path, known):
        data = _intact(candidate)
        if data is not None:
            _KNOWN[name] = candidate
            return data
    graph = build()
    cache_dir.mkdir(parents=True, exist_ok=True)
    # Written under temporary names and renamed: concurrent processes never read half a file.
    with tempfile.NamedTemporaryFile(dir=cache_dir, suffix=".tmp", delete=False) as handle:
        handle.write(graph)
    Path(handle.name).replace(path)
    digest_path = path.with_suffix(".onnx.sha256")
    tmp_digest = digest_path.with_name(f"{digest_path.name}.{os.getpid()}.tmp")
    tmp_digest.write_text(hashlib.sha256(graph).hexdigest() + "\n", "ascii")
    tmp_digest.replace(digest_path)
    _KNOWN[name] = path
    return graph


def _intact(path: Path) -> bytes | None:
    """The graph at ``path`` if it and its recorded digest are there and agree."""
    digest_path = path.with_suffix(".onnx.sha256")
    if not path.is_file() or not digest_path.is_file():
        return None
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() == digest_path.read_text("ascii").strip():
        return data
    log.warning("cached model graph %s is damaged: building it again", path)
    return None


def quantize(graph: bytes, *, reduce_range: bool = False) -> bytes:
    """Dynamic int8 quantisation of the weights of every matrix product (per output channel:
    for the embedder, cosine 0.994 on average to float32 against 0.953 with one scale per
    tensor, same speed). ``reduce_range`` keeps weights to 7 bits: on processors without
    8-bit dot-product instructions (AVX2 without VNNI) ONNX Runtime's int8 products can
    saturate, so a graph quantised to the full 8 bits answers differently there than on one
    with them; with 7 bits it answers as float32 does on both."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with tempfile.TemporaryDirectory(prefix="herald-onnx-") as folder:
        path = Path(folder) / "model.onnx"
        path.write_bytes(graph)
        out = path.with_name("model.int8.onnx")
        root = logging.getLogger()  # the quantiser logs its progress and advice on the root logger
        root.addFilter(_quiet_quantiser)
        try:
            quantize_dynamic(
                path,
                out,
                weight_type=QuantType.QInt8,
                per_channel=True,
                reduce_range=reduce_range,
            )
        finally:
            root.removeFilter(_quiet_quantiser)
        return out.read_bytes()


def _quiet_quantiser(record: logging.LogRecord) -> bool:
    """Drops the quantiser's own records below ERROR (per-tensor notes, advice meant for image
    models); what other threads log meanwhile still goes out."""
    own = f"onnxruntime{os.sep}quantization" in record.pathname
    return not own or record.levelno >= logging.ERROR
