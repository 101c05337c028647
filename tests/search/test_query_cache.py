import numpy as np

from herald.enrich.embedding import HashingEmbedder
from herald.search.embedding import CachedQueryEncoder


class CountingEmbedder(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__(384)
        self.calls = 0

    def embed(self, texts: list[str]) -> np.ndarray:  # type: ignore[override]
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
