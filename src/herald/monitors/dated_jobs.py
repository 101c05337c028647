"""Running dated jobs: start, search one published date, store the results, finish or fail.

The job handler (:mod:`herald.monitors.tasks`) calls these in three steps for a batch of jobs:
:func:`start_runs` in one transaction, the searches outside any transaction, then
:func:`complete_runs` in the transaction that also finishes the durable jobs. A worker killed
anywhere in between loses nothing: its lease expires, the job runs again, and the store upsert
keys on (monitor, content) so nothing is stored twice; ``new_result_count`` is counted inside the
completing transaction, so a repeated job counts only what is really new. Failed searches are
retried or given up by :mod:`herald.monitors.run_states`; the store is written through
:mod:`herald.monitors.result_store`.

Each step is a handful of set-based statements for the whole batch (an hour of 10,000 hourly
monitors is 30,000-40,000 dated jobs). Lock order on PostgreSQL: parent runs by id first, then
dated runs and ledger rows by (monitor, date), as in :mod:`herald.monitors.queueing`, so
concurrent writers cannot deadlock.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, cast

from sqlalchemy import Table, bindparam, case, func, select, update
from sqlalchemy.orm import Session

from herald.core.clock import Clock
from herald.db.models.monitor import Monitor, MonitorLedgerEntry, MonitorRun
from herald.monitors import events
from herald.monitors.events import CapturedItem
from herald.monitors.ports import notifies
from herald.monitors.result_store import (
    already_stored,
    best_scores,
    latest_enriched,
    live_items,
    upsert_results,
)
from herald.monitors.rules import IN_FLIGHT, completes_date
from herald.monitors.run_states import (
    end_runs,
    lock_parents,
    refresh_parents,
    update_ledger_for_runs,
)
from herald.monitors.saved_search import SavedSearch
from herald.search.types import SearchHit

RUNS = cast(Table, MonitorRun.__table__)
LEDGER = cast(Table, MonitorLedgerEntry.__table__)


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
        update_ledger_for_runs(
            session,
            [(s.monitor_id, s.published_date, s.run_id) for s in started],
            now=now,
            status="running",
            run_at=now,
        )
    if skipped:
        error = "the monitor was disabled before the job ran"
        end_runs(
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
    scores = [best_scores(hits) for _, hits in work]
    items = live_items({cid for per_run in scores for cid in per_run}, session)
    stored_before = already_stored(
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
    upsert_results(session, rows)
    latest = latest_enriched(
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
