"""The client's additions against the real app: preview, feeds, replays (sync and async)."""

from __future__ import annotations

from datetime import timedelta

import herald_client
import pytest

from herald.core.clock import FrozenClock
from herald.runtime import Runtime
from herald.webhooks.events import create_event
from herald.workspaces.service import CreatedKey
from tests.client.conftest import run_jobs
from tests.monitors.support import WordSearch, add_content, use_word_search

PUBLIC_URL = "https://93.184.215.14/herald"  # a public literal: no DNS, never contacted here


@pytest.fixture
def words(runtime: Runtime, clock: FrozenClock) -> WordSearch:
    search = use_word_search(runtime)
    with runtime.sessions.write() as session:
        add_content(session, title="Solar farm opens", published_at=clock.now() - timedelta(days=1))
        add_content(session, title="Wind farm opens", published_at=clock.now() - timedelta(days=2))
    return search


def test_preview_and_feed(
    herald: herald_client.Client, runtime: Runtime, words: WordSearch
) -> None:
    preview = herald.monitors.preview(search={"query": "farm"}, days=3)
    assert [d.count for d in preview.days] == [0, 1, 1]
    assert preview.total == 2
    assert preview.days[1].top[0].content_item.title == "Solar farm opens"
    with pytest.raises(herald_client.FieldNotAllowedError):
        herald.monitors.preview(search={"query": "farm", "limit": 3})
    explained = herald.monitors.preview(search={"query": "solar farm"}, days=2, explain=True)
    match = explained.days[1].top[0].match
    assert match is not None
    assert match.terms.title == ["solar", "farm"]
    assert match.semantic_similarity is None  # this test's search computes no features
    assert preview.days[1].top[0].match is None

    monitor = herald.monitors.create(name="Farms", search={"query": "farm"})
    herald.monitors.backfill(monitor.id, dates=["2026-11-24"])
    run_jobs(runtime)
    (result,) = herald.monitors.results(monitor.id, explain=True).results
    assert result.match is not None
    assert result.match.terms.title == ["farm"]
    hits = herald.monitors.search(monitor.id, query="solar", explain=True).results
    assert hits[0].match is not None
    assert hits[0].match.terms.title == ["solar"]
    feed = herald.monitors.create_feed(monitor.id)
    assert feed.feed_url.startswith("http")
    assert "/feeds/" in feed.feed_url
    assert herald.monitors.revoke_feed(monitor.id).revoked is True
    assert herald.monitors.revoke_feed(monitor.id).revoked is False
    with pytest.raises(herald_client.NotFoundError):
        herald.monitors.create_feed("mon_unknown")


def test_replays(herald: herald_client.Client, runtime: Runtime, member_key: CreatedKey) -> None:
    with pytest.raises(herald_client.NotFoundError):
        herald.webhooks.replay_delivery(1)
    herald.webhooks.put(url=PUBLIC_URL)
    with runtime.sessions.write() as session:
        create_event(
            session,
            team_id=member_key.team_id,
            event_type="monitor.run.failed",
            data={},
            clock=runtime.clock,
        )
    replayed = herald.webhooks.replay(start="2026-11-25")
    assert replayed.replayed == 1
    assert replayed.has_more is False
    with pytest.raises(herald_client.RateLimitError):
        herald.webhooks.replay(start="2026-11-25")
    config = herald.webhooks.get()
    assert config.disabled_reason is None


@pytest.mark.anyio
async def test_the_async_client_drives_the_additions(
    aherald: herald_client.AsyncClient, words: WordSearch
) -> None:
    preview = await aherald.monitors.preview(search={"query": "solar"})
    assert len(preview.days) == 7
    assert preview.total == 1
    monitor = await aherald.monitors.create(name="Solar", search={"query": "solar"})
    feed = await aherald.monitors.create_feed(monitor.id)
    assert feed.monitor_id == monitor.id
    assert (await aherald.monitors.revoke_feed(monitor.id)).revoked is True
    with pytest.raises(herald_client.NotFoundError):
        await aherald.webhooks.replay_delivery(7)
    with pytest.raises(herald_client.NotFoundError):
        await aherald.webhooks.replay()
