"""Dated-job rules: which dates a run or backfill queues, completeness, task status (pure).

Stable rules clients rely on (docs/monitors.md):
- a run (scheduled or run-now) queues four dated jobs: the current UTC day and the trailing three;
- a date D is *complete* when a dated job for D succeeded and started more than 72 hours after
  D 00:00Z (late articles have had time to arrive and be indexed);
- ``skip_complete`` skips complete dates; run-now and scheduled runs report them as
  ``already_complete``; a date with a queued or running dated job is ``already_running`` and is
  not queued twice;
- parent task status: ``queued`` until a child starts, ``running`` while any child is queued or
  running, then ``succeeded`` when no child failed, else ``failed``.

Herald's own choices, documented in docs/monitors.md:
- each requested date lands in exactly one outcome (queued, already_complete, already_running),
  so ``requested = queued + already_complete + already_running + failed``; with
  ``skip_complete: false`` a complete date is queued again (its queued entry carries
  ``already_complete: true``) and counts as queued;
- ``already_running`` wins over ``already_complete`` (a date is never queued twice);
- a parent with no children (every date skipped) has finished: ``succeeded``;
- a child that ends ``skipped`` (its monitor was disabled before it ran) has finished and did
  not fail.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Literal

from herald.core.dates import LAST_WHOLE_DAY, midnight
from herald.errors import FieldIssue, InvalidRequest, TooManyDates, field_path

COMPLETENESS_DELAY = timedelta(hours=72)
DATED_JOBS_PER_RUN = 4
MAX_BACKFILL_DATES = 100
DATED_JOB_LIMIT = 1000

DatedJobStatus = Literal["queued", "running", "succeeded", "failed", "skipped"]
TaskStatus = Literal["queued", "running", "succeeded", "failed"]
LedgerStatus = Literal["running", "succeeded", "failed", "skipped"]
Outcome = Literal["queued", "already_complete", "already_running", "past_retention"]
RunKind = Literal["scheduled", "manual", "backfill", "dated"]

IN_FLIGHT: frozenset[str] = frozenset({"queued", "running"})
FINISHED: frozenset[str] = frozenset({"succeeded", "failed", "skipped"})

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def run_dates(now: datetime) -> list[date]:
    """The published dates of a run's dated jobs: the current UTC day, then the trailing three."""
    today = now.astimezone(UTC).date()
    return [today - timedelta(days=i) for i in range(DATED_JOBS_PER_RUN)]


def completes_date(published_date: date, started_at: datetime) -> bool:
    """Whether a successful dated job that started at ``started_at`` makes its date complete."""
    # Subtracting from the start keeps the last calendar days (D + 72 h past 9999-12-31) computable.
    return started_at - COMPLETENESS_DELAY > midnight(published_date)


@dataclass(frozen=True, slots=True)
class DatedJobRecord:
    """What the completeness rule needs to know about one dated job for a date."""

    status: DatedJobStatus
    started_at: datetime | None


def is_complete(published_date: date, jobs: Iterable[DatedJobRecord]) -> bool:
    """Complete once any dated job for the date succeeded having started after the 72 hours.

    A later failure does not undo it: the results captured then are still in the store.
    """
    return any(
        job.status == "succeeded"
        and job.started_at is not None
        and completes_date(published_date, job.started_at)
        for job in jobs
    )


@dataclass(frozen=True, slots=True)
class DateState:
    """The state of one published date of a monitor when a run or backfill is requested."""

    complete: bool = False
    in_flight: bool = False  # a dated job for the date is queued (or waiting to retry) or running
    latest_indexed_content: datetime | None = None


@dataclass(frozen=True, slots=True)
class DatePlan:
    published_date: date
    outcome: Outcome
    already_complete: bool
    latest_indexed_content: datetime | None

    @property
    def queued(self) -> bool:
        return self.outcome == "queued"


def plan_dates(
    dates: Sequence[date],
    states: Mapping[date, DateState],
    *,
    skip_complete: bool = True,
    retained_from: date | None = None,
) -> list[DatePlan]:
    """Classify requested dates, in request order; runs always skip complete ones.

    A date before ``retained_from`` is past retention: its items were deleted (or are about to
    be), so it is never queued; a job would find nothing or resurrect results."""
    plans = []
    for day in dates:
        state = states.get(day, DateState())
        outcome: Outcome
        if retained_from is not None and day < retained_from:
            outcome = "past_retention"
        elif state.in_flight:
            outcome = "already_running"
        elif state.complete and skip_complete:
            outcome = "already_complete"
        else:
            outcome = "queued"
        plans.append(DatePlan(day, outcome, state.complete, state.latest_indexed_content))
    return plans


@dataclass(frozen=True, slots=True)
class RequestSummary:
    """The summary in run-now and backfill responses (and stored on scheduled runs)."""

    requested: int = 0
    queued: int = 0
    already_complete: int = 0
    already_running: int = 0
    failed: int = 0

    def to_json(self) -> dict[str, int]:
        return asdict(self)


