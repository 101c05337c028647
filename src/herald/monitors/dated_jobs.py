"""Running dated jobs: start, search one published date, store the results, finish or fail.

The job handler (:mod:`herald.monitors.tasks`) calls these in three steps for a batch of jobs:
:func:`start_runs` in one transaction, the searches outside any transaction, then
:func:`complete_runs` in the transaction that also finishes the durable jobs. A worker killed
anywhere in between loses nothing: its lease expires, the job runs again, and the store upsert
keys on (monitor, content) so nothing is stored twice; ``new_result_count`` is counted inside the
completing transaction, so a repeated job counts only what is really new.

Each step is a handful of set-based statements for the whole batch (an hour of 10,000 hourly
monitors is 30,000-40,000 dated jobs). Lock order on PostgreSQL: parent runs by id first, then
dated runs and ledger rows by (monitor, date), as in :mod:`herald.monitors.queueing`, so
concurrent writers cannot deadlock.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any, cast

from sqlalchemy import Table, and_, bindparam, case, func, or_, select, update
from sqlalchemy.orm import Session

from herald.core.clock import Clock
from herald.core.dates import day_window
from herald.db.dialect import insert_for
from herald.db.models.content import ContentItem
from herald.db.models.monitor import Monitor, MonitorLedgerEntry, MonitorResult, MonitorRun
from herald.jobs.registry import RetryPolicy
from herald.monitors import events
from herald.monitors.events import CapturedItem
from herald.monitors.ports import notifies
from herald.monitors.queueing import PRIORITY, enqueue_dated_job
from herald.monitors.rules import (
    FINISHED,
    IN_FLIGHT,
    DatedJobStatus,
    completes_date,
    task_status,
    task_summary,
)
from herald.monitors.saved_search import SavedSearch
from herald.search.types import SearchHit

_CHUNK = 900  # stay under SQLite's bound-parameter limit
RUNS = cast(Table, MonitorRun.__table__)
LEDGER = cast(Table, MonitorLedgerEntry.__table__)
RESULTS = cast(Table, MonitorResult.__table__)


@dataclass(frozen=True, slots=True)
class StartedRun:
    run_id: str
    monitor_id: str
    team_id: str
    parent_run_id: str
    published_date: date
    started_at: datetime
    search: SavedSearch


@dataclass(frozen=True, slots=True)
class RunOutcome:
    run_id: str
    result_count: int
    new_result_count: int
    latest_indexed_content: datetime | None


def _chunks(values: Sequence[Any]) -> list[Sequence[Any]]:
    return [values[i : i + _CHUNK] for i in range(0, len(values), _CHUNK)]


def lock_parents(session: Session, parent_ids: Sequence[str | None]) -> None:
    """Row-lock parent runs in id order (PostgreSQL; SQLite has one writer anyway)."""
    ids = sorted({p for p in parent_ids if p is not None})
    if ids and session.get_bind().dialect.name == "postgresql":
        session.execute(
            select(RUNS.c.id).where(RUNS.c.id.in_(ids)).order_by(RUNS.c.id).with_for_update()
        ).all()


def start_runs(session: Session, run_ids: Sequence[str], *, clock: Clock) -> list[StartedRun]:
    """Mark in-flight runs ``running`` (one more attempt each); ``skipped`` if the monitor is off.

    Runs already finished (a repeated delivery of a completed job) are left alone.
    """
    if not run_ids:
        return []
    parents = session.scalars(
        select(RUNS.c.parent_run_id).where(RUNS.c.id.in_(run_ids), RUNS.c.kind == "dated")
    ).all()
    lock_parents(session, parents)
    runs = session.execute(
        select(
            RUNS.c.id,
            RUNS.c.monitor_id,
            RUNS.c.team_id,
            RUNS.c.parent_run_id,
            RUNS.c.published_date,
            RUNS.c.status,
            RUNS.c.attempts,
        )
        .where(RUNS.c.id.in_(run_ids), RUNS.c.kind == "dated", RUNS.c.status.in_(IN_FLIGHT))
        .order_by(RUNS.c.monitor_id, RUNS.c.published_date)
    ).all()
    if not runs:
        return []
    monitors = {
        row.id: row
        for row in session.execute(
            select(Monitor.id, Monitor.status, Monitor.search).where(
                Monitor.id.in_({r.monitor_id for r in runs})
            )
        )
    }
    now = clock.now()
    current = {run.id: run.attempts for run in runs}
    started: list[StartedRun] = []
    skipped: list[Any] = []
    for run in runs:
        monitor = monitors.get(run.monitor_id)
        if monitor is None or monitor.status != "active":
            skipped.append(run)
            continue
        started.append(
            StartedRun(
                run_id=run.id,
                monitor_id=run.monitor_id,
                team_id=run.team_id,
                parent_run_id=run.parent_run_id,
                published_date=run.published_date,
                started_at=now,
                search=SavedSearch.from_json(monitor.search),
            )
        )
    if started:
        session.execute(
            update(RUNS)
            .where(RUNS.c.id == bindparam("b_id"))
            .values(status="running", started_at=now, attempts=bindparam("b_attempts")),
            [{"b_id": s.run_id, "b_attempts": current[s.run_id] + 1} for s in started],
        )
        _update_ledger_for_runs(
            session,
            [(s.monitor_id, s.published_date, s.run_id) for s in started],
            now=now,
            status="running",
            run_at=now,
        )
    if skipped:
        error = "the monitor was disabled before the job ran"
        _end_runs(
            session,
            [(r.id, r.monitor_id, r.published_date) for r in skipped],
            "skipped",
            now,
            error=error,
        )
    refresh_parents(session, [r.parent_run_id for r in runs], clock=clock)
    return started


def complete_runs(
    session: Session,
    searched: Sequence[tuple[StartedRun, Sequence[SearchHit]]],
    *,
    clock: Clock,
) -> list[RunOutcome]:
    """Store finished searches' hits and close the runs still ours; the outcomes of those."""
    if not searched:
        return []
    lock_parents(session, [s.parent_run_id for s, _ in searched])
    running = set(
        session.scalars(
            select(RUNS.c.id).where(
                RUNS.c.id.in_([s.run_id for s, _ in searched]), RUNS.c.status == "running"
            )
        )
    )
    work = sorted(
        ((s, hits) for s, hits in searched if s.run_id in running),
        key=lambda pair: (pair[0].monitor_id, pair[0].published_date),
    )
    if not work:
        return []
    now = clock.now()
    scores = [_best_scores(hits) for _, hits in work]
    items = _live_items({cid for per_run in scores for cid in per_run}, session)
    stored_before = _already_stored(
        session,
        {
            (s.monitor_id, cid)
            for (s, _), per_run in zip(work, scores, strict=True)
            for cid in per_run
        },
    )
    rows: list[dict[str, Any]] = []
    captured: list[tuple[StartedRun, int, list[CapturedItem]]] = []
    for (run, _), per_run in zip(work, scores, strict=True):
        found = [items[cid] for cid in per_run if cid in items]
        new = sorted(
            (item for item in found if (run.monitor_id, item.id) not in stored_before),
            key=lambda item: (-per_run[item.id], item.id),
        )
        # Stored now: a later job of the batch finding it too (an item re-dated between the two
        # searches) counts and announces it as a repeat, as it would in a transaction of its own.
        stored_before.update((run.monitor_id, item.id) for item in new)
        captured.append((run, len(found), new))
        rows.extend(
            {
                "monitor_id": run.monitor_id,
                "content_id": item.id,
                "published_date": item.published_at.date(),
                "published_at": item.published_at,
                "score": per_run[item.id],
                "enriched_at": item.enriched_at,
                "first_captured_at": now,
                "first_run_id": run.run_id,
            }
            for item in found
        )
    _upsert_results(session, rows)
    latest = _latest_enriched(
        session, [(run.monitor_id, run.published_date) for run, _, _ in captured]
    )

    outcomes: list[RunOutcome] = []
    run_params: list[dict[str, Any]] = []
    ledger_params: list[dict[str, Any]] = []
    for run, count, new in captured:
        high = latest.get((run.monitor_id, run.published_date))
        outcomes.append(RunOutcome(run.run_id, count, len(new), high))
        run_params.append(
            {"b_id": run.run_id, "b_count": count, "b_new": len(new), "b_latest": high}
        )
        ledger_params.append(
            {
                "b_monitor": run.monitor_id,
                "b_date": run.published_date,
                "b_run": run.run_id,
                "b_count": count,
                "b_latest": high,
                "b_completes": completes_date(run.published_date, run.started_at),
            }
        )
    session.execute(
        update(RUNS)
        .where(RUNS.c.id == bindparam("b_id"))
        .values(
            status="succeeded",
            finished_at=now,
            result_count=bindparam("b_count"),
            new_result_count=bindparam("b_new"),
            latest_indexed_content_at=bindparam("b_latest"),
            error_message=None,
        ),
        run_params,
    )
    latest_job = LEDGER.c.run_id == bindparam("b_run")
    session.execute(
        update(LEDGER)
        .where(
            LEDGER.c.monitor_id == bindparam("b_monitor"),
            LEDGER.c.published_date == bindparam("b_date"),
        )
        .values(
            # the store changed whichever job is the latest; the job's own numbers only if it is
            latest_indexed_content_at=bindparam("b_latest"),
            completed_at=case(
                (bindparam("b_completes"), func.coalesce(LEDGER.c.completed_at, now)),
                else_=LEDGER.c.completed_at,
            ),
            status=case((latest_job, "succeeded"), else_=LEDGER.c.status),
            result_count=case((latest_job, bindparam("b_count")), else_=LEDGER.c.result_count),
            error_message=case((latest_job, None), else_=LEDGER.c.error_message),
            updated_at=now,
        ),
        ledger_params,
    )
    # One lookup per workspace instead of one per job: most jobs of an hour belong to
    # workspaces without a webhook target, whose events would not be recorded anyway.
    notified = {
        team
        for team in sorted({r.team_id for r, _, new in captured if new})
        if notifies(session, team)
    }
    for run, count, new in captured:
        if new and run.team_id in notified:
            events.results_added(
                session,
                team_id=run.team_id,
                monitor_id=run.monitor_id,
                run_id=run.run_id,
                task_id=run.parent_run_id,
                published_date=run.published_date,
                result_count=count,
                new_items=new,
                clock=clock,
            )
    refresh_parents(session, [run.parent_run_id for run, _, _ in captured], clock=clock)
    return outcomes


