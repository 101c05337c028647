"""``client.content`` and ``client.entities`` against the real app, on content ingested through
the operator endpoint and enriched by the real worker."""

from __future__ import annotations

from datetime import date

import herald_client
import httpx
import pytest
from herald_client.models import ContentItem

from herald.runtime import Runtime
from tests.client.conftest import run_jobs

ECB = "ent_99yig2g1bclgxrqxtguv"  # "European Central Bank" in the bundled seed
ITEMS = [
    {
        "url": "https://news.example.com/2026/11/24/ecb-holds-rates",
        "media_type": "news",
        "title": "European Central Bank holds interest rates steady",
        "published_date": "2026-11-24T09:00:00Z",
        "source": {"name": "Example News", "domain": "news.example.com"},
        "authors": ["A. Writer"],
        "body": (
            "The European Central Bank left its key interest rates unchanged on Tuesday. "
            "ECB President Christine Lagarde said inflation in the euro area was easing. "
            "The European Central Bank will meet again in December to review the outlook. "
            "Markets in Frankfurt rose after the decision of the European Central Bank."
        ),
    },
    {
        "url": "https://wire.example.org/ecb-lagarde-outlook",
        "media_type": "wire",
        "title": "Lagarde: European Central Bank sees slower inflation",
        "published_date": "2026-11-23T15:30:00Z",
        "source": {"name": "Example Wire", "domain": "wire.example.org"},
        "body": (
            "Christine Lagarde, president of the European Central Bank, said on Monday that "
            "inflation should keep slowing next year. The European Central Bank expects "
            "growth to pick up. Analysts said the ECB could cut rates in the spring."
        ),
    },
]


def ingest(admin: httpx.Client) -> list[str]:
    response = admin.post("/v1/admin/content", json=ITEMS)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["accepted"] == 2, body
    return list(body["content_ids"])


def test_content_get_before_and_after_enrichment(
    herald: herald_client.Client, herald_admin: httpx.Client, runtime: Runtime
) -> None:
    news_id, wire_id = ingest(herald_admin)
    raw = herald.content.get(news_id)
    assert isinstance(raw, ContentItem)
    assert (raw.id, raw.media_type, raw.title) == (news_id, "news", ITEMS[0]["title"])
    assert raw.url == ITEMS[0]["url"]
    assert raw.source.name == "Example News"
    assert raw.published_date.isoformat() == "2026-11-24T09:00:00+00:00"
    assert raw.enriched_at is None
    assert raw.request_id is not None

    run_jobs(runtime)
    item = herald.content.get(news_id)
    assert item.enriched_at is not None
    assert item.summary
    assert item.key_points
    assert item.language == "en"
    assert item.word_count is not None
    assert item.word_count > 20
    assert item.entities is not None
    assert ECB in [e.entity_id for e in item.entities]
    assert all(0 <= e.salience <= 1 and 0 <= e.confidence <= 1 for e in item.entities)
    assert herald.content.get(wire_id).media_type == "wire"

    with pytest.raises(herald_client.NotFoundError) as missing:
        herald.content.get("cnt_does_not_exist")
    assert missing.value.status_code == 404
    assert missing.value.request_id


def test_entity_search_and_timeline(
    herald: herald_client.Client, herald_admin: httpx.Client, seeded: Runtime
) -> None:
    found = herald.entities.search(query="European Central Bank", limit=3)
    assert found.results[0].entity.id == ECB
    assert found.results[0].entity.entity_id == ECB
    assert found.results[0].entity.entity_kind == "organization"
    assert "ECB" in found.results[0].entity.aliases
    assert 0 <= found.results[0].score <= 1
    assert found.meta is not None
    people = herald.entities.search(query="Tim Cook", entity_kinds=["person"], limit=5)
    assert people.results
    assert {r.entity.entity_kind for r in people.results} == {"person"}

    news_id, wire_id = ingest(herald_admin)
    run_jobs(seeded)
    timeline = herald.entities.timeline(ECB, start_date="2026-11-01", end_date=date(2026, 11, 25))
    assert timeline.entity_id == ECB
    assert [t.id for t in timeline.timeline] == [news_id, wire_id]  # newest first
    assert timeline.timeline[0].source.name == "Example News"
    assert (timeline.next_offset, timeline.has_more) == (None, False)
    assert [t.id for t in herald.entities.timeline_all(ECB, page_size=1)] == [news_id, wire_id]
    only_wire = herald.entities.timeline(ECB, media_types=["wire"])
    assert [t.id for t in only_wire.timeline] == [wire_id]

    with pytest.raises(herald_client.NotFoundError):
        herald.entities.timeline("ent_nobody")
    with pytest.raises(herald_client.InvalidRequestError):
        herald.entities.timeline(ECB, limit=101)
    with pytest.raises(herald_client.DateWindowTooLongError):
        herald.entities.timeline(ECB, start_date="2026-11-20", end_date="2026-11-10")
    with pytest.raises(herald_client.InvalidRequestError):
        herald.entities.search(query="ECB", limit=0)
    with pytest.raises(herald_client.InvalidRequestError):
        herald.entities.search(query="   ")


@pytest.mark.anyio
async def test_the_async_client_reads_content_and_entities(
    aherald: herald_client.AsyncClient, herald_admin: httpx.Client, seeded: Runtime
) -> None:
    news_id, _ = ingest(herald_admin)
    assert (await aherald.content.get(news_id)).title == ITEMS[0]["title"]
    with pytest.raises(herald_client.NotFoundError):
        await aherald.content.get("cnt_missing")
    found = await aherald.entities.search(query="Federal Reserve", entity_kinds=["organization"])
    assert found.results[0].entity.display_name == "Federal Reserve"
    timeline = await aherald.entities.timeline(found.results[0].entity.id)
    assert timeline.timeline == []
    assert [t async for t in aherald.entities.timeline_all(found.results[0].entity.id)] == []
