"""Property tests of schedule arithmetic against a brute-force oracle, over every IANA zone.

The oracle walks UTC minute by minute and marks an instant as a slot when the zone's wall clock
*first* reaches a scheduled local time there: exactly the pinned rules (a gap runs at the first
instant after the missing time; an ambiguous time runs at its first occurrence). It shares no
code with the implementation. Years are 1980-2060: every zone's offsets and transitions fall on
whole minutes there, which the minute walk needs.
"""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo

from hypothesis import given, settings
from hypothesis import strategies as st

from herald.monitors.schedule import (
    Schedule,
    _iana_names,
    due_slot,
    local_to_instant,
    next_run_at,
    previous_slot,
)

ZONES = sorted(_iana_names())
HOT_ZONES = [
    "America/New_York",
    "Europe/London",
    "Australia/Lord_Howe",  # 30-minute DST
    "America/St_Johns",  # -03:30 with DST
    "Pacific/Chatham",  # +12:45 with DST
    "Antarctica/Troll",  # 2-hour DST
    "Pacific/Apia",  # skipped a whole day in 2011
]

zones = st.one_of(st.sampled_from(HOT_ZONES), st.sampled_from(ZONES))
instants = st.datetimes(
    min_value=datetime(1980, 1, 3),
    max_value=datetime(2060, 12, 28),
    timezones=st.just(UTC),
)


@lru_cache(maxsize=4096)
def transitions(tz_name: str, year: int) -> tuple[datetime, ...]:
    """Instants in ``year`` at which the zone's UTC offset changes (to the second)."""
    tz = ZoneInfo(tz_name)
    found = []
    t = datetime(year, 1, 1, tzinfo=UTC)
    end = datetime(year + 1, 1, 1, tzinfo=UTC)
    step = timedelta(hours=6)
    while t < end:
        if t.astimezone(tz).utcoffset() != (t + step).astimezone(tz).utcoffset():
            lo, hi = t, t + step
            while hi - lo > timedelta(seconds=1):
                mid = lo + (hi - lo) / 2
                mid = mid.replace(microsecond=0)
                if mid.astimezone(tz).utcoffset() == lo.astimezone(tz).utcoffset():
                    lo = mid
                else:
                    hi = mid
            found.append(hi)
        t += step
    return tuple(found)


def schedule_near(draw: st.DrawFn, tz: str, frequency: str, local: datetime) -> Schedule:
    """A schedule whose local time falls within 90 minutes of ``local`` (a transition's)."""
    aim = local + timedelta(minutes=draw(st.integers(-90, 90)))
    if frequency == "hourly":
        return Schedule("hourly", tz, minute=aim.minute)
    return Schedule("daily", tz, run_time=aim.time().replace(second=0, microsecond=0))


@st.composite
def cases(draw: st.DrawFn) -> tuple[Schedule, datetime]:
    """A schedule and a reference instant, most often right around a clock change of the zone."""
    tz = draw(zones)
    frequency = draw(st.sampled_from(["hourly", "daily"]))
    year = draw(st.integers(1980, 2060))
    changes = transitions(tz, year)
    if changes and draw(st.integers(0, 3)) > 0:
        jump = draw(st.sampled_from(changes))
        schedule = schedule_near(draw, tz, frequency, wall(jump, ZoneInfo(tz)))
        reach = 3 * 3600 if frequency == "hourly" else 2 * 86400
        return schedule, jump + timedelta(seconds=draw(st.integers(-reach, reach)))
    if frequency == "hourly":
        schedule = Schedule("hourly", tz, minute=draw(st.integers(0, 59)))
    else:
        run_time = time(draw(st.integers(0, 23)), draw(st.integers(0, 59)))
        schedule = Schedule("daily", tz, run_time=run_time)
    return schedule, draw(instants)


def wall(instant: datetime, tz: ZoneInfo) -> datetime:
    return instant.astimezone(tz).replace(tzinfo=None)


def offset(instant: datetime, tz: ZoneInfo) -> timedelta:
    value = instant.astimezone(tz).utcoffset()
    assert value is not None
    return value


def first_scheduled_time_above(schedule: Schedule, local: datetime) -> datetime:
    """The smallest local time the schedule names that is strictly after ``local``."""
    if schedule.frequency == "hourly":
        assert schedule.minute is not None
        candidate = local.replace(minute=schedule.minute, second=0, microsecond=0)
        step = timedelta(hours=1)
    else:
        assert schedule.run_time is not None
        candidate = datetime.combine(local.date(), schedule.run_time)
        step = timedelta(days=1)
    while candidate <= local:
        candidate += step
    return candidate


def oracle_slots(schedule: Schedule, start: datetime, end: datetime) -> list[datetime]:
    """Slot instants in ``(start + lead, end]`` by walking the wall clock minute by minute."""
    tz = ZoneInfo(schedule.timezone)
    t = start.replace(second=0, microsecond=0)
    highest = wall(t, tz)  # the furthest the wall clock has reached so far
    slots = []
    while t < end:
        t += timedelta(minutes=1)
        reading = wall(t, tz)
        if first_scheduled_time_above(schedule, highest) <= reading:
            slots.append(t)
        highest = max(highest, reading)
    return slots


