"""Property-based fuzzing of the whole API from its own OpenAPI document (schemathesis).

Every operation is called with generated valid and invalid inputs, with an admin key, under every
check schemathesis has: no 500; responses match the documented status codes, content types,
headers and schemas; requests without a key are refused; a 405 lists the allowed methods; a
request the schema calls invalid is refused, and one it calls valid is accepted. So the document
must state every rule the server enforces. Runs on SQLite (the storage contract itself is covered
on both backends elsewhere).

A few rules join several fields or depend on stored state, which JSON Schema cannot state; the
hooks below keep the generated valid requests inside them (documented in docs/api.md): a window's
start is not after its end, is at most 60 days long for searches and both bounds or neither are
given to searches; its bounds keep a day clear of the calendar's ends; `include_domains` and
`exclude_domains` are not combined; a new source's feed URL is not one already added; the
webhook target stays enabled; a schedule's time zone is a name of the time zone database; no
string carries a NUL character; a new source's `domain` is one the server reads as a domain
(letters outside ASCII that encode, not a public suffix); a schedule gives `minute` only when
hourly and `run_time` only when daily; `POST /v1/admin/content` is sent in the ingestion format
(JSON Lines or an array); a filter domain is a name once its scheme, path and port are cut
off; a webhook replay window is at most 30 days. Target host names resolve to loopback, which
this workspace's settings admit, so no request leaves the machine.
"""

from __future__ import annotations

import atexit
import ipaddress
import itertools
import json
import os
import re
import shutil
import tempfile
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings

from herald.api.app import create_app
from herald.api.schemas.search_fields import DOMAIN_SCHEMA
from herald.config import Settings
from herald.core.clock import FrozenClock
from herald.db.migrate import upgrade
from herald.ingest.urls import SOURCE_DOMAIN_PATTERN, InvalidUrl, normalise_domain
from herald.runtime import Runtime
from herald.search.domains import filter_domain
from herald.webhooks.replay import MAX_REPLAY_WINDOW
from herald.workspaces.service import create_key
from tests.conftest import START

# schemathesis' pytest fixtures loader does not work with pytest 9, so the app is built here.
_home = Path(tempfile.mkdtemp(prefix="herald-fuzz-"))
atexit.register(shutil.rmtree, _home, True)
upgrade(f"sqlite:///{_home / 'herald.db'}")
_runtime = Runtime(
    Settings(home=_home, log_format="text", webhook_allow_networks="127.0.0.0/8"),
    clock=FrozenClock(START),
)
_runtime.service("webhooks.resolver", lambda: lambda host: [ipaddress.ip_address("127.0.0.1")])
with _runtime.sessions.write() as _session:
    API_KEY = create_key(_session, workspace="fuzz", role="admin", clock=_runtime.clock).api_key
_app = create_app(_runtime)
# The workspace has a webhook target, so that a PUT without `url` is an update.
_put = TestClient(_app).put(
    "/v1/webhooks", json={"url": "https://hooks.example.com/in"}, headers={"x-api-key": API_KEY}
)
assert _put.status_code == 200, _put.text

schema = schemathesis.openapi.from_asgi("/openapi.json", _app)
# A NUL character is refused in every string of every request (docs/api.md: text that cannot be
# stored), a rule the document states in words: generated valid requests carry none.
schema.config.generation.update(allow_x00=False)

_SEARCHES = {"/v1/content/search", "/v1/monitors/{monitor_id}/search"}
_WINDOWS = {  # path: (start name, end name)
    "/v1/content/search": ("start_date", "end_date"),
    "/v1/monitors/{monitor_id}/search": ("start_date", "end_date"),
    "/v1/monitors/{monitor_id}/results": ("start_date", "end_date"),
    "/v1/monitors/{monitor_id}/backfills": ("start_date", "end_date"),
    "/v1/entities/{entity_id}/timeline": ("start_date", "end_date"),
    "/v1/news/clusters": ("start_date", "end_date"),
    "/v1/webhooks/events": ("start", "end"),
    "/v1/webhooks/stats": ("start", "end"),
    "/v1/webhooks/replay": ("start", "end"),
}
_FIRST_DAY, _LAST_DAY = date(1, 3, 1), date(9999, 12, 29)


def _day(value: str) -> date:
    """The UTC day of a date or date-time (the server compares windows in UTC)."""
    parsed = datetime.fromisoformat(value) if "T" in value.upper() else None
    if parsed is None:
        return date.fromisoformat(value)
    return _utc(parsed).astimezone(UTC).date()


def _utc(instant: datetime) -> datetime:
    return instant if instant.tzinfo else instant.replace(tzinfo=UTC)


