from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

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


class ThreadCountingEmbedder:
    """The session's real model, noting how many torch threads each call may use."""

    def __init__(self) -> None:
        from tests.enrich.models import embedder

        self.model = embedder()
        self.threads: list[int] = []

    @property
    def model_name(self) -> str:
        return self.model.model_name

    @property
    def dimension(self) -> int:
        return self.model.dimension

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        import torch

        self.threads.append(int(torch.get_num_threads()))
        return self.model.embed(texts)


def test_a_query_is_embedded_on_one_thread_and_the_setting_is_put_back() -> None:
    import torch

    spy = ThreadCountingEmbedder()
    before = torch.get_num_threads()
    encoder = CachedQueryEncoder(spy)
    vector = encoder.encode_query("vitamin D supplements and bone density")
    assert spy.threads == [1]
    assert torch.get_num_threads() == before
    direct = spy.model.embed(["vitamin D supplements and bone density"])[0]
    assert np.allclose(vector, direct, atol=1e-5)  # one thread: the same vector


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
