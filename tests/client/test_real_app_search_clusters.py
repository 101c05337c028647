"""Content search, monitor results and story clusters through the client, on content ingested
and enriched by the real pipeline. Each test is skipped (saying why) while the route it needs
is not served yet."""

from __future__ import annotations

from datetime import date

import herald_client
import httpx
import pytest
from fastapi import FastAPI

from herald.runtime import Runtime
from tests.client.conftest import run_jobs
from tests.client.test_real_app_content import ECB, ITEMS, ingest

START, END = "2026-11-01", date(2026, 11, 25)


def needs(app: FastAPI, *paths: str) -> None:
    served = set(app.openapi()["paths"])
    missing = [p for p in paths if p not in served]
    if missing:
        pytest.skip(f"the server does not serve {', '.join(missing)} yet")


def test_content_search_filters_and_window_rules(
    app: FastAPI, herald: herald_client.Client, herald_admin: httpx.Client, runtime: Runtime
) -> None:
    needs(app, "/v1/content/search")
    news_id, wire_id = ingest(herald_admin)
    run_jobs(runtime)

    page = herald.content.search(
        query="European Central Bank interest rates", start_date=START, end_date=END
    )
    assert page.meta is not None
    ids = [r.content_item.id for r in page.results]
    assert set(ids) == {news_id, wire_id}
    scores = [r.score for r in page.results]
    assert scores == sorted(scores, reverse=True)
    assert all(0 <= s <= 1 for s in scores)
    first = page.results[0].content_item
    assert first.source.domain in {"example.com", "example.org"}  # registrable domains
    assert first.summaries is None  # the search form: no summaries or entities
    assert first.entities is None

    assert [
        r.content_item.id
        for r in herald.content.search(
            query="European Central Bank", media_types=["wire"], start_date=START, end_date=END
        ).results
    ] == [wire_id]
    assert [
        r.content_item.id
        for r in herald.content.search(
            query="European Central Bank",
            include_domains=["example.com"],
            start_date=START,
            end_date=END,
        ).results
    ] == [news_id]
    assert [
        r.content_item.id
        for r in herald.content.search(
            query="European Central Bank",
            exclude_domains=["example.com"],
            start_date=START,
            end_date=END,
        ).results
    ] == [wire_id]
    assert {
        r.content_item.id
        for r in herald.content.search(
            query="inflation", entity_ids=[ECB], start_date=START, end_date=END
        ).results
    } <= {news_id, wire_id}
    assert (
        len(
            herald.content.search(
                query="European Central Bank", limit=1, start_date=START, end_date=END
            ).results
        )
        == 1
    )
    outside = herald.content.search(
        query="European Central Bank", start_date="2026-10-01", end_date="2026-10-31"
    )
    assert outside.results == []

    with pytest.raises(herald_client.DateWindowIncompleteError):
        herald.content.search(query="ecb", start_date="2026-11-01")
    with pytest.raises(herald_client.DateWindowTooLongError) as too_long:
        herald.content.search(query="ecb", start_date="2026-01-01", end_date="2026-11-01")
    assert too_long.value.request_id
    with pytest.raises(herald_client.DateWindowTooLongError):
        herald.content.search(query="ecb", start_date="2026-11-20", end_date="2026-11-10")
    with pytest.raises(herald_client.DomainFilterConflictError):
        herald.content.search(query="ecb", include_domains=["a.com"], exclude_domains=["b.com"])
    with pytest.raises(herald_client.TooManyDomainsError):
        herald.content.search(query="ecb", include_domains=[f"d{i}.com" for i in range(11)])
    with pytest.raises(herald_client.InvalidRequestError) as limit:
        herald.content.search(query="ecb", limit=101)
    assert limit.value.code == "invalid_request"


