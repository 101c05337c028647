"""The model-backed steps: spaCy recognition and sentence embeddings (loaded once per session)."""

from __future__ import annotations

import numpy as np

from herald.enrich.embedding import Embedder, HashingEmbedder, embedding_text
from herald.enrich.ner import LINKABLE_LABELS
from tests.enrich.models import embedder, recognizer


def test_only_the_recogniser_runs_and_batches_keep_their_order() -> None:
    ner = recognizer()
    assert ner._nlp.pipe_names == ["ner"]
    texts = ["Tim Cook runs Apple in Cupertino.", "", "Angela Merkel visited Paris."]
    results = ner.recognize(texts)
    assert len(results) == 3
    assert results[1] == []
    assert {m.text for m in results[0]} >= {"Tim Cook", "Apple", "Cupertino"}
    for text, mentions in zip(texts, results, strict=False):
        for m in mentions:
            assert text[m.start : m.end] == m.text
            assert m.label in LINKABLE_LABELS


def test_the_recogniser_multiplies_with_numpy_blas_on_one_thread() -> None:
    from threadpoolctl import threadpool_info

    ner = recognizer()
    # Every layer of the recogniser uses numpy's BLAS, not thinc's bundled BLIS (whose generic
    # fallback kernel is several times slower on CPUs it does not recognise).
    assert all(not node.ops.use_blis for node in ner._nlp.get_pipe("ner").model.walk())
    blas = [pool for pool in threadpool_info() if pool["user_api"] == "blas"]
    assert blas
    assert all(pool["num_threads"] == 1 for pool in blas)


def test_embeddings_are_normalised_float32_of_the_model_dimension() -> None:
    model = embedder()
    assert isinstance(model, Embedder)
    vectors = model.embed(
        ["Apple unveils a new MacBook Pro", "Apple launches a new laptop", "How to bake apple pie"]
    )
    assert vectors.dtype == np.float32
    assert vectors.shape == (3, model.dimension == 384 and 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    similarity = vectors @ vectors.T
    assert similarity[0, 1] > similarity[0, 2] + 0.3
    assert model.embed([]).shape == (0, 384)
    assert model.model_name == "sentence-transformers/all-MiniLM-L6-v2#int8"  # the default


def test_embedding_text_is_title_and_lead() -> None:
    body = " ".join(f"w{i}." for i in range(500))
    text = embedding_text("Headline", body)
    assert text.startswith("Headline\n")
    assert len(text.split()) == 1 + 96


def test_the_hashing_embedder_is_deterministic_and_normalised() -> None:
    model = HashingEmbedder(64)
    a, b = model.embed(["markets rally on rate cut", "markets rally on rate cut"])
    assert np.array_equal(a, b)
    assert abs(float(np.linalg.norm(a)) - 1.0) < 1e-6
    assert model.embed([""]).sum() == 0.0
