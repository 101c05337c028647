"""Parser processes: results in chunk order, equal to parsing in process; errors and early exits
end every worker."""

from __future__ import annotations

import json

import pytest

from herald.ingest.parse_workers import ParserPool, parse_chunk


def _lines(count: int) -> list[bytes]:
    words = " ".join(f"word{i % 37} token{i % 11}" for i in range(80))
    lines = [
        json.dumps(
            {
                "url": f"https://example.com/news/{n}",
                "media_type": "news",
                "title": f"Story {n}",
                "published_date": "2026-11-20T10:00:00Z",
                "source": {"name": "Example", "domain": "example.com"},
                "body": f"{words} number {n}",
            }
        ).encode()
        for n in range(count)
    ]
    lines[4] = b'{"media_type": "news"}'  # a rejected entry keeps its line number
    return lines


def _chunks(lines: list[bytes], size: int) -> list[tuple[int, list[bytes]]]:
    return [(start + 1, lines[start : start + size]) for start in range(0, len(lines), size)]


def test_results_come_in_chunk_order_and_equal_parsing_in_process() -> None:
    chunks = _chunks(_lines(23), 3)  # 8 chunks over 3 workers: uneven shares
    with ParserPool(3) as pool:
        results = list(pool.map(chunks))
    expected = [parse_chunk(chunk) for chunk in chunks]
    assert len(results) == len(expected)
    for (outcomes, fingerprints), (want_outcomes, want_fingerprints) in zip(
        results, expected, strict=True
    ):
        assert outcomes == want_outcomes
        assert fingerprints.keys() == want_fingerprints.keys()
        for key, fp in fingerprints.items():
            want = want_fingerprints[key]
            assert fp is not None
            assert want is not None
            assert fp.to_bytes() == want.to_bytes()
            assert fp.band_keys() == want.band_keys()


def test_a_failing_chunk_is_raised_and_the_workers_end() -> None:
    pool = ParserPool(2)
    with pytest.raises(RuntimeError, match="lines from 4"), pool:
        list(pool.map([(1, [b"{}"]), (4, [123])]))  # type: ignore[list-item]
    assert all(process.returncode is not None for process in pool._processes)


def test_leaving_early_ends_the_workers() -> None:
    pool = ParserPool(2)
    with pytest.raises(KeyError), pool:
        for _ in pool.map(_chunks(_lines(40), 2)):
            raise KeyError("the storing process failed")
    assert all(process.returncode is not None for process in pool._processes)
