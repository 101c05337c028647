"""The client on its own: requests it builds, models it returns, errors, retries, pagination.

The network is an httpx.MockTransport answering the pinned shapes; tests/client/test_real_app*
run the same client against the Herald app itself.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any
from urllib.parse import parse_qs, urlsplit

import herald_client
import httpx
import pytest
from herald_client._retry import RetryPolicy, parse_retry_after

from tests.client.fakes import (
    CONTENT_ITEM,
    KEY,
    MONITOR,
    Recorder,
    error_body,
    json_response,
    monitor_page,
)


def make_client(handler: Recorder, **options: Any) -> herald_client.Client:
    options.setdefault("retry_backoff", 0.0)
    return herald_client.Client(
        base_url="http://herald.test",
        api_key=KEY,
        transport=httpx.MockTransport(handler),
        **options,
    )


def search_ok(_: httpx.Request | None = None) -> httpx.Response:
    return json_response(
        200,
        {
            "results": [{"score": 0.9, "content_item": CONTENT_ITEM}],
            "meta": {"request_id": "req_1"},
        },
    )


# -- requests -----------------------------------------------------------------------------


def test_a_search_sends_the_key_and_only_the_fields_given() -> None:
    recorder = Recorder(search_ok)
    with make_client(recorder) as client:
        client.content.search(query="rates", media_types=["news", "wire"], limit=5)
    request = recorder.requests[0]
    assert request.method == "POST"
    assert str(request.url) == "http://herald.test/v1/content/search"
    assert request.headers["x-api-key"] == KEY
    assert request.headers["content-type"] == "application/json"
    assert request.headers["user-agent"].startswith("herald-client/")
    assert recorder.body() == {"query": "rates", "media_types": ["news", "wire"], "limit": 5}


def test_dates_are_sent_as_the_api_reads_them() -> None:
    recorder = Recorder(search_ok)
    paris = timezone(timedelta(hours=1))
    with make_client(recorder) as client:
        client.content.search(query="q", start_date=date(2026, 11, 1), end_date="2026-11-20")
        client.content.search(
            query="q",
            start_date=datetime(2026, 11, 1, 9, 30, tzinfo=paris),
            end_date=datetime(2026, 11, 2, 8, 0),  # naive: UTC, as the server reads it
        )
    assert recorder.body(0) == {"query": "q", "start_date": "2026-11-01", "end_date": "2026-11-20"}
    assert recorder.body(1) == {
        "query": "q",
        "start_date": "2026-11-01T08:30:00Z",
        "end_date": "2026-11-02T08:00:00Z",
    }


def test_query_lists_repeat_and_ids_are_quoted() -> None:
    recorder = Recorder(
        lambda _: json_response(
            200,
            {
                "entity_id": "ent_a/b",
                "timeline": [],
                "limit": 10,
                "offset": 0,
                "next_offset": None,
                "has_more": False,
                "meta": {"request_id": "r"},
            },
        )
    )
    with make_client(recorder) as client:
        client.entities.timeline("ent_a/b", media_types=["news", "podcast"], limit=10)
        with pytest.raises(ValueError, match="entity_id"):
            client.entities.timeline("")
    url = urlsplit(str(recorder.requests[0].url))
    assert url.path == "/v1/entities/ent_a%2Fb/timeline"
    assert parse_qs(url.query) == {"media_types": ["news", "podcast"], "limit": ["10"]}
    assert len(recorder.requests) == 1


def test_monitor_create_takes_dicts_and_passes_unknown_fields_to_the_server() -> None:
    recorder = Recorder(lambda _: json_response(201, MONITOR))
    with make_client(recorder) as client:
        monitor = client.monitors.create(
            name="Rates",
            search={"query": "central bank rates", "limit": 5},
            schedule={"frequency": "daily", "run_time": "06:30"},
        )
    assert recorder.body() == {
        "name": "Rates",
        "search": {"query": "central bank rates", "limit": 5},
        "schedule": {"frequency": "daily", "run_time": "06:30"},
    }
    assert monitor.id == "mon_1"
    assert monitor.schedule.minute == 7
    assert monitor.next_run_at == datetime(2026, 11, 25, 13, 7, tzinfo=UTC)


def test_a_backfill_sends_dates_as_utc_calendar_dates() -> None:
    recorder = Recorder(
        lambda _: json_response(
            202,
            {
                "task_id": "t",
                "status": "queued",
                "queued": [],
                "skipped": [],
                "summary": {
                    "requested": 2,
                    "queued": 0,
                    "already_complete": 2,
                    "already_running": 0,
                    "failed": 0,
                },
            },
        )
    )
    with make_client(recorder) as client:
        task = client.monitors.backfill(
            "mon_1", dates=[date(2026, 11, 1), "2026-11-02"], skip_complete=False
        )
    assert recorder.body() == {"dates": ["2026-11-01", "2026-11-02"], "skip_complete": False}
    assert task.summary.already_complete == 2


# -- responses ----------------------------------------------------------------------------


def test_models_give_attribute_access_and_keep_unknown_fields() -> None:
    body = {"content_item": {**CONTENT_ITEM, "new_field": 1}}
    recorder = Recorder(lambda _: json_response(200, body, **{"x-request-id": "req_42"}))
    with make_client(recorder) as client:
        item = client.content.get("cnt_abc")
    assert isinstance(item, herald_client.models.ContentItem)
    assert item.title == "Central bank holds rates"
    assert item.source.domain == "example.com"
    assert item.published_date == datetime(2026, 11, 20, 8, tzinfo=UTC)
    assert item.request_id == "req_42"
    assert item.model_extra == {"new_field": 1}


def test_a_success_body_the_models_cannot_read_is_a_validation_error() -> None:
    recorder = Recorder(lambda _: json_response(200, {"results": "not a list"}))
    with (
        make_client(recorder) as client,
        pytest.raises(herald_client.APIResponseValidationError) as info,
    ):
        client.content.search(query="q")
    assert info.value.status_code == 200
    assert info.value.request_id == "req_hdr"


# -- errors -------------------------------------------------------------------------------

PINNED = [
    (400, "invalid_request", herald_client.InvalidRequestError),
    (400, "date_window_incomplete", herald_client.DateWindowIncompleteError),
    (400, "date_window_too_long", herald_client.DateWindowTooLongError),
    (400, "domain_filter_conflict", herald_client.DomainFilterConflictError),
    (400, "too_many_domains", herald_client.TooManyDomainsError),
    (400, "field_not_allowed", herald_client.FieldNotAllowedError),
    (400, "too_many_dates", herald_client.TooManyDatesError),
    (400, "invalid_timezone", herald_client.InvalidTimezoneError),
    (400, "invalid_webhook_url", herald_client.InvalidWebhookUrlError),
    (400, "webhook_url_required", herald_client.WebhookUrlRequiredError),
    (401, "unauthorized", herald_client.AuthenticationError),
    (404, "not_found", herald_client.NotFoundError),
    (405, "method_not_allowed", herald_client.MethodNotAllowedError),
    (409, "monitor_disabled", herald_client.MonitorDisabledError),
    (413, "payload_too_large", herald_client.PayloadTooLargeError),
    (415, "unsupported_media_type", herald_client.UnsupportedMediaTypeError),
    (429, "rate_limited", herald_client.RateLimitError),
    (500, "internal_error", herald_client.ServerError),
]


@pytest.mark.parametrize(("status", "code", "cls"), PINNED, ids=[p[1] for p in PINNED])
def test_every_pinned_error_code_has_its_exception(
    status: int, code: str, cls: type[herald_client.APIStatusError]
) -> None:
    recorder = Recorder(lambda _: json_response(status, error_body(code, "the message")))
    with make_client(recorder, max_retries=0) as client, pytest.raises(cls) as info:
        client.monitors.get("mon_1")
    error = info.value
    assert type(error) is cls
    assert isinstance(error, herald_client.APIStatusError)
    assert isinstance(error, herald_client.HeraldError)
    assert (error.status_code, error.code, error.message) == (status, code, "the message")
    assert error.request_id == "req_err"  # meta.request_id
    if status == 400:
        assert isinstance(error, herald_client.InvalidRequestError)


def test_an_error_carries_its_details_and_prints_usefully() -> None:
    body = error_body(
        "date_window_too_long",
        "the window is longer than 60 days",
        details=[{"field": "search.start_date", "message": "too early"}],
    )
    recorder = Recorder(lambda _: json_response(400, body))
    with (
        make_client(recorder) as client,
        pytest.raises(herald_client.DateWindowTooLongError) as info,
    ):
        client.content.search(query="q", start_date="2026-01-01", end_date="2026-11-01")
    assert info.value.details == [
        herald_client.ErrorDetail(field="search.start_date", message="too early")
    ]
    text = str(info.value)
    assert "400 date_window_too_long" in text
    assert "search.start_date: too early" in text
    assert "request_id=req_err" in text


def test_errors_without_the_envelope_fall_back_on_the_status() -> None:
    def respond(request: httpx.Request) -> httpx.Response:
        status = int(request.url.params["limit"])
        if status == 409:
            return json_response(409, error_body("brand_new_conflict"))
        return httpx.Response(
            status, text="<html>Bad Gateway</html>", headers={"x-request-id": "req_proxy"}
        )

    recorder = Recorder(respond)
    with make_client(recorder, max_retries=0) as client:
        with pytest.raises(herald_client.ServerError) as server:
            client.monitors.list(limit=502)
        with pytest.raises(herald_client.ConflictError) as conflict:
            client.monitors.list(limit=409)
        with pytest.raises(herald_client.APIStatusError) as teapot:
            client.monitors.list(limit=418)
    assert (server.value.code, server.value.request_id) == ("http_502", "req_proxy")
    assert "Bad Gateway" in server.value.message
    assert conflict.value.code == "brand_new_conflict"
    assert type(teapot.value) is herald_client.APIStatusError
    assert teapot.value.status_code == 418


def test_redirects_are_not_followed() -> None:
    recorder = Recorder(
        lambda _: httpx.Response(302, headers={"location": "http://elsewhere.test/"})
    )
    with make_client(recorder) as client, pytest.raises(herald_client.APIStatusError) as info:
        client.monitors.get("mon_1")
    assert info.value.status_code == 302
    assert len(recorder.requests) == 1


def test_a_key_is_required_and_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HERALD_API_KEY", raising=False)
    with pytest.raises(herald_client.HeraldError, match="API key"):
        herald_client.Client(base_url="http://herald.test")
    monkeypatch.setenv("HERALD_API_KEY", "from_env")
    monkeypatch.setenv("HERALD_BASE_URL", "http://env.test/prefix/")
    recorder = Recorder(lambda _: json_response(200, MONITOR))
    with herald_client.Client(transport=httpx.MockTransport(recorder)) as client:
        client.monitors.get("mon_1")
    assert recorder.requests[0].headers["x-api-key"] == "from_env"
    assert str(recorder.requests[0].url) == "http://env.test/prefix/v1/monitors/mon_1"


@pytest.mark.parametrize("key", ["hk_caf\u00e9", "hk_\u65e5\u672c", "hk_a\nb", "hk_a\x00b"])
def test_a_key_no_header_can_carry_is_refused_before_sending(key: str) -> None:
    # Not an encoding error from deep inside the HTTP library at the first call.
    with pytest.raises(herald_client.HeraldError, match="printable ASCII"):
        herald_client.Client(base_url="http://herald.test", api_key=key)


def test_a_key_is_sent_without_surrounding_whitespace() -> None:
    recorder = Recorder(lambda _: json_response(200, MONITOR))
    transport = httpx.MockTransport(recorder)
    with herald_client.Client(
        base_url="http://herald.test", api_key="  hk_key\n", transport=transport
    ) as client:
        client.monitors.get("mon_1")
    assert recorder.requests[0].headers["x-api-key"] == "hk_key"


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
