"""Sources polled from a real loopback HTTP server: conditional GET, failures, schedule."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select

from herald.core.clock import FrozenClock, SystemClock
from herald.db.models.content import ContentItem
from herald.db.models.ingest import Source
from herald.db.models.job import Job
from herald.errors import InvalidRequest, NotFound
from herald.ingest.fetch import FetchPolicy, HttpFetcher
from herald.ingest.polling import POLL_JOB, poll_source, schedule_due_polls
from herald.ingest.source_records import add_source, list_sources, parse_interval, remove_source
from herald.jobs.worker import Worker
from herald.runtime import Runtime

from .conftest import LoopbackInternet, LoopbackServer, article_page, ecbplus_docs, fixture_bytes

FEED_URL = "http://feeds.test/liftoff.xml"
RSS = "application/rss+xml"


def _add(runtime: Runtime, url: str = FEED_URL, media_type: str = "news", **kw: object) -> str:
    with runtime.sessions.write() as session:
        view = add_source(
            session, url=url, media_type=media_type, clock=runtime.clock, interval_seconds=900, **kw
        )  # type: ignore[arg-type]
    return view.id


def _source(runtime: Runtime, source_id: str) -> Source:
    with runtime.sessions.read() as session:
        source = session.get(Source, source_id)
        assert source is not None
        return source


def _count(runtime: Runtime) -> int:
    with runtime.sessions.read() as session:
        return int(session.execute(select(func.count()).select_from(ContentItem)).scalar_one())


def _serve_liftoff(server: LoopbackServer, etag: str = '"v1"') -> None:
    server.serve(FEED_URL, fixture_bytes("rss20_liftoff.xml"), content_type=RSS, etag=etag)
    doc = ecbplus_docs()["29_1ecbplus"]["text"].split("\n")
    for page in ("news-starcity.asp", "news-VASIMR.asp", "news-laundry.asp"):
        server.serve(
            f"http://liftoff.msfc.nasa.gov/news/2003/{page}",
            article_page(doc[0], doc[2:], site="Liftoff News"),
        )


def test_poll_stores_items_then_304_changes_nothing(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    _serve_liftoff(server)
    source_id = _add(runtime)
    outcome = poll_source(runtime.sessions, source_id, clock=runtime.clock, fetcher=internet)
    assert outcome.status == "stored"
    assert outcome.report is not None
    assert outcome.report.accepted == 4  # the untitled entry is titled from its text
    assert outcome.report.rejected == []
    source = _source(runtime, source_id)
    assert source.etag == '"v1"'
    assert source.last_error is None
    assert source.last_success_at == runtime.clock.now()
    assert source.last_report
    assert source.last_report["accepted"] == 4
    assert "entry has no title; titled from its first sentence" in str(
        source.last_report["warnings"]
    )
    with runtime.sessions.read() as session:
        assert set(session.scalars(select(ContentItem.source_id))) == {source_id}

    fetched = len(server.hits)
    outcome = poll_source(runtime.sessions, source_id, clock=runtime.clock, fetcher=internet)
    assert outcome.status == "not_modified"
    assert server.hits[-1].headers["if-none-match"] == '"v1"'
    assert len(server.hits) == fetched + 1  # no article page fetched again
    assert _count(runtime) == 4


def test_a_changed_feed_does_not_refetch_known_pages(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    _serve_liftoff(server)
    source_id = _add(runtime)
    poll_source(runtime.sessions, source_id, clock=runtime.clock, fetcher=internet)
    _serve_liftoff(server, etag='"v2"')  # e.g. lastBuildDate changed
    pages_before = len([h for h in server.hits if h.path.startswith("liftoff")])
    outcome = poll_source(runtime.sessions, source_id, clock=runtime.clock, fetcher=internet)
    assert outcome.report is not None
    assert (outcome.report.accepted, outcome.report.duplicates) == (0, 4)
    assert len([h for h in server.hits if h.path.startswith("liftoff")]) == pages_before
    assert _source(runtime, source_id).etag == '"v2"'


@pytest.mark.parametrize(
    ("route", "kind"),
    [
        ({"status": 500, "content_type": "text/plain"}, "http_status: HTTP 500"),
        (
            {"content_type": "text/html; charset=utf-8"},
            "content_type: unexpected content type text/html",
        ),
    ],
)
def test_an_erroring_feed_keeps_its_items_and_schedule(
    runtime: Runtime,
    server: LoopbackServer,
    internet: LoopbackInternet,
    route: dict[str, object],
    kind: str,
) -> None:
    _serve_liftoff(server)
    source_id = _add(runtime)
    poll_source(runtime.sessions, source_id, clock=runtime.clock, fetcher=internet)
    before = _source(runtime, source_id)
    server.serve(FEED_URL, b"<html>maintenance</html>", **route)  # type: ignore[arg-type]
    outcome = poll_source(runtime.sessions, source_id, clock=runtime.clock, fetcher=internet)
    assert outcome.status == "failed"
    source = _source(runtime, source_id)
    assert source.last_error
    assert source.last_error.startswith(kind)
    assert source.consecutive_failures == 1
    assert source.last_success_at == before.last_success_at
    assert source.next_poll_at == before.next_poll_at
    assert source.etag == before.etag
    assert _count(runtime) == 4
    with runtime.sessions.read() as session:
        views = list_sources(session)
    assert views[0].last_error == source.last_error


def test_an_oversized_feed_is_an_error(runtime: Runtime, server: LoopbackServer) -> None:
    server.serve(FEED_URL, fixture_bytes("rss20_liftoff.xml") * 20, content_type=RSS)
    source_id = _add(runtime)
    with HttpFetcher(clock=SystemClock(), policy=FetchPolicy(max_bytes=4096)) as small:
        outcome = poll_source(
            runtime.sessions,
            source_id,
            clock=runtime.clock,
            fetcher=LoopbackInternet(server, small),
        )
    assert outcome.status == "failed"
    assert (_source(runtime, source_id).last_error or "").startswith("too_large:")


def test_a_document_that_is_no_feed_is_an_error(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    server.serve(FEED_URL, b"\x00garbage", content_type="application/xml")
    source_id = _add(runtime)
    outcome = poll_source(runtime.sessions, source_id, clock=runtime.clock, fetcher=internet)
    assert outcome.status == "failed"
    assert (_source(runtime, source_id).last_error or "").startswith(
        "document: not an RSS or Atom feed"
    )


def test_podcast_and_ninjs_sources(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    server.serve(
        "http://feeds.test/pod.xml",
        fixture_bytes("podcast20_transcript_formats.xml"),
        content_type="application/rss+xml",
    )
    server.serve(
        "https://example.com/ep3/transcript.json",
        fixture_bytes("transcript_example.json"),
        content_type="application/json",
    )
    server.serve(
        "https://example.com/ep2/transcript.vtt",
        fixture_bytes("transcript_example.vtt"),
        content_type="text/vtt",
    )
    server.serve(
        "http://wire.test/dpa.json",
        fixture_bytes("ninjs_2_0_dpa_text.json"),
        content_type="application/json",
    )
    pod = _add(runtime, "http://feeds.test/pod.xml", "podcast")
    wire = _add(runtime, "http://wire.test/dpa.json", "wire", format_name="ninjs")
    pod_outcome = poll_source(runtime.sessions, pod, clock=runtime.clock, fetcher=internet)
    wire_outcome = poll_source(runtime.sessions, wire, clock=runtime.clock, fetcher=internet)
    assert pod_outcome.report is not None
    assert pod_outcome.report.accepted == 2
    assert len(pod_outcome.report.rejected) == 1  # episode 1: its only transcript is missing
    assert wire_outcome.report is not None
    assert wire_outcome.report.accepted == 1
    with runtime.sessions.read() as session:
        kinds = dict(
            session.execute(
                select(ContentItem.media_type, func.count()).group_by(ContentItem.media_type)
            ).all()
        )
    assert kinds == {"podcast": 2, "wire": 1}


def test_the_schedule_enqueues_due_polls_once_and_the_worker_runs_them(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    _serve_liftoff(server)
    source_id = _add(runtime)
    runtime.service("ingest.fetcher", lambda: internet)  # the worker's fetcher: loopback only
    with runtime.sessions.write() as session:
        assert schedule_due_polls(session, clock=runtime.clock) == [source_id]
    with runtime.sessions.write() as session:
        assert schedule_due_polls(session, clock=runtime.clock) == []  # not due again yet
    with runtime.sessions.read() as session:
        assert (
            session.execute(
                select(func.count()).select_from(Job).where(Job.kind == POLL_JOB)
            ).scalar_one()
            == 1
        )
    # Run the poll job only (draining would also run the enrichment it queues: models, slow).
    assert Worker(runtime).run_once() == 1
    assert _count(runtime) == 4
    assert _source(runtime, source_id).next_poll_at == runtime.clock.now() + timedelta(seconds=900)
    assert isinstance(runtime.clock, FrozenClock)
    runtime.clock.advance(timedelta(seconds=900))
    with runtime.sessions.write() as session:
        assert schedule_due_polls(session, clock=runtime.clock) == [source_id]


def test_source_records_validation_and_removal(runtime: Runtime) -> None:
    source_id = _add(runtime)
    with pytest.raises(InvalidRequest, match="already a source"):
        _add(runtime, "https://FEEDS.test/liftoff.xml?utm_source=x")
    with pytest.raises(InvalidRequest, match="media_type"):
        _add(runtime, "http://feeds.test/other.xml", "blog")
    with pytest.raises(InvalidRequest):
        _add(runtime, "ftp://feeds.test/x")
    assert parse_interval("15m") == 900
    assert parse_interval("2h") == 7200
    assert parse_interval(60) == 60
    with pytest.raises(InvalidRequest):
        parse_interval("10s")
    with runtime.sessions.write() as session:
        assert remove_source(session, FEED_URL).id == source_id
    with runtime.sessions.write() as session, pytest.raises(NotFound):
        remove_source(session, source_id)