def request_summary(plans: Sequence[DatePlan], *, failed: int = 0) -> RequestSummary:
    """Counts per outcome; ``failed`` counts children that already failed (none at request time)."""
    counts = Counter(plan.outcome for plan in plans)
    return RequestSummary(
        requested=len(plans),
        queued=counts["queued"],
        already_complete=counts["already_complete"],
        already_running=counts["already_running"],
        failed=failed,
    )


def validate_backfill_dates(raw: object) -> list[date]:
    """Validate a backfill's ``dates``: 1 to 100 distinct ``YYYY-MM-DD`` calendar dates.

    More than 100 is ``too_many_dates`` (checked first: it is the headline problem); anything
    else wrong is ``invalid_request`` with one detail per offending entry.
    """
    if not isinstance(raw, list):
        raise InvalidRequest(
            "dates must be an array of YYYY-MM-DD strings",
            details=[FieldIssue("dates", "must be an array of YYYY-MM-DD strings")],
        )
    if len(raw) > MAX_BACKFILL_DATES:
        raise TooManyDates(
            f"a backfill takes at most {MAX_BACKFILL_DATES} dates ({len(raw)} given)",
            details=[FieldIssue("dates", f"at most {MAX_BACKFILL_DATES} dates")],
        )
    if not raw:
        raise InvalidRequest(
            "dates must name at least one date",
            details=[FieldIssue("dates", "must not be empty")],
        )
    issues: list[FieldIssue] = []
    seen: dict[date, int] = {}
    out: list[date] = []
    for index, item in enumerate(raw):
        name = field_path("dates", index)
        if not isinstance(item, str) or not _DATE.match(item):
            issues.append(FieldIssue(name, "must be a UTC date YYYY-MM-DD"))
            continue
        try:
            day = date.fromisoformat(item)
        except ValueError:
            issues.append(FieldIssue(name, f"{item!r} is not a calendar date"))
            continue
        if day > LAST_WHOLE_DAY:
            issues.append(FieldIssue(name, f"{item} is past the last date a job can search"))
            continue
        if day in seen:
            issues.append(FieldIssue(name, f"duplicate of {field_path('dates', seen[day])}"))
            continue
        seen[day] = index
        out.append(day)
    if issues:
        raise InvalidRequest("dates has invalid entries", details=issues)
    return out


def task_status(children: Sequence[DatedJobStatus]) -> TaskStatus:
    """A parent task's status derived from its children's (stable transitions)."""
    if not children:
        return "succeeded"
    if all(status == "queued" for status in children):
        return "queued"
    if any(status in IN_FLIGHT for status in children):
        return "running"
    return "failed" if any(status == "failed" for status in children) else "succeeded"


@dataclass(frozen=True, slots=True)
class TaskSummary:
    """Counters of GET .../backfills/{task_id}: each requested date is counted exactly once.

    ``skipped`` = dates not queued (already complete or already running) + children skipped.
    """

    requested: int = 0
    queued: int = 0
    running: int = 0
    succeeded: int = 0
    failed: int = 0
    skipped: int = 0

    def to_json(self) -> dict[str, int]:
        return asdict(self)


def task_summary(requested: int, children: Sequence[DatedJobStatus]) -> TaskSummary:
    if len(children) > requested:
        raise ValueError("a task cannot have more children than requested dates")
    counts = Counter(children)
    return TaskSummary(
        requested=requested,
        queued=counts["queued"],
        running=counts["running"],
        succeeded=counts["succeeded"],
        failed=counts["failed"],
        skipped=requested - len(children) + counts["skipped"],
    )


def ledger_status(job_status: DatedJobStatus) -> LedgerStatus:
    """The ledger shows a date's latest dated job; a queued job already shows as ``running``."""
    if job_status == "queued" or job_status == "running":
        return "running"
    return job_status


@dataclass(frozen=True, slots=True)
class LedgerSummary:
    total: int = 0
    running: int = 0
    succeeded: int = 0
    failed: int = 0
    skipped: int = 0

    def to_json(self) -> dict[str, int]:
        return asdict(self)


def ledger_summary(statuses: Iterable[LedgerStatus]) -> LedgerSummary:
    counts = Counter(statuses)
    return LedgerSummary(
        total=sum(counts.values()),
        running=counts["running"],
        succeeded=counts["succeeded"],
        failed=counts["failed"],
        skipped=counts["skipped"],
    )


@dataclass(frozen=True, slots=True)
class DatedJobOutcome:
    """What a finished dated job reports: matches of its search, and those new to the store."""

    result_count: int
    new_result_count: int
    new_content_ids: tuple[str, ...] = field(default=())


def count_new(matched: Sequence[str], already_stored: Iterable[str]) -> DatedJobOutcome:
    """``result_count`` = distinct matches of this job; ``new`` = those not yet in the store."""
    stored = set(already_stored)
    distinct = list(dict.fromkeys(matched))
    new = tuple(cid for cid in distinct if cid not in stored)
    return DatedJobOutcome(len(distinct), len(new), new)
