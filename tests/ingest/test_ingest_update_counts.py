"""``herald_ingest_updates_total``: each committed update of a stored item, counted by whether
it kept its enrichment or was queued to be enriched again (the work the rule saves), on both
databases. A batch that rolls back counts nothing."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from herald.core.clock import FrozenClock
from herald.db.models.content import ContentItem
from herald.enrich.inputs import input_of_row
from herald.ingest.model import IncomingItem
from herald.ingest.service import store_items
from herald.ingest.sources import Document, JsonLinesAdapter
from herald.runtime import Runtime
from tests.metrics.scrape import value

BODY = (
    "The harbour authority of Rotterdam opened a third container terminal on Monday. Ships of "
    "the largest class can now berth there at any tide, the authority said in a statement."
)


def _article(**changes: Any) -> dict[str, Any]:
    article: dict[str, Any] = {
        "url": "https://news.example.com/rotterdam-terminal",
        "media_type": "news",
        "title": "Rotterdam opens a third container terminal",
        "published_date": "2026-11-24T09:00:00Z",
        "source": {"name": "Example News", "domain": "news.example.com"},
        "authors": ["A. Writer"],
        "body": BODY,
    }
    return article | changes


def _ingest(client: TestClient, admin_auth: dict[str, str], item: dict[str, Any]) -> list[str]:
    """The ids of the items the import wrote (none for a duplicate)."""
    response = client.post("/v1/admin/content", json=[item], headers=admin_auth)
    assert response.status_code == 200, response.text
    return list(response.json()["content_ids"])


def _enriched(runtime: Runtime, content_id: str) -> None:
    """What enrichment records when it stores its results: the input it read."""
    with runtime.sessions.write() as session:
        row = session.get(ContentItem, content_id)
        assert row is not None
        row.enrichment_input = input_of_row(row)


def _counts(client: TestClient) -> tuple[float, float]:
    text = client.get("/metrics").text
    kept = value(text, "herald_ingest_updates_total", enrichment="kept")
    redone = value(text, "herald_ingest_updates_total", enrichment="redone")
    assert kept is not None
    assert redone is not None
    return kept, redone


def test_updates_are_counted_by_whether_they_kept_their_enrichment(
    client: TestClient, runtime: Runtime, admin_auth: dict[str, str], clock: FrozenClock
) -> None:
    [content_id] = _ingest(client, admin_auth, _article())
    _enriched(runtime, content_id)
    kept, redone = _counts(client)  # the counter is the process's: compare with what it was

    clock.advance(timedelta(hours=1))
    _ingest(client, admin_auth, _article(authors=["A. Writer", "B. Editor"]))  # not read
    assert _counts(client) == (kept + 1, redone)

    assert _ingest(client, admin_auth, _article(authors=["A. Writer", "B. Editor"])) == []
    assert _counts(client) == (kept + 1, redone)

    clock.advance(timedelta(hours=1))
    _ingest(client, admin_auth, _article(body=BODY + " Dredging starts in the spring."))
    assert _counts(client) == (kept + 1, redone + 1)


def test_a_batch_that_rolls_back_counts_no_update(
    client: TestClient, runtime: Runtime, admin_auth: dict[str, str], clock: FrozenClock
) -> None:
    [content_id] = _ingest(client, admin_auth, _article())
    _enriched(runtime, content_id)
    before = _counts(client)
    clock.advance(timedelta(hours=1))
    changed = json.dumps(_article(title="Rotterdam opens its third terminal")).encode()
    [item] = JsonLinesAdapter().parse(Document(content=changed, origin="test"))
    assert isinstance(item, IncomingItem)
    with pytest.raises(RuntimeError), runtime.sessions.write() as session:
        report = store_items(session, [item], clock=clock)
        assert (report.updated, report.enriched_again) == (1, 1)
        raise RuntimeError("the rest of the unit of work failed")
    assert _counts(client) == before
    with runtime.sessions.read() as session:
        row = session.get(ContentItem, content_id)
        assert row is not None
        assert row.title == "Rotterdam opens a third container terminal"
