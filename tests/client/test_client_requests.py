"""The client on its own: the requests it builds, the models it returns, the errors it raises and
how it takes its key.

The network is an httpx.MockTransport answering the pinned shapes; tests/client/test_real_app*
run the same client against the Herald app itself.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from urllib.parse import parse_qs, urlsplit

import herald_client
import httpx
import pytest

from tests.client.fakes import (
    CONTENT_ITEM,
    KEY,
    MONITOR,
    Recorder,
    error_body,
    json_response,
    make_client,
    search_ok,
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
