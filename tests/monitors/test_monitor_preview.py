"""Preview: per-day counts and top items of a saved search, equal to what dated jobs capture."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import func, select

from herald.db.models.monitor import Monitor, MonitorResult
from herald.runtime import Runtime
from tests.monitors.support import WordSearch

Content = Callable[..., str]


def preview(client: TestClient, auth: dict[str, str], body: dict[str, Any]) -> Any:
    return client.post("/v1/monitors/preview", json=body, headers=auth)


def seed(runtime: Runtime, content: Content) -> datetime:
    now = runtime.clock.now()
    today = now.replace(hour=1, minute=0, second=0, microsecond=0)
    for day in range(10):
        for n in range(day % 3 + 1):
            content(f"Solar farm {day} {n}", today - timedelta(days=day, minutes=-n))
        content(f"Wind farm {day}", today - timedelta(days=day))
    content("Solar roof", today - timedelta(days=2), domain="other.org")
    return now


def test_preview_equals_what_a_saved_monitor_then_captures(
    client: TestClient,
    auth: dict[str, str],
    runtime: Runtime,
    content: Content,
    word_search: WordSearch,
    drain: Callable[[], int],
) -> None:
    now = seed(runtime, content)
    search = {"query": "solar", "include_domains": ["example.com"]}
    response = preview(client, auth, {"search": search, "days": 5})
    assert response.status_code == 200, response.text
    body = response.json()
    dates = [(now.date() - timedelta(days=i)).isoformat() for i in range(5)]
    assert [d["published_date"] for d in body["days"]] == dates
    assert [d["count"] for d in body["days"]] == [1, 2, 3, 1, 2]
    assert body["total"] == 9
    titles = [r["content_item"]["title"] for r in body["days"][2]["top"]]
    assert sorted(titles) == ["Solar farm 2 0", "Solar farm 2 1", "Solar farm 2 2"]
    scores = [r["score"] for r in body["days"][2]["top"]]
    assert scores == sorted(scores, reverse=True)
    with runtime.sessions.read() as session:
        assert session.scalar(select(func.count()).select_from(Monitor)) == 0  # nothing saved
    # the same dated-job requests as the monitor's jobs
    assert [c.limit for c in word_search.calls] == [1000] * 5

    created = client.post(
        "/v1/monitors", json={"name": "solar", "search": search}, headers=auth
    ).json()
    queued = client.post(
        f"/v1/monitors/{created['id']}/backfills", json={"dates": dates}, headers=auth
    )
    assert queued.status_code == 202
    drain()
    with runtime.sessions.read() as session:
        stored = session.execute(
            select(MonitorResult.published_date, MonitorResult.content_id, MonitorResult.score)
        ).all()
    per_day = Counter(row.published_date.isoformat() for row in stored)
    assert [per_day[d["published_date"]] for d in body["days"]] == [
        d["count"] for d in body["days"]
    ]
    previewed = {(r["content_item"]["id"], r["score"]) for d in body["days"] for r in d["top"]}
    assert previewed == {(row.content_id, row.score) for row in stored}


def test_preview_defaults_to_seven_days_and_checks_its_input(
    client: TestClient,
    auth: dict[str, str],
    runtime: Runtime,
    content: Content,
    word_search: WordSearch,
) -> None:
    seed(runtime, content)
    body = preview(client, auth, {"search": {"query": "wind"}}).json()
    assert len(body["days"]) == 7
    assert body["total"] == 7
    for bad in (0, 31, "7", True):
        refused = preview(client, auth, {"search": {"query": "wind"}, "days": bad})
        assert refused.status_code == 400, bad
        assert refused.json()["error"] in {"invalid_request", "validation_error"}
    limited = preview(client, auth, {"search": {"query": "wind", "limit": 5}})
    assert limited.status_code == 400
    assert limited.json()["error"] == "field_not_allowed"
    assert preview(client, {}, {"search": {"query": "wind"}}).status_code == 401