def complete_run(
    session: Session, started: StartedRun, hits: Sequence[SearchHit], *, clock: Clock
) -> RunOutcome | None:
    """One run's :func:`complete_runs`; None if the run is no longer ours."""
    outcomes = complete_runs(session, [(started, hits)], clock=clock)
    return outcomes[0] if outcomes else None


def _best_scores(hits: Sequence[SearchHit]) -> dict[str, float]:
    scores: dict[str, float] = {}
    for hit in hits:
        scores[hit.content_id] = max(hit.score, scores.get(hit.content_id, hit.score))
    return scores


def _live_items(ids: set[str], session: Session) -> dict[str, CapturedItem]:
    items: dict[str, CapturedItem] = {}
    for chunk in _chunks(sorted(ids)):
        rows = session.execute(
            select(
                ContentItem.id,
                ContentItem.title,
                ContentItem.url,
                ContentItem.published_at,
                ContentItem.source_name,
                ContentItem.source_domain,
                ContentItem.enriched_at,
            ).where(ContentItem.id.in_(chunk), ContentItem.deleted_at.is_(None))
        )
        items.update({row.id: CapturedItem(*row) for row in rows})
    return items


def _already_stored(session: Session, pairs: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """The (monitor, content) pairs already in the stores: one primary-key lookup per chunk
    of the batch's monitors and items (a superset, narrowed here), not one per monitor."""
    monitor_ids = sorted({monitor_id for monitor_id, _ in pairs})
    content_ids = sorted({content_id for _, content_id in pairs})
    found: set[tuple[str, str]] = set()
    for monitors in [monitor_ids[i : i + 100] for i in range(0, len(monitor_ids), 100)]:
        for chunk in [content_ids[i : i + 800] for i in range(0, len(content_ids), 800)]:
            rows = session.execute(
                select(RESULTS.c.monitor_id, RESULTS.c.content_id).where(
                    RESULTS.c.monitor_id.in_(monitors), RESULTS.c.content_id.in_(chunk)
                )
            )
            found.update((m, c) for m, c in rows if (m, c) in pairs)
    return found


def _upsert_results(session: Session, rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    statement = insert_for(session, RESULTS)
    new = statement.excluded
    statement = statement.on_conflict_do_update(
        index_elements=["monitor_id", "content_id"],
        set_={
            "published_date": new.published_date,
            "published_at": new.published_at,
            "score": new.score,
            "enriched_at": new.enriched_at,
        },
        # A repeat capture of an unchanged item writes nothing (most captures, hour after hour);
        # the score is refreshed with the item, not with every drift of corpus statistics.
        where=or_(
            RESULTS.c.published_at != new.published_at,
            RESULTS.c.enriched_at.is_distinct_from(new.enriched_at),
        ),
    )
    for start in range(0, len(rows), 500):
        session.execute(statement, rows[start : start + 500])


def _latest_enriched(
    session: Session, pairs: list[tuple[str, date]]
) -> dict[tuple[str, date], datetime | None]:
    """The high-water mark per (monitor, date): the largest ``enriched_at`` in the store.

    Each date is a ``published_at`` range on the (monitor_id, published_at) index, OR-ed: SQLite
    answers that from the index, where a row-value IN would scan the whole store.
    """
    latest: dict[tuple[str, date], datetime | None] = {}
    unique = sorted(set(pairs))
    for start in range(0, len(unique), 200):
        chunk = unique[start : start + 200]
        rows = session.execute(
            select(RESULTS.c.monitor_id, RESULTS.c.published_date, func.max(RESULTS.c.enriched_at))
            .where(
                or_(
                    *(
                        and_(
                            RESULTS.c.monitor_id == monitor_id,
                            RESULTS.c.published_at >= day_window(day).start,
                            RESULTS.c.published_at < day_window(day).end,
                        )
                        for monitor_id, day in chunk
                    )
                )
            )
            .group_by(RESULTS.c.monitor_id, RESULTS.c.published_date)
        )
        latest.update({(monitor_id, day): high for monitor_id, day, high in rows})
    return latest


def _update_ledger_for_runs(
    session: Session,
    runs: Sequence[tuple[str, date, str]],
    *,
    now: datetime,
    status: str,
    run_at: datetime | None = None,
    error: str | None = None,
) -> None:
    """Set the status of ledger entries that still point at these runs."""
    if not runs:
        return
    values: dict[str, Any] = {"status": status, "updated_at": now}
    if run_at is not None:
        values["run_at"] = run_at
    if status in FINISHED:
        values["error_message"] = error
    session.execute(
        update(LEDGER)
        .where(
            and_(
                LEDGER.c.monitor_id == bindparam("b_monitor"),
                LEDGER.c.published_date == bindparam("b_date"),
                LEDGER.c.run_id == bindparam("b_run"),
            )
        )
        .values(**values),
        [{"b_monitor": m, "b_date": d, "b_run": r} for m, d, r in sorted(runs)],
    )


def _end_runs(
    session: Session,
    runs: Sequence[tuple[str, str, date]],
    status: str,
    now: datetime,
    *,
    error: str,
) -> None:
    message = error[:2000]
    session.execute(
        update(RUNS)
        .where(RUNS.c.id == bindparam("b_id"))
        .values(status=status, finished_at=now, error_message=message),
        [{"b_id": run_id} for run_id, _, _ in runs],
    )
    _update_ledger_for_runs(
        session, [(m, d, r) for r, m, d in runs], now=now, status=status, error=message
    )


def retry_or_give_up(
    session: Session, failures: Mapping[str, str], *, clock: Clock, policy: RetryPolicy
) -> None:
    """Runs whose search failed: queue them again after the policy's delay, or fail them.

    A run waiting for its retry stays ``running`` (its date stays ``already_running``) with the
    last error in ``error_message``; its attempts were counted when it started. The retry keeps
    the priority of the run's origin (its parent's kind), as its first job had.
    """
    if not failures:
        return
    parent = RUNS.alias("parent")
    rows = session.execute(
        select(RUNS.c.id, RUNS.c.attempts, RUNS.c.team_id, parent.c.kind.label("origin"))
        .outerjoin(parent, parent.c.id == RUNS.c.parent_run_id)
        .where(RUNS.c.id.in_(sorted(failures)), RUNS.c.status == "running")
    ).all()
    now = clock.now()
    for run in rows:
        error = failures[run.id][:2000]
        delay = policy.delay_after(run.attempts)
        if delay is None:
            give_up_run(session, run.id, error, clock=clock)
            continue
        session.execute(update(RUNS).where(RUNS.c.id == run.id).values(error_message=error))
        enqueue_dated_job(
            session,
            [run.id],
            clock=clock,
            # as urgent as its first job: a scheduled run's retry still goes before backfills
            priority=PRIORITY.get(run.origin, PRIORITY["backfill"]),
            team_id=run.team_id,
            run_at=now + timedelta(seconds=delay),
        )


def give_up_run(session: Session, run_id: str, error: str, *, clock: Clock) -> bool:
    """The run's job failed for good: record it, update ledger and parent, emit the event."""
    parent_id = session.scalar(select(RUNS.c.parent_run_id).where(RUNS.c.id == run_id))
    lock_parents(session, [parent_id])
    run = session.execute(select(RUNS).where(RUNS.c.id == run_id)).one_or_none()
    if run is None or run.status in FINISHED:
        return False
    now = clock.now()
    _end_runs(session, [(run.id, run.monitor_id, run.published_date)], "failed", now, error=error)
    events.run_failed(
        session,
        team_id=run.team_id,
        monitor_id=run.monitor_id,
        run_id=run.id,
        task_id=run.parent_run_id,
        published_date=run.published_date,
        error_message=error[:2000],
        attempts=run.attempts,
        clock=clock,
    )
    refresh_parents(session, [run.parent_run_id], clock=clock)
    return True


def refresh_parents(session: Session, parent_ids: Sequence[str | None], *, clock: Clock) -> None:
    """Derive each parent's status from its children; emit completion when one ends.

    Callers hold the parents' row locks, so two children finishing at once see each other.
    """
    ids = sorted({p for p in parent_ids if p is not None})
    if not ids:
        return
    parents = session.execute(
        select(
            RUNS.c.id,
            RUNS.c.kind,
            RUNS.c.status,
            RUNS.c.started_at,
            RUNS.c.requested_count,
            RUNS.c.monitor_id,
            RUNS.c.team_id,
        ).where(RUNS.c.id.in_(ids))
    ).all()
    children: dict[str, list[DatedJobStatus]] = defaultdict(list)
    for parent_id, status in session.execute(
        select(RUNS.c.parent_run_id, RUNS.c.status).where(RUNS.c.parent_run_id.in_(ids))
    ):
        children[parent_id].append(cast(DatedJobStatus, status))
    now = clock.now()
    changes: list[dict[str, Any]] = []
    ended = []
    for parent in parents:
        status = task_status(children[parent.id])
        if status == parent.status:
            continue
        changes.append(
            {
                "b_id": parent.id,
                "b_status": status,
                "b_started": parent.started_at or (now if status != "queued" else None),
                "b_finished": now if status in FINISHED else None,
            }
        )
        if status in FINISHED:
            ended.append((parent, status))
    if changes:
        session.execute(
            update(RUNS)
            .where(RUNS.c.id == bindparam("b_id"))
            .values(
                status=bindparam("b_status"),
                started_at=bindparam("b_started"),
                finished_at=bindparam("b_finished"),
            ),
            changes,
        )
    for parent, status in ended:
        events.task_completed(
            session,
            team_id=parent.team_id,
            monitor_id=parent.monitor_id,
            task_id=parent.id,
            kind=parent.kind,
            status=status,
            summary=task_summary(parent.requested_count, children[parent.id]),
            clock=clock,
        )
