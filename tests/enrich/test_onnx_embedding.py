"""The ONNX Runtime embedder, built without torch, gives the original model's vectors in float32
(against reference vectors stored in tests/enrich/fixtures/embedding_reference, made with
sentence-transformers on torch) and close ones in int8 (the default; what search and clusters
rely on)."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from herald.enrich import onnx_embedding, onnx_graphs
from herald.enrich.embedder import build_embedder
from herald.enrich.embedding import TorchNotInstalled, bundled_model_path
from herald.enrich.onnx_embedding import OnnxEmbedder, UnsupportedModel
from tests.enrich.models import embedder

REFERENCE = Path(__file__).parent / "fixtures" / "embedding_reference"
TEXTS: list[str] = json.loads((REFERENCE / "texts.json").read_text("utf-8"))


@cache
def reference(max_tokens: int) -> npt.NDArray[np.float32]:
    with np.load(REFERENCE / "vectors.npz") as arrays:
        return np.asarray(arrays[f"max_tokens_{max_tokens}"], dtype=np.float32)


@cache
def float32_embedder(max_tokens: int = 128) -> OnnxEmbedder:
    return OnnxEmbedder(precision="float32", max_tokens=max_tokens)


def test_default_embedder_runs_on_onnx_in_int8() -> None:
    assert isinstance(embedder(), OnnxEmbedder)
    assert embedder().dimension == 384
    # int8 vectors carry their own model name: an index never mixes them with float32 ones.
    assert embedder().model_name == "sentence-transformers/all-MiniLM-L6-v2#int8"


def test_float32_keeps_the_model_name() -> None:
    assert float32_embedder().model_name == "sentence-transformers/all-MiniLM-L6-v2"
    with pytest.raises(ValueError, match="precision"):
        OnnxEmbedder(precision="int4")


def test_the_reference_covers_truncation() -> None:
    # The long texts are cut differently at 256 and 128 word pieces: the fixture can tell.
    cosines = (reference(256) * reference(128)).sum(axis=1)
    assert len(TEXTS) == 20
    assert float(cosines.min()) < 0.95
    assert int((cosines < 0.999).sum()) == 4


@pytest.mark.parametrize("max_tokens", [256, 128])
def test_float32_vectors_match_the_original_model(max_tokens: int) -> None:
    model = float32_embedder(max_tokens)
    want = reference(max_tokens)
    batch = model.embed(TEXTS)  # sorted by length inside, returned in input order
    one_by_one = np.vstack([model.embed([text]) for text in TEXTS])
    for got in (batch, one_by_one):
        assert got.shape == want.shape == (20, 384)
        assert got.dtype == np.float32
        np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
        cosines = (got * want).sum(axis=1)
        assert float(cosines.min()) >= 0.999, cosines.round(5).tolist()


def test_int8_vectors_stay_close_to_the_original_and_rank_alike() -> None:
    # Measured: min 0.972, mean 0.989 over the 20 reference texts.
    got, want = embedder().embed(TEXTS), reference(128)
    assert got.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    cosines = (got * want).sum(axis=1)
    assert float(cosines.min()) > 0.965
    assert float(cosines.mean()) > 0.985
    assert float(cosines.max()) < 0.99999  # really quantised, not the float32 graph again
    # Queries find the same texts first.
    queries = ["earthquake survivors", "iPhone sales", "interest rates", "fracture risk"]
    for query in queries:
        int8_order = np.argsort(-(got @ embedder().embed([query])[0]))
        float32_order = np.argsort(-(want @ float32_embedder().embed([query])[0]))
        assert int8_order[0] == float32_order[0]


def test_empty_input() -> None:
    assert embedder().embed([]).shape == (0, 384)


def test_the_graph_is_cached_once_and_a_damaged_copy_is_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each construction stands for a new process: nothing kept in memory from the one before.
    monkeypatch.setattr(onnx_graphs, "_KNOWN", {})
    first = OnnxEmbedder(precision="float32", cache_dir=tmp_path)
    cached = sorted(p.name for p in tmp_path.iterdir())
    assert len(cached) == 2
    assert cached[0].endswith("-float32.onnx")
    assert cached[1] == f"{cached[0]}.sha256"

    def no_build(*args: object) -> bytes:
        raise AssertionError("built again although cached")

    monkeypatch.setattr(onnx_embedding, "build_graph", no_build)
    monkeypatch.setattr(onnx_graphs, "_KNOWN", {})
    second = OnnxEmbedder(precision="float32", cache_dir=tmp_path)
    np.testing.assert_array_equal(second.embed(TEXTS[:3]), first.embed(TEXTS[:3]))

    graph = tmp_path / cached[0]
    graph.write_bytes(graph.read_bytes()[:-10] + b"0123456789")
    monkeypatch.setattr(onnx_graphs, "_KNOWN", {})
    with pytest.raises(AssertionError, match="built again"):
        OnnxEmbedder(precision="float32", cache_dir=tmp_path)


def test_a_model_folder_of_the_operators_own(tmp_path: Path) -> None:
    folder = tmp_path / "my-minilm"
    shutil.copytree(bundled_model_path(), folder)
    own = OnnxEmbedder(str(folder), precision="float32")
    assert own.model_name == str(folder)
    cosines = (own.embed(TEXTS[:5]) * reference(128)[:5]).sum(axis=1)
    assert float(cosines.min()) >= 0.999
    with pytest.raises(UnsupportedModel, match="nothing is downloaded"):
        OnnxEmbedder("sentence-transformers/all-mpnet-base-v2")


def test_a_model_the_graph_builder_does_not_cover(tmp_path: Path) -> None:
    # The bundled model with CLS pooling instead of mean pooling: not the stack the builder
    # reproduces. It needs torch (the herald[torch] extra); without it the error says so.
    folder = tmp_path / "cls-model"
    shutil.copytree(bundled_model_path(), folder)
    config_path = folder / "1_Pooling" / "config.json"
    config = json.loads(config_path.read_text())
    config.update(pooling_mode_mean_tokens=False, pooling_mode_cls_token=True)
    config_path.write_text(json.dumps(config))
    with pytest.raises(UnsupportedModel, match="pooling"):
        OnnxEmbedder(str(folder))
    if importlib.util.find_spec("sentence_transformers") is None:
        with pytest.raises(TorchNotInstalled, match=r"herald\[torch\]"):
            build_embedder(str(folder))
    else:
        assert build_embedder(str(folder)).embed(["a test"]).shape == (1, 384)


def test_onnx_runs_in_a_process_that_loaded_the_vector_index_first() -> None:
    # usearch loaded before onnx/ONNX Runtime breaks them (see herald.search.vectors): a fresh
    # interpreter that imports the vector index first, as `herald serve` does, must still embed.
    script = (
        "import herald.search.vectors\n"
        "from herald.enrich.embedder import build_embedder\n"
        "embedder = build_embedder(None, precision='float32')\n"
        "vector = embedder.embed(['Rescue teams searched for survivors.'])[0]\n"
        "print(type(embedder).__name__, round(float(vector @ vector), 4))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-2:] == ["OnnxEmbedder", "1.0"]


def test_concurrent_queries_from_many_threads() -> None:
    # Searches embed queries on several threads at once.
    from concurrent.futures import ThreadPoolExecutor

    queries = [f"{text} ({n})" for n in range(8) for text in TEXTS[:4]]
    want = np.vstack([embedder().embed([q]) for q in queries])
    with ThreadPoolExecutor(max_workers=6) as pool:
        got = np.vstack(list(pool.map(lambda q: embedder().embed([q]), queries)))
    np.testing.assert_allclose(got, want, atol=1e-5)
