"""Date inputs and publication windows (pure; property-tested).

Pinned rules (API-DECISIONS.md "Dates and windows"):
- inputs are ``YYYY-MM-DD`` or ISO 8601 datetimes; a datetime without offset is UTC;
- a date-only start means 00:00:00Z; a date-only end is inclusive through the end of that day;
- the 60-day rule compares UTC calendar dates: ``end_date - start_date <= 60 days``;
- the default window runs from 60 days before today through today.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import TypeVar

from herald.errors import DateWindowIncomplete, DateWindowTooLong, FieldIssue, InvalidRequest

_DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True, slots=True)
class DateInput:
    """A parsed date input: the instant it denotes and whether it was a bare date."""

    instant: datetime
    date_only: bool

    @property
    def utc_date(self) -> date:
        return self.instant.astimezone(UTC).date()


@dataclass(frozen=True, slots=True)
class Window:
    """A half-open publication window ``[start, end)`` in UTC."""

    start: datetime
    end: datetime

    def contains(self, instant: datetime) -> bool:
        return self.start <= instant < self.end


def parse_date_input(value: str, *, field: str) -> DateInput:
    """Parse ``YYYY-MM-DD`` or an ISO 8601 datetime; raises InvalidRequest naming ``field``."""
    text = value.strip()
    try:
        if _DATE_ONLY.match(text):
            day = date.fromisoformat(text)
            return DateInput(datetime.combine(day, time.min, UTC), date_only=True)
        parsed = datetime.fromisoformat(text.replace("z", "Z"))
    except ValueError:
        raise InvalidRequest(
            f"{field} must be a date (YYYY-MM-DD) or an ISO 8601 datetime",
            details=[FieldIssue(field, f"not a date or datetime: {value!r}")],
        ) from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return DateInput(parsed.astimezone(UTC), date_only=False)


def end_instant(value: DateInput) -> datetime:
    """The exclusive end of a window whose inclusive end is ``value``."""
    if value.date_only:
        return value.instant + timedelta(days=1)
    return value.instant + timedelta(microseconds=1)


_Bound = TypeVar("_Bound", date, datetime)


def check_order(start: _Bound | None, end: _Bound | None) -> None:
    """A start after the end is ``date_window_too_long`` (pinned), wherever a window is given."""
    if start is not None and end is not None and start > end:
        raise DateWindowTooLong(
            "start_date is after end_date",
            details=[FieldIssue("start_date", "must not be after end_date")],
        )


def resolve_window(
    start: DateInput | None,
    end: DateInput | None,
    *,
    today: date,
    default_days: int = 60,
    max_days: int | None = 60,
    require_both: bool = True,
) -> Window:
    """Apply the window rules and return the half-open window.

    ``require_both``: content search needs both dates or neither (``date_window_incomplete``);
    list endpoints (timeline) accept either bound alone, the other defaulting.
    """
    if (start is None) != (end is None) and require_both:
        missing = "end_date" if end is None else "start_date"
        raise DateWindowIncomplete(
            "start_date and end_date must be given together",
            details=[FieldIssue(missing, "required when the other date is present")],
        )
    default_start = datetime.combine(today - timedelta(days=default_days), time.min, UTC)
    default_end = datetime.combine(today + timedelta(days=1), time.min, UTC)
    lo = start.instant if start else default_start
    hi = end_instant(end) if end else default_end
    if start is not None and end is not None:
        check_order(start.instant, end.instant)
        if max_days is not None and (end.utc_date - start.utc_date).days > max_days:
            raise DateWindowTooLong(
                f"the date window spans more than {max_days} days",
                details=[FieldIssue("end_date", f"at most {max_days} days after start_date")],
            )
    if lo >= hi:
        raise DateWindowTooLong(
            "the date window is empty",
            details=[FieldIssue("start_date", "must be before end_date")],
        )
    return Window(lo, hi)


def day_window(day: date) -> Window:
    """The UTC calendar day ``[D 00:00Z, D+1 00:00Z)`` (a monitor's dated job)."""
    start = datetime.combine(day, time.min, UTC)
    return Window(start, start + timedelta(days=1))