def _window_is_valid(path: str, values: dict[str, Any] | None) -> bool:
    if path not in _WINDOWS or not isinstance(values, dict):
        return True
    start_name, end_name = _WINDOWS[path]
    start, end = values.get(start_name), values.get(end_name)
    if path in _SEARCHES and (start is None) != (end is None):
        return False  # date_window_incomplete
    try:
        days = [_day(v) for v in (start, end) if isinstance(v, str)]
        # A date-time without an offset is UTC, as the server reads it.
        instants = [_utc(datetime.fromisoformat(v)) for v in (start, end) if isinstance(v, str)]
    except OverflowError:
        return False  # past the calendar's ends once in UTC: a 400 by the calendar rule
    except ValueError:
        return True  # not a date: the schema's own business
    if any(not _FIRST_DAY <= d <= _LAST_DAY for d in days):
        return False
    if isinstance(start, str) and isinstance(end, str):
        if days[0] > days[1] or (
            days[0] == days[1] and len(end) > 10 and instants[0] > instants[1]
        ):
            return False
        if path in _SEARCHES and days[1] - days[0] > timedelta(days=60):
            return False
    elif isinstance(start, str) and days[0] > START.date() and path not in _SEARCHES:
        return False  # a lone start runs through now
    if path == "/v1/webhooks/replay" and days:
        # A replay window is at most 30 days (a lone start runs to now, a lone end starts a
        # week before); days are compared, so a window of 30 calendar days is not sent.
        first = days[0] if isinstance(start, str) else days[-1] - timedelta(days=7)
        last = days[-1] if isinstance(end, str) else START.date()
        if (last - first).days >= MAX_REPLAY_WINDOW.days:
            return False
    return True


@schemathesis.hook
def filter_query(ctx: Any, query: dict[str, Any] | None) -> bool:
    path = ctx.operation.path
    if path == "/v1/admin/content" and isinstance(query, dict):
        # With a feed or wire `format` the body is a document of that format, which the
        # schema (the ingestion format) does not describe; those are tested in tests/ingest.
        return query.get("format") in (None, "jsonl")
    return _window_is_valid(path, query)


@schemathesis.hook
def filter_body(ctx: Any, body: Any) -> bool:
    path = ctx.operation.path
    if not isinstance(body, dict):
        return True
    filters = body.get("search", body) if isinstance(body.get("search"), dict) else body
    if filters.get("include_domains") and filters.get("exclude_domains"):
        return False  # domain_filter_conflict
    for name in ("include_domains", "exclude_domains"):
        values = filters.get(name)
        if isinstance(values, list) and not all(_agree_on_filter_domain(v) for v in values):
            return False
    if path == "/v1/webhooks" and body.get("enabled") is False:
        return False
    if path == "/v1/admin/sources" and isinstance(body.get("domain"), str):
        # Which names with letters outside ASCII encode, and which are public suffixes, the
        # pattern cannot say: only domains on which the schema and the rule agree are sent.
        domain = body["domain"]
        if bool(_DOMAIN.fullmatch(domain)) != _is_domain(domain):
            return False
    schedule = body.get("schedule")
    if isinstance(schedule, dict):
        given = {k for k, v in schedule.items() if v is not None}
        daily = schedule.get("frequency") == "daily"  # hourly when not given
        if ("minute" if daily else "run_time") in given:
            return False  # minute is for hourly schedules, run_time for daily ones
    return _window_is_valid(path, body)


_DOMAIN = re.compile(SOURCE_DOMAIN_PATTERN)
_FILTER_DOMAIN = re.compile(DOMAIN_SCHEMA["pattern"])


def _agree_on_filter_domain(value: Any) -> bool:
    """Whether the schema and the search rules agree on a filter domain: what is left once a
    scheme, path, port and user are cut off must be a name (which a pattern cannot say)."""
    if not isinstance(value, str):
        return True
    return bool(_FILTER_DOMAIN.fullmatch(value)) == (filter_domain(value) is not None)


def _is_domain(value: str) -> bool:
    try:
        normalise_domain(value)
    except InvalidUrl:
        return False
    return True


_unique = itertools.count()
_ZONES = ("UTC", "Europe/Oslo", "America/New_York", "Asia/Kolkata")


@schemathesis.serializer("application/x-ndjson")
def _json_lines(ctx: Any, value: Any) -> bytes:
    """The JSON Lines body is a string in the schema: sent as is."""
    return value.encode() if isinstance(value, str) else json.dumps(value).encode()


@schemathesis.hook
def before_call(ctx: Any, case: schemathesis.Case, **kwargs: Any) -> None:
    """Each new source gets a feed URL of its own (the same one twice is refused), and a
    schedule's time zone is one of the database's names (which the schema cannot list)."""
    body = case.body
    schedule = body.get("schedule") if isinstance(body, dict) else None
    if isinstance(schedule, dict) and isinstance(schedule.get("timezone"), str):
        schedule["timezone"] = _ZONES[len(schedule["timezone"]) % len(_ZONES)]
    if ctx.operation.path == "/v1/admin/sources" and isinstance(body, dict):
        url = body.get("url")
        if isinstance(url, str):
            url = url.split("#")[0]
            body["url"] = url + ("&" if "?" in url else "?") + f"fuzz={next(_unique)}"


# `make test` runs a fixed set of examples so that CI is reproducible; HERALD_FUZZ_RANDOM=1
# explores new ones (and HERALD_FUZZ_EXAMPLES more of them), as a developer should now and then.
_RANDOM = os.environ.get("HERALD_FUZZ_RANDOM") == "1"


@schema.parametrize()
@settings(
    max_examples=int(os.environ.get("HERALD_FUZZ_EXAMPLES", "25")),
    derandomize=not _RANDOM,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_no_500_and_responses_match_the_schema(case: schemathesis.Case) -> None:
    case.call_and_validate(headers={"x-api-key": API_KEY})
