"""Searching before anything is indexed: an empty answer at once, without loading the model.

The API fuzz run (tests/api/test_fuzz.py) posts to /v1/content/search on an empty database with
a 10-second read timeout; loading the embedding model in the first request used to exceed it on
a busy machine. Nothing can match in an empty index, so no model, no vectors are needed.
"""

from __future__ import annotations

from fastapi.testclient import TestClient

from herald.runtime import Runtime
from herald.search.service import get_search

URL = "/v1/content/search"

QUERIES = [
    "what did the ECB decide about interest rates",
    '"unbalanced quote OR -" OR -bitcoin "x" ' * 40,  # long, every operator, dangling pieces
    "-only -exclusions",
    "\u0001\ud7ff\U0001f600 \t\n",  # (NUL is refused at the edge: tests/api)
    "a" * 2000,
]


def test_searching_an_empty_index_answers_without_loading_the_model(
    runtime: Runtime, client: TestClient, auth: dict[str, str]
) -> None:
    for query in QUERIES:
        response = client.post(URL, json={"query": query, "limit": 100}, headers=auth)
        assert response.status_code == 200, response.text
        assert response.json()["results"] == []
    filtered = {
        "query": "storm",
        "media_types": ["podcast"],
        "include_domains": ["example.com"],
        "entity_ids": ["ent_x"],
        "start_date": "2026-10-01",
        "end_date": "2026-11-20",
    }
    assert client.post(URL, json=filtered, headers=auth).json()["results"] == []
    search = get_search(runtime)
    assert not search.encoder.loaded
    assert not search.index.dense.loaded  # type: ignore[attr-defined]
