"""The ONNX Runtime embedder gives the torch model's vectors in float32, and close ones in int8
(the default; what search and clusters rely on)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from herald.enrich.embedder import build_embedder
from herald.enrich.embedding import SentenceTransformerEmbedder, bundled_model_path
from herald.enrich.onnx_embedding import OnnxEmbedder, UnsupportedModel
from tests.enrich.models import embedder

TEXTS = [
    "Apple shares rose after the company reported record iPhone sales in China.",
    "flood",
    "Vitamin D supplementation and the risk of fractures in older adults: a randomised trial "
    * 12,  # longer than the model's 128 word pieces: cut like the torch path
    "Der Bundestag hat am Donnerstag ein neues Gesetz beschlossen.",
    "The European Central Bank kept interest rates unchanged on Thursday.",
    "Rescue teams searched for survivors after the 6.1 magnitude earthquake.",
]


@pytest.fixture(scope="module")
def torch_embedder() -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder()


@pytest.fixture(scope="module")
def float32_embedder() -> OnnxEmbedder:
    return OnnxEmbedder(precision="float32")


def test_default_embedder_runs_on_onnx_in_int8() -> None:
    assert isinstance(embedder(), OnnxEmbedder)
    assert embedder().dimension == 384
    # int8 vectors carry their own model name: an index never mixes them with float32 ones.
    assert embedder().model_name == "sentence-transformers/all-MiniLM-L6-v2#int8"


def test_float32_keeps_the_model_name(float32_embedder: OnnxEmbedder) -> None:
    assert float32_embedder.model_name == "sentence-transformers/all-MiniLM-L6-v2"
    with pytest.raises(ValueError, match="precision"):
        OnnxEmbedder(precision="int4")


@pytest.mark.parametrize("count", [1, 3, len(TEXTS)])
def test_onnx_vectors_match_torch(
    torch_embedder: SentenceTransformerEmbedder, float32_embedder: OnnxEmbedder, count: int
) -> None:
    # One text, a few, and a batch (sorted by length inside, returned in input order).
    texts = TEXTS[:count]
    got, want = float32_embedder.embed(texts), torch_embedder.embed(texts)
    assert got.shape == want.shape == (count, 384)
    assert got.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    assert float((got * want).sum(axis=1).min()) > 0.9999


def test_int8_vectors_stay_close_to_float32_and_rank_alike(
    float32_embedder: OnnxEmbedder,
) -> None:
    got, want = embedder().embed(TEXTS), float32_embedder.embed(TEXTS)
    assert got.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    cosines = (got * want).sum(axis=1)
    assert float(cosines.min()) > 0.97
    assert float(cosines.mean()) > 0.985
    assert float(cosines.max()) < 0.99999  # really quantised, not the float32 graph again
    # Queries find the same texts first.
    queries = ["earthquake survivors", "iPhone sales", "interest rates", "fracture risk"]
    for query in queries:
        int8_order = np.argsort(-(got @ embedder().embed([query])[0]))
        float32_order = np.argsort(-(want @ float32_embedder.embed([query])[0]))
        assert int8_order[0] == float32_order[0]


def test_empty_input() -> None:
    assert embedder().embed([]).shape == (0, 384)


def test_a_model_onnx_does_not_cover_runs_on_torch(tmp_path: Path) -> None:
    # The bundled model with CLS pooling instead of mean pooling: not the stack the exporter
    # reproduces, so the embedder builder keeps torch for it.
    folder = tmp_path / "cls-model"
    shutil.copytree(bundled_model_path(), folder)
    config_path = folder / "1_Pooling" / "config.json"
    config = json.loads(config_path.read_text())
    config.update(pooling_mode_mean_tokens=False, pooling_mode_cls_token=True)
    config_path.write_text(json.dumps(config))
    with pytest.raises(UnsupportedModel):
        OnnxEmbedder(str(folder))
    chosen = build_embedder(str(folder))
    assert isinstance(chosen, SentenceTransformerEmbedder)
    assert chosen.embed(["a test"]).shape == (1, 384)


def test_onnx_runs_in_a_process_that_loaded_the_vector_index_first() -> None:
    # usearch loaded before onnx/ONNX Runtime breaks them (see herald.search.vectors): a fresh
    # interpreter that imports the vector index first, as `herald serve` does, must still embed.
    script = (
        "import herald.search.vectors\n"
        "from herald.enrich.embedder import build_embedder\n"
        "embedder = build_embedder(None)\n"
        "vector = embedder.embed(['Rescue teams searched for survivors.'])[0]\n"
        "print(type(embedder).__name__, round(float(vector @ vector), 4))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-2:] == ["OnnxEmbedder", "1.0"]


def test_concurrent_queries_from_many_threads() -> None:
    # Searches embed queries on several threads at once (the tokenizer is not thread-safe).
    from concurrent.futures import ThreadPoolExecutor

    queries = [f"{text} ({n})" for n in range(8) for text in TEXTS[:4]]
    want = np.vstack([embedder().embed([q]) for q in queries])
    with ThreadPoolExecutor(max_workers=6) as pool:
        got = np.vstack(list(pool.map(lambda q: embedder().embed([q]), queries)))
    np.testing.assert_allclose(got, want, atol=1e-5)
