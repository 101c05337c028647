"""Fixtures for the monitors area: a registered plain search, content and monitors."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient

from herald.jobs.worker import Worker
from herald.runtime import Runtime
from tests.monitors.support import WordSearch, add_content, use_word_search


@pytest.fixture
def word_search(runtime: Runtime) -> WordSearch:
    return use_word_search(runtime)


@pytest.fixture
def content(runtime: Runtime) -> Callable[..., str]:
    def _add(title: str, published_at: datetime, **kwargs: Any) -> str:
        with runtime.sessions.write() as session:
            return add_content(session, title=title, published_at=published_at, **kwargs)

    return _add


@pytest.fixture
def drain(runtime: Runtime, word_search: WordSearch) -> Callable[[], int]:
    def _drain() -> int:
        return Worker(runtime).drain()

    return _drain


@pytest.fixture
def make_monitor(client: TestClient, auth: dict[str, str]) -> Callable[..., dict[str, Any]]:
    def _make(query: str = "solar", **fields: Any) -> dict[str, Any]:
        body = {"name": f"{query} watch", "search": {"query": query}} | fields
        response = client.post("/v1/monitors", json=body, headers=auth)
        assert response.status_code == 201, response.text
        return dict(response.json())

    return _make
