"""Monitor schedules: validation, defaults and wall-clock slot arithmetic (pure; property-tested).

Stable rules clients rely on (docs/monitors.md):
- schedules run on the wall clock of ``timezone`` (an IANA name);
- a local time that does not exist (DST gap) runs at the first instant after it, i.e. the moment
  the clocks jump forward;
- an ambiguous local time (DST overlap) runs once, at its first occurrence;
- ``minute`` with daily or ``run_time`` with hourly is 400.

Slots. Every local time a schedule names (each ``HH:minute`` for hourly, ``run_time`` each day for
daily) maps to one UTC *slot instant*. Several local times may map to the same instant (all the
times inside a gap map to the jump), and that instant is one slot: a slot is identified by
``(monitor, slot instant)``, so any number of schedulers claiming it agree on its identity.
A scheduler that comes back after downtime claims only the latest slot at or before ``now``
(:func:`due_slot`): missed slots collapse into one run rather than a burst.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from functools import cache
from typing import Literal
from zoneinfo import ZoneInfo, available_timezones

from herald.errors import FieldIssue, InvalidRequest, InvalidTimezone, field_path

Frequency = Literal["hourly", "daily"]
FREQUENCIES: tuple[Frequency, ...] = ("hourly", "daily")
DEFAULT_TIMEZONE = "UTC"
SCHEDULE_FIELDS = frozenset({"frequency", "timezone", "minute", "run_time"})

_RUN_TIME = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)$")
# Names the zoneinfo search path may list that are not IANA zones (machine-specific links) or
# that carry no real offset rules.
_NOT_IANA = frozenset({"localtime", "posixrules", "Factory"})
# Longest run of local times that can be missing or repeated: one skipped calendar day
# (Pacific/Apia, 2011-12-30) plus margin. Bounds the slot searches below.
_SEARCH_HOURS = 24 * 3


@dataclass(frozen=True, slots=True)
class Schedule:
    """A validated schedule. Exactly one of ``minute`` (hourly) / ``run_time`` (daily) is set."""

    frequency: Frequency
    timezone: str
    minute: int | None = None
    run_time: time | None = None

    def __post_init__(self) -> None:
        if self.frequency == "hourly":
            if self.minute is None or self.run_time is not None or not 0 <= self.minute <= 59:
                raise ValueError("an hourly schedule has a minute 0-59 and no run_time")
        elif self.run_time is None or self.minute is not None:
            raise ValueError("a daily schedule has a run_time and no minute")
        zone(self.timezone)

    @property
    def zone(self) -> ZoneInfo:
        return zone(self.timezone)

    def to_json(self) -> dict[str, object]:
        """The API shape: ``frequency``, ``timezone`` and ``minute`` or ``run_time``."""
        out: dict[str, object] = {"frequency": self.frequency, "timezone": self.timezone}
        if self.frequency == "hourly":
            out["minute"] = self.minute
        else:
            assert self.run_time is not None
            out["run_time"] = self.run_time.strftime("%H:%M")
        return out


@cache
def _iana_names() -> frozenset[str]:
    return frozenset(available_timezones()) - _NOT_IANA


def zone(name: str) -> ZoneInfo:
    """The zone for an IANA name; anything else is ``invalid_timezone``."""
    if name not in _iana_names():
        raise InvalidTimezone(
            f"{name!r} is not an IANA timezone name",
            details=[
                FieldIssue("schedule.timezone", "must be an IANA timezone such as Europe/Paris")
            ],
        )
    return ZoneInfo(name)


def parse_schedule(raw: Mapping[str, object] | None, *, now: datetime) -> Schedule:
    """Validate a schedule object from a request and fill in defaults.

    Defaults: hourly, UTC; ``minute`` is the minute of ``now`` and ``run_time`` the ``HH:MM`` of
    ``now``, both read on the wall clock of the schedule's timezone (so a default hourly monitor
    runs each hour at the minute it was created, whatever the zone's offset).
    A ``null`` field counts as absent.
    """
    return _build(dict(raw or {}), now=now)


def merge_schedule(current: Schedule, raw: Mapping[str, object], *, now: datetime) -> Schedule:
    """Apply a PATCH ``schedule`` object: given fields replace, omitted fields are kept.

    Changing the frequency drops the other frequency's field; the new one then defaults as at
    creation (from ``now``) unless given.
    """
    fields = {k: v for k, v in raw.items() if v is not None}
    merged: dict[str, object] = {"frequency": current.frequency, "timezone": current.timezone}
    if fields.get("frequency", current.frequency) == current.frequency:
        # Keep the current minute / run_time; a field of the other frequency given alongside it
        # is then rejected by the usual rule, never taken as a silent switch.
        if current.minute is not None:
            merged["minute"] = current.minute
        if current.run_time is not None:
            merged["run_time"] = current.run_time.strftime("%H:%M")
    merged.update(fields)
    return _build(merged, now=now)


def _build(raw: dict[str, object], *, now: datetime) -> Schedule:
    raw = {k: v for k, v in raw.items() if v is not None}
    issues = [
        FieldIssue(field_path("schedule", name), "unknown field")
        for name in sorted(set(raw) - SCHEDULE_FIELDS)
    ]
    if issues:
        raise InvalidRequest("schedule has unknown fields", details=issues)

    frequency = raw.get("frequency", "hourly")
    if frequency not in FREQUENCIES:
        raise InvalidRequest(
            "schedule.frequency must be 'hourly' or 'daily'",
            details=[FieldIssue("schedule.frequency", "must be 'hourly' or 'daily'")],
        )
    timezone = raw.get("timezone", DEFAULT_TIMEZONE)
    if not isinstance(timezone, str):
        raise InvalidRequest(
            "schedule.timezone must be a string",
            details=[FieldIssue("schedule.timezone", "must be a string")],
        )
    tz = zone(timezone)
    local_now = now.astimezone(tz)

    if frequency == "hourly":
        if "run_time" in raw:
            raise InvalidRequest(
                "run_time applies to daily schedules only",
                details=[FieldIssue("schedule.run_time", "not allowed with frequency 'hourly'")],
            )
        minute = raw.get("minute", local_now.minute)
        if isinstance(minute, bool) or not isinstance(minute, int) or not 0 <= minute <= 59:
            raise InvalidRequest(
                "schedule.minute must be an integer from 0 to 59",
                details=[FieldIssue("schedule.minute", "must be an integer from 0 to 59")],
            )
        return Schedule("hourly", timezone, minute=minute)

    if "minute" in raw:
        raise InvalidRequest(
            "minute applies to hourly schedules only",
            details=[FieldIssue("schedule.minute", "not allowed with frequency 'daily'")],
        )
    run_time_raw = raw.get("run_time", local_now.strftime("%H:%M"))
    match = _RUN_TIME.match(run_time_raw) if isinstance(run_time_raw, str) else None
    if match is None:
        raise InvalidRequest(
            "schedule.run_time must be HH:MM (00:00 to 23:59)",
            details=[FieldIssue("schedule.run_time", "must be HH:MM, 24-hour clock")],
        )
    return Schedule("daily", timezone, run_time=time(int(match[1]), int(match[2])))


# --- wall clock -> instants ---------------------------------------------------------------


def local_to_instant(local: datetime, tz: ZoneInfo) -> datetime:
    """The UTC instant a naive wall-clock time ``local`` denotes in ``tz``, by the rules above.

    Existing times map to their first occurrence (``fold=0`` is the earlier one in an overlap);
    a time inside a gap maps to the first instant after it, the transition itself.
    """
    first = local.replace(tzinfo=tz, fold=0)
    instant = first.astimezone(UTC)
    if instant.astimezone(tz).replace(tzinfo=None) == local:
        return instant
    # In a gap, fold=0 reads the time with the offset from before the jump (lands after it) and
    # fold=1 with the offset from after it (lands before it): the jump lies between the two.
    before = local.replace(tzinfo=tz, fold=1).astimezone(UTC)
    after = instant
    lo, hi = min(before, after), max(before, after)
    offset_before = lo.astimezone(tz).utcoffset()
    # Offsets change on whole seconds: bisect to the first second carrying the new offset.
    while hi - lo > timedelta(seconds=1):
        mid = lo + (hi - lo) // 2
        mid = mid.replace(microsecond=0)
        if mid.astimezone(tz).utcoffset() == offset_before:
            lo = mid
        else:
            hi = mid
    return hi


def _require_aware(instant: datetime) -> None:
    # A naive datetime would be read in the machine's local zone: a silent, host-dependent bug.
    if instant.tzinfo is None:
        raise ValueError("schedule arithmetic needs timezone-aware instants")


def _step(schedule: Schedule) -> timedelta:
    return timedelta(hours=1) if schedule.frequency == "hourly" else timedelta(days=1)


def _slot_time_at_or_before(schedule: Schedule, local: datetime) -> datetime:
    """The latest naive local time the schedule names that is at or before ``local``."""
    if schedule.frequency == "hourly":
        assert schedule.minute is not None
        candidate = local.replace(minute=schedule.minute, second=0, microsecond=0)
    else:
        assert schedule.run_time is not None
        candidate = datetime.combine(local.date(), schedule.run_time)
    return candidate if candidate <= local else candidate - _step(schedule)


def _first_slot_after(schedule: Schedule, after: datetime) -> tuple[datetime, datetime]:
    """``(local time, instant)`` of the first slot whose instant is strictly after ``after``.

    ``local_to_instant`` is non-decreasing in the local time (it is the first instant whose wall
    reading reaches it), and every local time at or before the wall reading of ``after`` maps to
    an instant at or before ``after``; so walk forward from there. More than one step is needed
    only inside an overlap (the first occurrences of the next local times are already past) or
    a gap (several local times share the jump instant).
    """
    tz = schedule.zone
    local = _slot_time_at_or_before(schedule, after.astimezone(tz).replace(tzinfo=None))
    step = _step(schedule)
    for _ in range(_SEARCH_HOURS):
        local += step
        instant = local_to_instant(local, tz)
        if instant > after:
            return local, instant
    raise AssertionError("no slot found in the search horizon")  # pragma: no cover


def next_run_at(schedule: Schedule, after: datetime) -> datetime:
    """The first slot instant strictly after ``after`` (UTC, whole seconds)."""
    _require_aware(after)
    return _first_slot_after(schedule, after)[1]


def previous_slot(schedule: Schedule, at_or_before: datetime) -> datetime:
    """The latest slot instant at or before ``at_or_before``."""
    _require_aware(at_or_before)
    tz = schedule.zone
    local, _ = _first_slot_after(schedule, at_or_before)
    step = _step(schedule)
    for _ in range(_SEARCH_HOURS):
        local -= step
        instant = local_to_instant(local, tz)
        if instant <= at_or_before:
            return instant
    raise AssertionError("no slot found in the search horizon")  # pragma: no cover


@dataclass(frozen=True, slots=True)
class DueSlot:
    """A due monitor's work: run ``slot`` once, then wait for ``next_run_at``."""

    slot: datetime
    next_run_at: datetime


def due_slot(schedule: Schedule, stored_next_run_at: datetime, now: datetime) -> DueSlot | None:
    """Decide the run for a monitor whose stored ``next_run_at`` may have come due.

    ``None`` when nothing is due yet. Otherwise the slot to run is the latest one at or before
    ``now`` (never before the stored one), and the new ``next_run_at`` is the first slot after
    ``now``: a service that was down for hours runs once, not once per missed slot. A scheduler
    claims the run by a compare-and-set from ``stored_next_run_at`` to ``next_run_at``, so of
    several schedulers exactly one wins a slot.
    """
    if stored_next_run_at > now:
        return None
    slot = max(previous_slot(schedule, now), stored_next_run_at)
    return DueSlot(slot=slot, next_run_at=next_run_at(schedule, now))