def lead(schedule: Schedule) -> timedelta:
    # Walk this far before the reference instant so that "first reached" is decided correctly
    # even after the largest overlaps of the period (a few hours).
    return timedelta(hours=30)


def horizon(schedule: Schedule) -> timedelta:
    # The next slot is at most a period plus the largest gap or overlap away.
    return timedelta(hours=30) if schedule.frequency == "hourly" else timedelta(hours=54)


@settings(max_examples=80, deadline=None)
@given(cases())
def test_next_run_at_matches_the_oracle(case: tuple[Schedule, datetime]) -> None:
    schedule, after = case
    expected = oracle_slots(schedule, after - lead(schedule), after + horizon(schedule))
    expected_next = min(s for s in expected if s > after)
    assert next_run_at(schedule, after) == expected_next


@settings(max_examples=300, deadline=None)
@given(cases())
def test_next_run_is_after_and_lands_on_the_wall_clock_or_a_jump(
    case: tuple[Schedule, datetime],
) -> None:
    schedule, after = case
    tz = ZoneInfo(schedule.timezone)
    got = next_run_at(schedule, after)
    assert got > after
    assert got.tzinfo is UTC
    local = got.astimezone(tz)
    on_time = (
        local.minute == schedule.minute
        if schedule.frequency == "hourly"
        else local.time().replace(second=0, microsecond=0) == schedule.run_time
    )
    at_a_jump = (got - timedelta(seconds=1)).astimezone(tz).utcoffset() != local.utcoffset()
    assert (local.second, local.microsecond) == (0, 0)
    assert on_time or at_a_jump


@settings(max_examples=300, deadline=None)
@given(cases())
def test_hourly_runs_are_at_most_an_hour_apart_plus_the_clock_change(
    case: tuple[Schedule, datetime],
) -> None:
    drawn, after = case
    minute = drawn.minute if drawn.run_time is None else drawn.run_time.minute
    schedule = Schedule("hourly", drawn.timezone, minute=minute)
    tz = ZoneInfo(schedule.timezone)
    first = next_run_at(schedule, after)
    second = next_run_at(schedule, first)
    fall_back = max(timedelta(0), offset(first, tz) - offset(second, tz))
    assert timedelta(0) < second - first <= timedelta(hours=1) + fall_back


@settings(max_examples=300, deadline=None)
@given(cases())
def test_previous_slot_brackets_the_instant(case: tuple[Schedule, datetime]) -> None:
    schedule, at = case
    prev = previous_slot(schedule, at)
    assert prev <= at
    assert next_run_at(schedule, prev) > at  # no slot in (prev, at]
    following = next_run_at(schedule, at)
    assert previous_slot(schedule, following) == following


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(ZONES),
    st.datetimes(
        min_value=datetime(1980, 1, 3),
        max_value=datetime(2060, 12, 28),
    ).map(lambda d: d.replace(second=0, microsecond=0)),
)
def test_local_time_maps_to_the_first_instant_the_wall_clock_reaches_it(
    tz_name: str, local: datetime
) -> None:
    tz = ZoneInfo(tz_name)
    instant = local_to_instant(local, tz)
    assert wall(instant, tz) >= local
    assert wall(instant - timedelta(seconds=1), tz) < local


@settings(max_examples=40, deadline=None)
@given(cases(), st.integers(1, 3), st.integers(1, 95))
def test_schedulers_ticking_every_minute_claim_every_slot_exactly_once(
    case: tuple[Schedule, datetime], scheduler_count: int, seed_offset: int
) -> None:
    """Several schedulers, each ticking once a minute with staggered clocks, over a window."""
    schedule, start = case
    start = start.replace(second=0, microsecond=0) - horizon(schedule) / 2
    span = timedelta(hours=8) if schedule.frequency == "hourly" else timedelta(hours=54)
    stored = next_run_at(schedule, start)
    claimed: list[datetime] = []
    t = start
    while t < start + span:
        t += timedelta(minutes=1)
        reads = [stored] * scheduler_count  # all read before any writes: the race
        for index, read in enumerate(reads):
            now = t + timedelta(seconds=(seed_offset * (index + 1)) % 59)
            due = due_slot(schedule, read, now)
            if due is not None and stored == read:  # compare-and-set on next_run_at
                stored = due.next_run_at
                claimed.append(due.slot)
    expected = [s for s in oracle_slots(schedule, start - lead(schedule), t) if s > start]
    # minute ticks see every slot (slots are at least a minute apart) and never one twice
    assert claimed == [s for s in expected if s <= t]


@settings(max_examples=200, deadline=None)
@given(cases(), st.integers(0, 24 * 40))
def test_an_outage_of_any_length_runs_one_slot(
    case: tuple[Schedule, datetime], hours_down: int
) -> None:
    schedule, down_at = case
    stored = next_run_at(schedule, down_at)
    now = stored + timedelta(hours=hours_down, minutes=17)
    due = due_slot(schedule, stored, now)
    assert due is not None
    assert stored <= due.slot <= now
    assert due.next_run_at > now
    assert next_run_at(schedule, due.slot) > now  # the latest missed slot, not an earlier one
    assert due_slot(schedule, due.next_run_at, now) is None
