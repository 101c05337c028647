import sys
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest

from herald.enrich.embedding import HashingEmbedder
from herald.search.embedding import CachedQueryEncoder


class CountingEmbedder(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__(384)
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.calls += 1
        return super().embed(texts)


def test_repeated_queries_are_embedded_once_and_the_cache_is_bounded() -> None:
    embedder = CountingEmbedder()
    encoder = CachedQueryEncoder(embedder, cache_size=2)
    first = encoder.encode_query("interest  rates ")
    again = encoder.encode_query("interest rates")  # same text once whitespace is normalised
    assert embedder.calls == 1
    assert np.array_equal(first, again)
    assert not first.flags.writeable  # shared between searches: nobody may change it
    encoder.encode_query("storm")
    encoder.encode_query("floods")  # evicts "interest rates", the least recently used
    encoder.encode_query("interest rates")
    assert embedder.calls == 4
    assert (encoder.hits, encoder.misses) == (1, 4)


class _TorchThreads:
    """Stands in for torch's thread setting (torch is an optional extra, absent at run time)."""

    def __init__(self) -> None:
        self.threads = 2

    def get_num_threads(self) -> int:
        return self.threads

    def set_num_threads(self, threads: int) -> None:
        self.threads = threads


class ThreadCountingEmbedder:
    """The session's real model, noting how many torch threads each call may use."""

    def __init__(self, torch: _TorchThreads) -> None:
        from tests.enrich.models import embedder

        self.model = embedder()
        self.torch = torch
        self.threads: list[int] = []

    @property
    def model_name(self) -> str:
        return self.model.model_name

    @property
    def dimension(self) -> int:
        return self.model.dimension

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.threads.append(self.torch.get_num_threads())
        return self.model.embed(texts)


def test_a_query_is_embedded_on_one_thread_and_the_setting_is_put_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # With the herald[torch] extra a torch model may run queries: one thread for each.
    torch = _TorchThreads()
    monkeypatch.setitem(sys.modules, "torch", torch)
    spy = ThreadCountingEmbedder(torch)
    encoder = CachedQueryEncoder(spy)
    vector = encoder.encode_query("vitamin D supplements and bone density")
    assert spy.threads == [1]
    assert torch.get_num_threads() == 2
    direct = spy.model.embed(["vitamin D supplements and bone density"])[0]
    assert np.allclose(vector, direct, atol=1e-5)  # one thread: the same vector


def test_without_torch_queries_run_as_they_are(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    encoder = CachedQueryEncoder(HashingEmbedder(384))
    assert encoder.encode_query("storm").shape == (384,)
    assert "torch" not in sys.modules


def test_a_model_given_as_a_loader_is_loaded_on_first_use_only() -> None:
    loads: list[int] = []

    def load() -> HashingEmbedder:
        loads.append(1)
        return HashingEmbedder(384)

    encoder = CachedQueryEncoder(load)
    assert not encoder.loaded
    assert loads == []
    encoder.encode_query("storm")
    encoder.encode_query("floods")
    assert encoder.loaded
    assert loads == [1]
    assert encoder.embedder.dimension == 384
