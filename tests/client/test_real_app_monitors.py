"""``client.monitors`` against the real app: every monitor endpoint, success and error paths."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta

import herald_client
import pytest
from herald_client.models import BackfillTask, Monitor, QueuedTask

from herald.core.clock import FrozenClock

SEARCH = {"query": "central bank interest rates", "media_types": ["news", "wire"]}


def create(client: herald_client.Client, name: str = "Rates", **options: object) -> Monitor:
    return client.monitors.create(name=name, search=options.pop("search", SEARCH), **options)  # type: ignore[arg-type]


def test_create_get_list_update_delete(herald: herald_client.Client, clock: FrozenClock) -> None:
    monitor = create(
        herald,
        description="What the central banks say",
        schedule={"frequency": "daily", "timezone": "Europe/Paris", "run_time": "06:30"},
    )
    assert monitor.id.startswith("mon_")
    assert monitor.status == "active"
    assert monitor.description == "What the central banks say"
    assert monitor.search.query == SEARCH["query"]
    assert monitor.search.media_types == ["news", "wire"]
    assert (monitor.schedule.frequency, monitor.schedule.run_time) == ("daily", "06:30")
    assert monitor.schedule.timezone == "Europe/Paris"
    # 06:30 in Paris (UTC+1 in November) is 05:30Z; the clock is at 12:00Z, so tomorrow.
    assert monitor.next_run_at == datetime(2026, 11, 26, 5, 30, tzinfo=UTC)
    assert monitor.created_at == clock.now()
    assert monitor.request_id is not None  # from x-request-id: the Monitor body has no meta

    fetched = herald.monitors.get(monitor.id)
    assert fetched.model_dump() == monitor.model_dump()

    renamed = herald.monitors.update(
        monitor.id, name="Rates (hourly)", schedule={"frequency": "hourly", "minute": 15}
    )
    assert renamed.name == "Rates (hourly)"
    assert (renamed.schedule.frequency, renamed.schedule.minute) == ("hourly", 15)
    assert renamed.search.query == SEARCH["query"]  # the saved search never changes

    deleted = herald.monitors.delete(monitor.id)
    assert deleted.status == "disabled"
    assert deleted.next_run_at is None
    assert herald.monitors.get(monitor.id).status == "disabled"


def test_list_pages_and_filters(herald: herald_client.Client, clock: FrozenClock) -> None:
    ids = []
    for n in range(5):
        ids.append(create(herald, name=f"m{n}").id)
        clock.advance(timedelta(seconds=1))
    herald.monitors.delete(ids[0])

    page = herald.monitors.list(limit=2)
    assert [m.id for m in page.monitors] == [ids[4], ids[3]]  # newest first
    assert (page.limit, page.offset, page.next_offset, page.has_more) == (2, 0, 2, True)
    assert page.meta is not None
    assert page.meta.request_id == page.request_id

    everything = [m.id for m in herald.monitors.list_all(page_size=2)]
    assert everything == list(reversed(ids))
    active = [m.id for m in herald.monitors.list_all(status="active", page_size=3)]
    assert active == list(reversed(ids[1:]))
    assert [m.id for m in herald.monitors.list(status="disabled").monitors] == [ids[0]]
    last = herald.monitors.list(limit=2, offset=4)
    assert (last.next_offset, last.has_more) == (None, False)


def test_create_errors_carry_the_pinned_codes(herald: herald_client.Client) -> None:
    with pytest.raises(herald_client.FieldNotAllowedError) as limit:
        create(herald, search={**SEARCH, "limit": 5})
    assert limit.value.status_code == 400
    assert any(d.field.endswith("limit") for d in limit.value.details)
    assert limit.value.request_id

    with pytest.raises(herald_client.FieldNotAllowedError):
        create(herald, search={**SEARCH, "start_date": "2026-11-01"})
    with pytest.raises(herald_client.InvalidTimezoneError):
        create(herald, schedule={"timezone": "Mars/Olympus"})
    with pytest.raises(herald_client.DomainFilterConflictError):
        create(
            herald,
            search={"query": "q", "include_domains": ["a.com"], "exclude_domains": ["b.com"]},
        )
    with pytest.raises(herald_client.TooManyDomainsError):
        create(herald, search={"query": "q", "include_domains": [f"d{i}.com" for i in range(11)]})
    with pytest.raises(herald_client.InvalidRequestError) as blank:
        create(herald, name="   ")
    assert blank.value.code == "invalid_request"
    # Types are the client's to check before sending: a search without a query never leaves.
    with pytest.raises(herald_client.RequestNotSentError) as no_query:
        create(herald, search={"media_types": ["news"]})
    assert no_query.value.code == "invalid_request"
    assert [d.field for d in no_query.value.details] == ["search.query"]
    with pytest.raises(herald_client.InvalidRequestError) as minute:
        create(herald, schedule={"frequency": "daily", "minute": 5})
    assert minute.value.code == "invalid_request"
    assert herald.monitors.list().monitors == []


def test_update_errors(herald: herald_client.Client) -> None:
    monitor = create(herald)
    with pytest.raises(herald_client.InvalidTimezoneError):
        herald.monitors.update(monitor.id, schedule={"timezone": "utc"})
    with pytest.raises(herald_client.NotFoundError):
        herald.monitors.update("mon_missing", name="x")
    with pytest.raises(herald_client.NotFoundError):
        herald.monitors.delete("mon_missing")


def test_another_workspace_sees_nothing(
    herald: herald_client.Client, herald_other: herald_client.Client
) -> None:
    monitor = create(herald)
    task = herald.monitors.run(monitor.id)
    calls: list[Callable[[], object]] = [
        lambda: herald_other.monitors.get(monitor.id),
        lambda: herald_other.monitors.update(monitor.id, name="mine"),
        lambda: herald_other.monitors.delete(monitor.id),
        lambda: herald_other.monitors.run(monitor.id),
        lambda: herald_other.monitors.backfill(monitor.id, dates=["2026-11-01"]),
        lambda: herald_other.monitors.ledger(monitor.id),
        lambda: herald_other.monitors.task(monitor.id, task.task_id),
        lambda: herald_other.monitors.runs(monitor.id),
        lambda: herald_other.monitors.results(monitor.id),
        lambda: herald_other.monitors.search(monitor.id, query="rates"),
    ]
    for call in calls:
        with pytest.raises(herald_client.NotFoundError) as info:
            call()
        assert info.value.code == "not_found"
        assert info.value.request_id
    assert herald_other.monitors.list().monitors == []
    assert herald.monitors.get(monitor.id).name == "Rates"


def test_run_now_task_runs_and_ledger(herald: herald_client.Client) -> None:
    monitor = create(herald)
    task = herald.monitors.run(monitor.id)
    assert isinstance(task, QueuedTask)
    assert task.status == "queued"
    assert [q.published_date for q in task.queued] == [
        date(2026, 11, 25),
        date(2026, 11, 24),
        date(2026, 11, 23),
        date(2026, 11, 22),
    ]
    assert task.summary.requested == task.summary.queued == 4
    assert all(q.task_id == q.run_id for q in task.queued)

    again = herald.monitors.run(monitor.id)
    assert again.summary.already_running == 4
    assert {s.reason for s in again.skipped} == {"already_running"}

    detail = herald.monitors.task(monitor.id, task.task_id)
    assert isinstance(detail, BackfillTask)
    assert detail.task_id == task.task_id
    assert detail.status == "queued"
    assert detail.summary.requested == 4
    assert sorted(t.published_date for t in detail.tasks) == sorted(
        q.published_date for q in task.queued
    )
    with pytest.raises(herald_client.NotFoundError):
        herald.monitors.task(monitor.id, "00000000-0000-4000-8000-000000000000")

    runs = herald.monitors.runs(monitor.id)
    kinds = sorted(r.kind for r in runs.runs)
    assert kinds.count("manual") == 2
    assert kinds.count("dated") == 4
    assert [r.run_id for r in herald.monitors.runs_all(monitor.id, page_size=2)] == [
        r.run_id for r in runs.runs
    ]

    ledger = herald.monitors.ledger(monitor.id)
    assert ledger.monitor_id == monitor.id
    assert [e.date for e in ledger.backfills] == [q.published_date for q in task.queued]
    assert {e.status for e in ledger.backfills} == {"running"}
    assert ledger.summary.total == ledger.summary.running == 4
    window = herald.monitors.ledger(
        monitor.id, start_date=date(2026, 11, 23), end_date="2026-11-24", status="running"
    )
    assert [e.date for e in window.backfills] == [date(2026, 11, 24), date(2026, 11, 23)]
    assert len(list(herald.monitors.ledger_all(monitor.id, page_size=3))) == 4
    with pytest.raises(herald_client.DateWindowTooLongError):
        herald.monitors.ledger(monitor.id, start_date="2026-11-24", end_date="2026-11-23")
    with pytest.raises(herald_client.InvalidRequestError):
        herald.monitors.ledger(monitor.id, limit=201)


def test_backfills(herald: herald_client.Client) -> None:
    monitor = create(herald)
    task = herald.monitors.backfill(
        monitor.id, dates=[date(2026, 10, 1), "2026-10-02"], skip_complete=True
    )
    assert [q.published_date for q in task.queued] == [date(2026, 10, 1), date(2026, 10, 2)]
    assert task.summary.requested == 2
    with pytest.raises(herald_client.TooManyDatesError):
        herald.monitors.backfill(monitor.id, dates=[f"2026-01-{d:02d}" for d in range(1, 32)] * 4)
    with pytest.raises(herald_client.InvalidRequestError) as bad_date:
        herald.monitors.backfill(monitor.id, dates=["2026-02-30"])
    assert [d.field for d in bad_date.value.details] == ["dates.0"]
    with pytest.raises(herald_client.NotFoundError):
        herald.monitors.backfill("mon_missing", dates=["2026-10-01"])


def test_disabled_monitors_refuse_runs_and_backfills(herald: herald_client.Client) -> None:
    monitor = create(herald, status="disabled")
    assert monitor.status == "disabled"
    assert monitor.next_run_at is None
    with pytest.raises(herald_client.MonitorDisabledError) as run:
        herald.monitors.run(monitor.id)
    assert (run.value.status_code, run.value.code) == (409, "monitor_disabled")
    assert isinstance(run.value, herald_client.ConflictError)
    with pytest.raises(herald_client.MonitorDisabledError):
        herald.monitors.backfill(monitor.id, dates=["2026-11-01"])


def test_results_and_store_search_of_an_empty_store(herald: herald_client.Client) -> None:
    monitor = create(herald)
    results = herald.monitors.results(
        monitor.id, start_date="2026-11-01", end_date=date(2026, 11, 25)
    )
    assert (results.monitor_id, results.results, results.has_more) == (monitor.id, [], False)
    assert list(herald.monitors.results_all(monitor.id)) == []
    found = herald.monitors.search(monitor.id, query="rates", limit=5)
    assert found.results == []
    with pytest.raises(herald_client.DateWindowTooLongError):
        herald.monitors.results(monitor.id, start_date="2026-11-25", end_date="2026-11-01")
    with pytest.raises(herald_client.DateWindowIncompleteError):
        herald.monitors.search(monitor.id, query="rates", start_date="2026-11-01")
    with pytest.raises(herald_client.DateWindowTooLongError):
        herald.monitors.search(
            monitor.id, query="rates", start_date="2026-01-01", end_date="2026-11-01"
        )
    with pytest.raises(herald_client.InvalidRequestError):
        herald.monitors.search(monitor.id, query="rates", limit=101)


@pytest.mark.anyio
async def test_the_async_client_drives_monitors(
    aherald: herald_client.AsyncClient, herald: herald_client.Client
) -> None:
    created = await aherald.monitors.create(name="Async", search={"query": "ports"})
    assert (await aherald.monitors.get(created.id)).name == "Async"
    assert [m.id async for m in aherald.monitors.list_all()] == [created.id]
    task = await aherald.monitors.run(created.id)
    assert (await aherald.monitors.task(created.id, task.task_id)).summary.requested == 4
    assert len([e async for e in aherald.monitors.ledger_all(created.id)]) == 4
    assert len([r async for r in aherald.monitors.runs_all(created.id)]) == 5
    assert [r async for r in aherald.monitors.results_all(created.id)] == []
    assert (await aherald.monitors.search(created.id, query="ports")).results == []
    backfill = await aherald.monitors.backfill(created.id, dates=["2026-09-01"])
    assert backfill.summary.queued == 1
    assert (await aherald.monitors.update(created.id, name="Async 2")).name == "Async 2"
    assert (await aherald.monitors.delete(created.id)).status == "disabled"
    with pytest.raises(herald_client.MonitorDisabledError):
        await aherald.monitors.run(created.id)
    assert herald.monitors.get(created.id).name == "Async 2"  # the same app, sync client
