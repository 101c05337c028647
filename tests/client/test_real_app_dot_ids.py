"""An id that is "." or ".." names that id, from the real app: URL normalisation would resolve
such a path segment away and send the request to another endpoint (``POST
/v1/monitors/./run`` is ``POST /v1/monitors/run``, ``GET /v1/monitors/ID/backfills/..`` is the
monitor itself)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import herald_client
import pytest


@pytest.mark.parametrize("dots", [".", ".."])
def test_a_dot_segment_id_is_not_found_never_another_endpoint(
    herald: herald_client.Client, dots: str
) -> None:
    monitor = herald.monitors.create(name="Dots", search={"query": "ecb"})
    calls: list[tuple[str, Callable[[], Any]]] = [
        ("content.get", lambda: herald.content.get(dots)),
        ("clusters.get", lambda: herald.clusters.get(dots)),
        ("entities.timeline", lambda: herald.entities.timeline(dots)),
        ("monitors.get", lambda: herald.monitors.get(dots)),
        ("monitors.run", lambda: herald.monitors.run(dots)),
        ("monitors.results", lambda: herald.monitors.results(dots)),
        ("monitors.search", lambda: herald.monitors.search(dots, query="ecb")),
        ("monitors.delete", lambda: herald.monitors.delete(dots)),
        ("monitors.revoke_feed", lambda: herald.monitors.revoke_feed(dots)),
        ("monitors.task", lambda: herald.monitors.task(monitor.id, dots)),
    ]
    for name, call in calls:
        with pytest.raises(herald_client.NotFoundError) as info:
            call()
        assert info.value.code == "not_found", name
    assert herald.monitors.get(monitor.id).status == "active"
