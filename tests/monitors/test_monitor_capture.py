"""A dated job keeps every match of its day up to 1000, not only the retrieval candidates.

Content search scores its best 100 lexical and 100 dense candidates; a dated job scores every
item of the day the same way (exhaustive), so a broad monitor on a busy day captures all its
matches, with the scores content search gives them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from herald.db.models.monitor import MonitorResult
from herald.jobs.worker import Worker
from herald.monitors.rules import DATED_JOB_LIMIT
from herald.monitors.saved_search import SavedSearch
from herald.runtime import Runtime
from herald.search.service import get_search
from tests.enrich.models import embedder
from tests.search.support import put_item

DAY = date(2026, 11, 24)
QUERY = "solar panels"
PLACES = ("Texas", "Ohio", "Spain", "Chile", "Kenya", "India", "Norway", "Japan", "Peru", "Oman")
THINGS = ("factory", "farm", "tariff", "subsidy", "recycling", "warranty", "auction", "startup")
HOW = ("opens", "expands", "stalls", "wins approval", "faces delays")


def strong_texts(count: int) -> list[tuple[str, str]]:
    """Distinct items about solar panels (title and body name them): all match the query."""
    out = []
    for i in range(count):
        place, thing = PLACES[i % len(PLACES)], THINGS[(i // len(PLACES)) % len(THINGS)]
        how = HOW[(i // (len(PLACES) * len(THINGS))) % len(HOW)]
        n = i // (len(PLACES) * len(THINGS) * len(HOW))
        out.append(
            (
                f"Solar panels {thing} in {place} {how} ({n})",
                f"The solar panels {thing} in {place} {how}; installers of solar panels react.",
            )
        )
    return out


def put_day(runtime: Runtime, texts: list[tuple[str, str]], prefix: str) -> list[str]:
    start = datetime(DAY.year, DAY.month, DAY.day, tzinfo=UTC)
    step = timedelta(seconds=86_000 / max(len(texts), 1))
    return [
        put_item(
            runtime,
            f"https://news.example/{prefix}/{i}",
            title=title,
            body=body,
            published_at=start + i * step,
        )
        for i, (title, body) in enumerate(texts)
    ]


def stored(runtime: Runtime, monitor_id: str) -> dict[str, float]:
    with runtime.sessions.read() as session:
        rows = session.execute(
            select(MonitorResult.content_id, MonitorResult.score).where(
                MonitorResult.monitor_id == monitor_id
            )
        ).all()
    return {cid: float(score) for cid, score in rows}


def run_now(client: TestClient, auth: dict[str, str], runtime: Runtime, monitor_id: str) -> None:
    response = client.post(f"/v1/monitors/{monitor_id}/run", headers=auth)
    assert response.status_code in (200, 202), response.text
    Worker(runtime).drain()


@pytest.mark.slow
def test_a_broad_monitor_captures_every_match_of_a_busy_day(
    client: TestClient,
    auth: dict[str, str],
    runtime: Runtime,
    make_monitor: Callable[..., dict[str, Any]],
) -> None:
    runtime.service("embedder", embedder)
    ids = put_day(runtime, strong_texts(300), "busy")
    monitor = make_monitor(QUERY)
    run_now(client, auth, runtime, monitor["id"])

    captured = stored(runtime, monitor["id"])
    assert set(captured) == set(ids)  # before: the 100 + 100 candidates, at most 200

    # Same scores as content search of that day (its results are among its candidates).
    window = {"start_date": DAY.isoformat(), "end_date": DAY.isoformat()}
    found = client.post(
        "/v1/content/search", json={"query": QUERY, "limit": 100, **window}, headers=auth
    ).json()["results"]
    assert len(found) == 100
    for result in found:
        assert captured[result["content_item"]["id"]] == pytest.approx(result["score"], abs=1e-6)

    # A search within the store (bigger than 200) returns its best items, scored the same.
    within = client.post(
        f"/v1/monitors/{monitor['id']}/search",
        json={"query": QUERY, "limit": 100, **window},
        headers=auth,
    ).json()["results"]
    best = sorted(captured.values(), reverse=True)[:100]
    assert [r["score"] for r in within] == pytest.approx(best, abs=1e-6)
    for result in within:
        assert captured[result["content_item"]["id"]] == pytest.approx(result["score"], abs=1e-6)


def test_a_rare_word_is_scored_as_content_search_scores_it(
    client: TestClient,
    auth: dict[str, str],
    runtime: Runtime,
    make_monitor: Callable[..., dict[str, Any]],
) -> None:
    """A word few items contain has a large BM25, which must not leak into the term and title
    matches of a job's evidence (it did: an earthquake report of the demo corpus was captured
    with coverage 0 and score 0.17 where content search of its day had 1 and 0.78)."""
    runtime.service("embedder", embedder)
    other = [
        (f"Council debates the {thing} budget in {place}", f"The {thing} budget of {place} was "
         "debated for hours; members asked for a new vote next month.")
        for place in PLACES for thing in THINGS
    ]  # fmt: skip
    rare = [
        ("Earthquake strikes Esmeraldas, Ecuador", "A strong earthquake strikes Esmeraldas, "
         "shutting down power and damaging 800 buildings."),
        ("Aftershocks follow in Ecuador", "Residents report aftershocks a day after the "
         "earthquake; schools stay closed."),
    ]  # fmt: skip
    put_day(runtime, other + rare, "rare")
    monitor = make_monitor("earthquake")
    run_now(client, auth, runtime, monitor["id"])
    captured = stored(runtime, monitor["id"])

    window = {"start_date": DAY.isoformat(), "end_date": DAY.isoformat()}
    found = client.post(
        "/v1/content/search", json={"query": "earthquake", **window}, headers=auth
    ).json()["results"]
    assert len(found) == 2
    assert {r["content_item"]["id"]: r["score"] for r in found} == pytest.approx(captured, abs=1e-6)
    # Every feature, not only the score (a model may not weigh the one that differs).
    job = SavedSearch("earthquake").dated_request(DAY)
    with runtime.sessions.read() as session:
        exhaustive = get_search(runtime).search(session, job)
        candidates = get_search(runtime).search(session, replace(job, exhaustive=False))
    assert [(h.content_id, h.features) for h in exhaustive] == [
        (h.content_id, h.features) for h in candidates
    ]


@pytest.mark.slow
def test_a_day_with_more_matches_than_the_limit_keeps_exactly_the_best_1000(
    client: TestClient,
    auth: dict[str, str],
    runtime: Runtime,
    make_monitor: Callable[..., dict[str, Any]],
) -> None:
    runtime.service("embedder", embedder)
    strong = put_day(runtime, strong_texts(DATED_JOB_LIMIT), "strong")
    # Weaker matches: the query once, in a long body about something else.
    weak = put_day(
        runtime,
        [
            (
                f"Grid operators report on winter demand ({i})",
                f"Demand forecasts, gas storage and wind output were discussed at length in "
                f"region {i}; rooftop solar panels were mentioned once among many sources.",
            )
            for i in range(200)
        ],
        "weak",
    )
    # More than the limit match above the threshold (every item of the day scored).
    with runtime.sessions.read() as session:
        every = get_search(runtime).search(
            session, SavedSearch(QUERY).dated_request(DAY, limit=len(strong) + len(weak))
        )
    assert len(every) > DATED_JOB_LIMIT

    monitor = make_monitor(QUERY)
    run_now(client, auth, runtime, monitor["id"])
    captured = stored(runtime, monitor["id"])
    assert len(captured) == DATED_JOB_LIMIT
    assert set(captured) == {hit.content_id for hit in every[:DATED_JOB_LIMIT]}
    assert set(captured) == set(strong)  # the best are the ones that are about solar panels