def test_monitor_results_fill_from_dated_jobs(
    app: FastAPI, herald: herald_client.Client, herald_admin: httpx.Client, runtime: Runtime
) -> None:
    needs(app, "/v1/content/search")
    news_id, wire_id = ingest(herald_admin)
    run_jobs(runtime)
    monitor = herald.monitors.create(
        name="ECB", search={"query": "European Central Bank", "media_types": ["news", "wire"]}
    )
    task = herald.monitors.backfill(monitor.id, dates=["2026-11-23", "2026-11-24"])
    run_jobs(runtime)

    done = herald.monitors.task(monitor.id, task.task_id)
    assert done.status == "succeeded"
    assert done.summary.succeeded == 2
    results = list(herald.monitors.results_all(monitor.id, page_size=1))
    assert [r.content_item.id for r in results] == [news_id, wire_id]  # newest first
    assert [r.published_date for r in results] == [date(2026, 11, 24), date(2026, 11, 23)]
    ledger = herald.monitors.ledger(monitor.id)
    assert {e.status for e in ledger.backfills} == {"succeeded"}
    assert {e.result_count for e in ledger.backfills} == {1}
    only_24th = herald.monitors.results(monitor.id, start_date="2026-11-24", end_date="2026-11-24")
    assert [r.content_item.id for r in only_24th.results] == [news_id]
    found = herald.monitors.search(
        monitor.id, query="Lagarde inflation", start_date=START, end_date=END
    )
    assert {r.content_item.id for r in found.results} <= {news_id, wire_id}
    assert found.results


def test_clusters_list_and_detail(
    app: FastAPI, herald: herald_client.Client, herald_admin: httpx.Client, runtime: Runtime
) -> None:
    needs(app, "/v1/news/clusters", "/v1/news/clusters/{cluster_id}")
    news_id, _ = ingest(herald_admin)
    run_jobs(runtime)
    cluster_id = herald.content.get(news_id).cluster_id
    assert cluster_id is not None

    detail = herald.clusters.get(cluster_id)
    assert detail.cluster.cluster_id == cluster_id
    assert detail.cluster.cluster_type == "cluster"
    assert detail.cluster.member_count == len(detail.members)
    assert news_id in [m.content_id for m in detail.members]
    assert all(m.content_item.id == m.content_id for m in detail.members)

    listed = herald.clusters.list(start_date="2026-11-18", end_date="2026-11-25")
    assert listed.meta is not None
    assert all(c.status != "stub" for c in listed.clusters)
    assert [c.cluster_id for c in herald.clusters.list_all(page_size=1)] == [
        c.cluster_id for c in herald.clusters.list(limit=100).clusters
    ]
    if detail.cluster.status == "regular":
        assert cluster_id in [c.cluster_id for c in listed.clusters]

    with pytest.raises(herald_client.NotFoundError):
        herald.clusters.get("clu_missing")
    with pytest.raises(herald_client.InvalidRequestError):
        herald.clusters.list(limit=0)


@pytest.mark.anyio
async def test_the_async_client_searches_and_lists_clusters(
    app: FastAPI, aherald: herald_client.AsyncClient, herald_admin: httpx.Client, runtime: Runtime
) -> None:
    needs(app, "/v1/content/search", "/v1/news/clusters")
    news_id, _ = ingest(herald_admin)
    run_jobs(runtime)
    found = await aherald.content.search(
        query=str(ITEMS[0]["title"]), start_date=START, end_date=END
    )
    assert found.meta is not None
    assert news_id in [r.content_item.id for r in found.results]
    clusters = [c async for c in aherald.clusters.list_all()]
    assert all(c.status != "stub" for c in clusters)
    cluster_id = (await aherald.content.get(news_id)).cluster_id
    assert cluster_id is not None
    assert (await aherald.clusters.get(cluster_id)).cluster.cluster_id == cluster_id
    with pytest.raises(herald_client.DateWindowIncompleteError):
        await aherald.content.search(query="ecb", end_date="2026-11-01")


def test_a_search_right_after_ingestion_answers(
    app: FastAPI, herald: herald_client.Client, herald_admin: httpx.Client
) -> None:
    needs(app, "/v1/content/search")
    ids = ingest(herald_admin)  # stored, enrichment not run yet: no vector stored anywhere
    page = herald.content.search(query="European Central Bank", start_date=START, end_date=END)
    assert {r.content_item.id for r in page.results} <= set(ids)
