"""Entry identity within a feed, strict feed dates, and JSON Feed sources polled over loopback."""

from __future__ import annotations

from datetime import UTC, datetime

import feedparser
import pytest
from fastapi.testclient import TestClient

from herald.ingest.dates import read_feed_date
from herald.ingest.polling import poll_source
from herald.ingest.source_records import add_source
from herald.ingest.sources.feeds import entry_identities
from herald.runtime import Runtime

from .conftest import FIXTURES, LoopbackInternet, LoopbackServer


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2020/1/10 14:33:00", datetime(2020, 1, 10, 14, 33, tzinfo=UTC)),
        ("2020-1-9", datetime(2020, 1, 9, tzinfo=UTC)),
        ("13.01.2020 08:00 +0100", datetime(2020, 1, 13, 7, 0, tzinfo=UTC)),
        ("01/13/2020", datetime(2020, 1, 13, tzinfo=UTC)),
        ("05/05/2020 10:00 GMT", datetime(2020, 5, 5, 10, 0, tzinfo=UTC)),
        ("Tue, 04 Feb 2020 06:30:00 +0100", datetime(2020, 2, 4, 5, 30, tzinfo=UTC)),
        ("2024-04-02T09:00:00+02:00", datetime(2024, 4, 2, 7, 0, tzinfo=UTC)),
    ],
)
def test_feed_dates_that_can_be_read(raw: str, expected: datetime) -> None:
    assert read_feed_date(raw) == (expected, None)


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ("10/02/2020 09:00", "is ambiguous (day/month order unknown)"),
        ("10.02.20", "is ambiguous (no four-digit year)"),
        ("2020/13/01", "is not a valid date"),
        ("sometime last week", "is not a date Herald can read"),
    ],
)
def test_feed_dates_that_are_reported(raw: str, problem: str) -> None:
    # Whatever feedparser made of it is not used.
    guessed = feedparser.parse(
        f"<rss version='2.0'><channel><item><pubDate>{raw}</pubDate></item></channel></rss>"
    ).entries[0]
    assert read_feed_date(raw, guessed.get("published_parsed")) == (None, problem)


def _entries(items: str) -> list[object]:
    feed = (
        f"<rss version='2.0'><channel><link>https://blog.example.com/</link>{items}</channel></rss>"
    )
    return list(feedparser.parse(feed).entries)


def test_a_guid_repeated_over_different_links_is_not_an_identity() -> None:
    entries = _entries(
        "<item><title>a</title><link>https://blog.example.com/a</link><guid>post</guid></item>"
        "<item><title>b</title><link>https://blog.example.com/b</link><guid>post</guid></item>"
        "<item><title>c</title><link>https://blog.example.com/c</link><guid>c-1</guid></item>"
    )
    assert entry_identities(entries, "https://blog.example.com/") == [None, None, "c-1"]


def test_the_same_entry_twice_keeps_one_identity() -> None:
    same = "<item><title>a</title><link>https://blog.example.com/a</link><guid>p1</guid></item>"
    assert entry_identities(_entries(same * 2), "https://blog.example.com/") == ["p1", "p1"]


def test_pages_shared_without_ids_get_distinct_ids() -> None:
    entries = _entries(
        "<item><title>one</title><link>https://blog.example.com/day#one</link></item>"
        "<item><title>two</title><link>https://blog.example.com/day#two</link></item>"
        "<item><title>ad 1</title><link>https://blog.example.com/ad</link></item>"
        "<item><title>ad 2</title><link>https://blog.example.com/ad</link></item>"
        "<item><title>alone</title><link>https://blog.example.com/alone</link></item>"
    )
    ids = entry_identities(entries, "https://blog.example.com/")
    assert ids[:2] == ["https://blog.example.com/day#one", "https://blog.example.com/day#two"]
    assert ids[2] != ids[3]
    assert all(i and i.startswith("https://blog.example.com/ad#entry-") for i in ids[2:4])
    assert ids[4] is None  # identified by its canonical URL, as before


def test_a_json_feed_source_is_polled(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    url = "http://feeds.test/sam.json"
    body = (FIXTURES / "real" / "jsonfeed_11_microblog.json").read_bytes()
    server.serve(url, body, content_type="application/feed+json")
    with runtime.sessions.write() as session:
        view = add_source(
            session,
            url=url,
            media_type="news",
            clock=runtime.clock,
            interval_seconds=900,
            format_name="jsonfeed",
        )
    outcome = poll_source(runtime.sessions, view.id, clock=runtime.clock, fetcher=internet)
    assert outcome.report is not None
    assert (outcome.report.accepted, len(outcome.report.rejected)) == (3, 1)
    again = poll_source(runtime.sessions, view.id, clock=runtime.clock, fetcher=internet)
    assert again.report is not None
    assert (again.report.accepted, again.report.duplicates) == (0, 3)


def test_an_unknown_format_parameter_is_a_400(
    client: TestClient, admin_auth: dict[str, str]
) -> None:
    response = client.post(
        "/v1/admin/content?format=csv",
        content=b"a,b\n",
        headers=admin_auth | {"Content-Type": "application/x-ndjson"},
    )
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_request"
