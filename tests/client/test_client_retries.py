"""The client on its own, over the scripted responses of tests/client/fakes.py: retries and their
backoff, pagination, and the async client."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import herald_client
import httpx
import pytest
from herald_client._retry import RetryPolicy, parse_retry_after

from tests.client.fakes import (
    KEY,
    MONITOR,
    Recorder,
    error_body,
    json_response,
    make_client,
    monitor_page,
    search_ok,
)

# -- retries ------------------------------------------------------------------------------


def scripted(*responses: httpx.Response | Exception) -> Recorder:
    queue = list(responses)

    def respond(request: httpx.Request) -> httpx.Response:
        item = queue.pop(0)
        if isinstance(item, Exception):
            raise item
        return item

    return Recorder(respond)


def test_reads_are_retried_on_5xx_until_they_succeed() -> None:
    recorder = scripted(
        json_response(503, error_body("internal_error")),
        json_response(500, error_body("internal_error")),
        json_response(200, MONITOR),
    )
    with make_client(recorder, max_retries=2) as client:
        assert client.monitors.get("mon_1").id == "mon_1"
    assert len(recorder.requests) == 3


def test_retries_stop_after_max_retries() -> None:
    recorder = scripted(*[json_response(502, error_body("internal_error"))] * 5)
    with make_client(recorder, max_retries=3) as client, pytest.raises(herald_client.ServerError):
        client.webhooks.put(url="https://hooks.example.com/h")  # PUT is idempotent
    assert len(recorder.requests) == 4


def test_searches_are_retried_but_posts_that_create_are_sent_once() -> None:
    recorder = scripted(json_response(500, error_body("internal_error")), search_ok())
    with make_client(recorder) as client:
        client.content.search(query="q")
    assert len(recorder.requests) == 2

    calls: list[Callable[[herald_client.Client], object]] = [
        lambda c: c.monitors.create(name="n", search={"query": "q"}),
        lambda c: c.monitors.run("mon_1"),
        lambda c: c.monitors.backfill("mon_1", dates=["2026-11-01"]),
        lambda c: c.monitors.update("mon_1", name="x"),
        lambda c: c.webhooks.test(),
        lambda c: c.webhooks.rotate_signing_secret(),
    ]
    for call in calls:
        once = scripted(json_response(503, error_body("internal_error")), search_ok())
        with make_client(once) as client, pytest.raises(herald_client.ServerError):
            call(client)
        assert len(once.requests) == 1


def test_429_is_retried_after_retry_after_and_a_long_wait_is_raised_at_once() -> None:
    recorder = scripted(
        json_response(429, error_body("rate_limited"), **{"retry-after": "0"}),
        json_response(200, MONITOR),
    )
    with make_client(recorder) as client:
        assert client.monitors.get("mon_1").id == "mon_1"
    assert len(recorder.requests) == 2

    long_wait = scripted(json_response(429, error_body("rate_limited"), **{"retry-after": "3600"}))
    with make_client(long_wait) as client, pytest.raises(herald_client.RateLimitError) as info:
        client.monitors.get("mon_1")
    assert info.value.retry_after == 3600.0
    assert len(long_wait.requests) == 1


def test_4xx_errors_are_never_retried() -> None:
    recorder = scripted(json_response(404, error_body("not_found")), json_response(200, MONITOR))
    with make_client(recorder) as client, pytest.raises(herald_client.NotFoundError):
        client.monitors.get("mon_1")
    assert len(recorder.requests) == 1


def test_connection_errors_are_retried_for_reads_only() -> None:
    recorder = scripted(httpx.ConnectError("refused"), json_response(200, MONITOR))
    with make_client(recorder) as client:
        assert client.monitors.get("mon_1").id == "mon_1"
    assert len(recorder.requests) == 2

    failing = scripted(*[httpx.ConnectError("refused")] * 3)
    with (
        make_client(failing, max_retries=2) as client,
        pytest.raises(herald_client.APIConnectionError) as info,
    ):
        client.monitors.get("mon_1")
    assert not isinstance(info.value, herald_client.APITimeoutError)
    assert len(failing.requests) == 3

    post = scripted(httpx.ReadTimeout("slow"), json_response(200, MONITOR))
    with make_client(post) as client, pytest.raises(herald_client.APITimeoutError) as timeout:
        client.monitors.run("mon_1")
    assert timeout.value.request.method == "POST"
    assert len(post.requests) == 1


def test_connection_errors_never_show_the_credentials_of_the_base_url() -> None:
    # The Basic credentials of a proxy in front of Herald, given in the base URL, are sent as
    # the proxy asks; the error (printed by the CLI, shown to an agent by `herald mcp`) hides them.
    for error in (httpx.ConnectError("refused"), httpx.ConnectTimeout("slow")):
        failing = scripted(error)
        client = herald_client.Client(
            base_url="http://proxyuser:pr0xy-s3cret@herald.test",
            api_key=KEY,
            transport=httpx.MockTransport(failing),
            max_retries=0,
        )
        with client, pytest.raises(herald_client.APIConnectionError) as info:
            client.monitors.get("mon_1")
        assert failing.requests[0].headers["authorization"].startswith("Basic ")
        assert "GET http://***@herald.test/v1/monitors/mon_1 (" in info.value.message
        assert "pr0xy-s3cret" not in str(info.value)
        assert "proxyuser" not in str(info.value)


def test_backoff_doubles_with_jitter_up_to_the_cap() -> None:
    policy = RetryPolicy(initial_delay=0.5, max_delay=3.0, rng=random.Random(7))
    for attempt, base in enumerate([0.5, 1.0, 2.0, 3.0, 3.0]):
        delays = [policy.backoff(attempt) for _ in range(50)]
        assert all(0.75 * base <= d <= base for d in delays)
        assert len(set(delays)) > 1  # jittered


def test_the_policy_honours_retry_after_and_max_retries() -> None:
    policy = RetryPolicy(max_retries=2, max_retry_after=60)
    limited = httpx.Response(429, headers={"retry-after": "7"})
    assert policy.delay_after_response(0, limited) == 7.0
    assert policy.delay_after_response(2, limited) is None
    assert (
        policy.delay_after_response(0, httpx.Response(429, headers={"retry-after": "61"})) is None
    )
    assert policy.delay_after_response(0, httpx.Response(400)) is None
    assert policy.delay_after_response(0, httpx.Response(409)) is None
    assert 0 < (policy.delay_after_response(1, httpx.Response(502)) or 0) <= 1.0


def test_retry_after_reads_seconds_and_http_dates() -> None:
    assert parse_retry_after("12") == 12.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    now = datetime(2026, 11, 25, 12, 0, tzinfo=UTC).timestamp()
    assert parse_retry_after("Wed, 25 Nov 2026 12:00:30 GMT", now=now) == 30.0
    assert parse_retry_after("Wed, 25 Nov 2026 11:00:00 GMT", now=now) == 0.0


# -- pagination ---------------------------------------------------------------------------


def test_list_all_walks_every_page_by_next_offset() -> None:
    def respond(request: httpx.Request) -> httpx.Response:
        offset = int(request.url.params["offset"])
        limit = int(request.url.params.get("limit", "2"))
        assert request.url.params["status"] == "active"
        return json_response(200, monitor_page(offset, 5, limit))

    recorder = Recorder(respond)
    with make_client(recorder) as client:
        ids = [m.id for m in client.monitors.list_all(status="active", page_size=2)]
        pages = list(client.monitors.list_all(status="active", page_size=2).pages())
    assert ids == ["mon_0", "mon_1", "mon_2", "mon_3", "mon_4"]
    offsets = [r.url.params["offset"] for r in recorder.requests[:3]]
    assert offsets == ["0", "2", "4"]
    assert [p.request_id for p in pages] == ["req_hdr"] * 3
    assert [p.meta.request_id for p in pages if p.meta] == ["req_0", "req_2", "req_4"]


def test_webhook_attempts_page_by_number() -> None:
    def respond(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params["page"])
        attempt = {
            "id": str(page),
            "delivery_id": "1",
            "event_id": "evt_1",
            "event_type": "webhook.test",
            "attempt_number": page,
            "delivery_status": "retrying",
            "http_status": 500,
            "error": None,
            "duration_ms": 12,
            "attempted_at": "2026-11-25T12:00:00Z",
        }
        body = {"events": [attempt], "page": page, "page_size": 50, "has_more": page < 3}
        return json_response(200, body)

    recorder = Recorder(respond)
    with make_client(recorder) as client:
        attempts = list(client.webhooks.events_all(end="2026-11-25T12:00:00Z"))
    assert [a.attempt_number for a in attempts] == [1, 2, 3]
    assert all(r.url.params["end"] == "2026-11-25T12:00:00Z" for r in recorder.requests)


def test_a_page_that_does_not_advance_stops_the_iteration() -> None:
    stuck = {**monitor_page(0, 5, 2), "next_offset": 0, "has_more": True}
    recorder = Recorder(lambda _: json_response(200, stuck))
    with make_client(recorder) as client, pytest.raises(herald_client.HeraldError, match="advance"):
        list(client.monitors.list_all())


# -- async --------------------------------------------------------------------------------


def make_async(handler: Recorder, **options: Any) -> herald_client.AsyncClient:
    options.setdefault("retry_backoff", 0.0)
    return herald_client.AsyncClient(
        base_url="http://herald.test",
        api_key=KEY,
        transport=httpx.MockTransport(handler),
        **options,
    )


@pytest.mark.anyio
async def test_the_async_client_reads_retries_raises_and_paginates() -> None:
    def respond(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/content/search":
            return search_ok(request)
        if request.url.path == "/v1/monitors/mon_gone":
            return json_response(404, error_body("not_found", request_id="req_404"))
        if request.url.path == "/v1/monitors":
            offset = int(request.url.params["offset"])
            return json_response(200, monitor_page(offset, 3, 2))
        return json_response(200, MONITOR)

    flaky = scripted(json_response(503, error_body("internal_error")), json_response(200, MONITOR))
    recorder = Recorder(respond)
    async with make_async(recorder) as client:
        page = await client.content.search(query="rates")
        assert page.results[0].content_item.title == "Central bank holds rates"
        with pytest.raises(herald_client.NotFoundError) as info:
            await client.monitors.get("mon_gone")
        assert info.value.request_id == "req_404"
        ids = [m.id async for m in client.monitors.list_all(page_size=2)]
        assert ids == ["mon_0", "mon_1", "mon_2"]
    async with make_async(flaky) as client:
        assert (await client.monitors.get("mon_1")).id == "mon_1"
    assert len(flaky.requests) == 2


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
