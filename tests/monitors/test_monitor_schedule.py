"""Schedule arithmetic: named cases for every kind of offset and both DST transitions."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

import pytest

from herald.errors import InvalidRequest, InvalidTimezone
from herald.monitors.schedule import (
    Schedule,
    due_slot,
    local_to_instant,
    merge_schedule,
    next_run_at,
    parse_schedule,
    previous_slot,
    zone,
)

NOW = datetime(2026, 11, 25, 21, 7, 42, tzinfo=UTC)


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)  # type: ignore[misc]


def hourly(minute: int, tz: str = "UTC") -> Schedule:
    return Schedule("hourly", tz, minute=minute)


def daily(run_time: str, tz: str = "UTC") -> Schedule:
    hh, mm = run_time.split(":")
    return Schedule("daily", tz, run_time=time(int(hh), int(mm)))


def runs(schedule: Schedule, after: datetime, count: int) -> list[datetime]:
    out = []
    for _ in range(count):
        after = next_run_at(schedule, after)
        out.append(after)
    return out


# --- validation and defaults -------------------------------------------------------------


def test_default_schedule_is_hourly_utc_at_the_creation_minute() -> None:
    schedule = parse_schedule(None, now=NOW)
    assert schedule == hourly(7)
    assert schedule.to_json() == {"frequency": "hourly", "timezone": "UTC", "minute": 7}
    assert next_run_at(schedule, NOW) == utc(2026, 11, 25, 22, 7)


def test_default_minute_is_read_on_the_zone_wall_clock() -> None:
    # 21:07Z is 02:52 in Kathmandu (+05:45): minute 52 local is minute 7 UTC, i.e. every hour at
    # the moment the monitor was created.
    schedule = parse_schedule({"timezone": "Asia/Kathmandu"}, now=NOW)
    assert schedule.minute == 52
    assert next_run_at(schedule, NOW) == utc(2026, 11, 25, 22, 7)


def test_default_daily_run_time_is_the_creation_time_in_the_zone() -> None:
    schedule = parse_schedule({"frequency": "daily", "timezone": "Asia/Kolkata"}, now=NOW)
    assert schedule.to_json() == {
        "frequency": "daily",
        "timezone": "Asia/Kolkata",
        "run_time": "02:37",
    }
    assert next_run_at(schedule, NOW) == utc(2026, 11, 26, 21, 7)


@pytest.mark.parametrize("name", ["Mars/Olympus", "utc", "localtime", "", "EST+5", "../etc/passwd"])
def test_unknown_timezone_is_invalid_timezone(name: str) -> None:
    with pytest.raises(InvalidTimezone) as err:
        parse_schedule({"timezone": name}, now=NOW)
    assert err.value.code == "invalid_timezone"
    assert err.value.details[0].field == "schedule.timezone"


def test_minute_with_daily_is_rejected_with_a_field_detail() -> None:
    with pytest.raises(InvalidRequest) as err:
        parse_schedule({"frequency": "daily", "minute": 5}, now=NOW)
    assert err.value.code == "invalid_request"
    assert [d.field for d in err.value.details] == ["schedule.minute"]


def test_run_time_with_hourly_is_rejected_with_a_field_detail() -> None:
    with pytest.raises(InvalidRequest) as err:
        parse_schedule({"frequency": "hourly", "run_time": "09:00"}, now=NOW)
    assert [d.field for d in err.value.details] == ["schedule.run_time"]
    # hourly is the default frequency, so run_time alone is the same mistake
    with pytest.raises(InvalidRequest):
        parse_schedule({"run_time": "09:00"}, now=NOW)


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ({"minute": 60}, "schedule.minute"),
        ({"minute": -1}, "schedule.minute"),
        ({"minute": True}, "schedule.minute"),
        ({"minute": "5"}, "schedule.minute"),
        ({"minute": 5.0}, "schedule.minute"),
        ({"frequency": "daily", "run_time": "24:00"}, "schedule.run_time"),
        ({"frequency": "daily", "run_time": "9:00"}, "schedule.run_time"),
        ({"frequency": "daily", "run_time": "09:60"}, "schedule.run_time"),
        ({"frequency": "daily", "run_time": "09:00:00"}, "schedule.run_time"),
        ({"frequency": "daily", "run_time": 900}, "schedule.run_time"),
        ({"frequency": "weekly"}, "schedule.frequency"),
        ({"timezone": 5}, "schedule.timezone"),
        ({"every": "hour"}, "schedule.every"),
    ],
)
def test_malformed_schedule_fields_are_invalid_request(raw: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidRequest) as err:
        parse_schedule(raw, now=NOW)
    assert err.value.details[0].field == field


def test_null_fields_count_as_absent() -> None:
    schedule = parse_schedule({"frequency": "daily", "minute": None, "run_time": "06:00"}, now=NOW)
    assert schedule == daily("06:00")


def test_patch_keeps_omitted_fields_and_rejects_the_other_frequency_field() -> None:
    current = daily("06:15", "Europe/Paris")
    assert merge_schedule(current, {"timezone": "Asia/Tokyo"}, now=NOW) == daily(
        "06:15", "Asia/Tokyo"
    )
    assert merge_schedule(current, {"run_time": "07:00"}, now=NOW) == daily("07:00", "Europe/Paris")
    # switching frequency drops run_time; the minute defaults from "now" on the zone's clock
    assert merge_schedule(current, {"frequency": "hourly"}, now=NOW) == hourly(7, "Europe/Paris")
    assert merge_schedule(current, {"frequency": "hourly", "minute": 0}, now=NOW) == hourly(
        0, "Europe/Paris"
    )
    with pytest.raises(InvalidRequest):
        merge_schedule(current, {"minute": 5}, now=NOW)
    with pytest.raises(InvalidRequest):
        merge_schedule(hourly(5), {"run_time": "05:00"}, now=NOW)
    with pytest.raises(InvalidTimezone):
        merge_schedule(current, {"timezone": "Nowhere/Special"}, now=NOW)


def test_schedule_rejects_inconsistent_construction() -> None:
    with pytest.raises(ValueError, match="hourly"):
        Schedule("hourly", "UTC", minute=None)
    with pytest.raises(ValueError, match="daily"):
        Schedule("daily", "UTC", minute=3, run_time=time(3))
    with pytest.raises(ValueError, match="aware"):
        next_run_at(hourly(0), datetime(2026, 1, 1))


# --- offsets ------------------------------------------------------------------------------


def test_kolkata_plus_0530() -> None:
    # 10:00Z is 15:30 IST; hourly at :00 local is at :30 UTC
    assert runs(hourly(0, "Asia/Kolkata"), utc(2026, 1, 15, 10, 0), 2) == [
        utc(2026, 1, 15, 10, 30),
        utc(2026, 1, 15, 11, 30),
    ]
    assert next_run_at(daily("09:00", "Asia/Kolkata"), utc(2026, 1, 15, 10, 0)) == utc(
        2026, 1, 16, 3, 30
    )


def test_kathmandu_plus_0545() -> None:
    # 10:00Z is 15:45 NPT; hourly at :15 local is at :30 UTC
    assert runs(hourly(15, "Asia/Kathmandu"), utc(2026, 1, 15, 10, 0), 2) == [
        utc(2026, 1, 15, 10, 30),
        utc(2026, 1, 15, 11, 30),
    ]
    # local midnight is 18:15Z on the previous UTC day
    assert next_run_at(daily("00:00", "Asia/Kathmandu"), utc(2026, 1, 15, 10, 0)) == utc(
        2026, 1, 15, 18, 15
    )


@pytest.mark.parametrize(
    ("tz", "after", "run_time", "expected"),
    [
        # whole-hour negative offset
        ("America/Los_Angeles", utc(2026, 1, 15, 12, 0), "09:00", utc(2026, 1, 15, 17, 0)),
        # negative non-hour offset, -03:30 in winter
        ("America/St_Johns", utc(2026, 1, 15, 12, 0), "09:00", utc(2026, 1, 15, 12, 30)),
        # -09:30, no DST
        ("Pacific/Marquesas", utc(2026, 1, 15, 12, 0), "09:00", utc(2026, 1, 15, 18, 30)),
        # +08:45, no DST
        ("Australia/Eucla", utc(2026, 1, 15, 12, 0), "09:00", utc(2026, 1, 16, 0, 15)),
        # +13:45 in the southern summer: the local day is ahead of the UTC day
        ("Pacific/Chatham", utc(2026, 1, 15, 12, 0), "09:00", utc(2026, 1, 15, 19, 15)),
        # +14:00: the first local day of the year
        ("Pacific/Kiritimati", utc(2026, 1, 15, 12, 0), "09:00", utc(2026, 1, 15, 19, 0)),
        # -11:00
        ("Pacific/Pago_Pago", utc(2026, 1, 15, 12, 0), "09:00", utc(2026, 1, 15, 20, 0)),
    ],
)
def test_daily_in_every_offset_kind(
    tz: str, after: datetime, run_time: str, expected: datetime
) -> None:
    got = next_run_at(daily(run_time, tz), after)
    assert got == expected
    assert got.astimezone(zone(tz)).strftime("%H:%M") == run_time


def test_st_johns_hourly_in_summer_minus_0230() -> None:
    assert runs(hourly(0, "America/St_Johns"), utc(2026, 7, 1, 12, 0), 2) == [
        utc(2026, 7, 1, 12, 30),
        utc(2026, 7, 1, 13, 30),
    ]


def test_lord_howe_half_hour_dst_gap() -> None:
    # Australia/Lord_Howe moves from +10:30 to +11:00 at 02:00 local on 2026-10-04: 02:00-02:29
    # does not exist. Daily 02:15 runs at the jump, 02:30 local (15:30Z).
    got = next_run_at(daily("02:15", "Australia/Lord_Howe"), utc(2026, 10, 3, 12, 0))
    assert got == utc(2026, 10, 3, 15, 30)
    assert got.astimezone(zone("Australia/Lord_Howe")).strftime("%H:%M") == "02:30"


# --- DST in America/New_York: spring forward 2026-03-08 02:00 EST -> 03:00 EDT (07:00Z) ---------


def test_new_york_spring_forward_hourly_minute_0_jump_and_3am_share_one_slot() -> None:
    assert runs(hourly(0, "America/New_York"), utc(2026, 3, 8, 5, 30), 4) == [
        utc(2026, 3, 8, 6, 0),  # 01:00 EST
        utc(2026, 3, 8, 7, 0),  # 02:00 does not exist -> 03:00 EDT; 03:00 is the same instant
        utc(2026, 3, 8, 8, 0),  # 04:00 EDT
        utc(2026, 3, 8, 9, 0),
    ]


def test_new_york_spring_forward_hourly_minute_30() -> None:
    assert runs(hourly(30, "America/New_York"), utc(2026, 3, 8, 6, 0), 3) == [
        utc(2026, 3, 8, 6, 30),  # 01:30 EST
        utc(2026, 3, 8, 7, 0),  # 02:30 does not exist -> the first instant after it, 03:00 EDT
        utc(2026, 3, 8, 7, 30),  # 03:30 EDT
    ]


def test_new_york_daily_run_time_in_the_gap() -> None:
    schedule = daily("02:30", "America/New_York")
    assert runs(schedule, utc(2026, 3, 7, 8, 0), 3) == [
        utc(2026, 3, 8, 7, 0),  # 03:00 EDT, the jump
        utc(2026, 3, 9, 6, 30),  # 02:30 EDT
        utc(2026, 3, 10, 6, 30),
    ]


# --- America/New_York fall back 2026-11-01 02:00 EDT -> 01:00 EST (06:00Z) ----------------


def test_new_york_fall_back_hourly_runs_the_repeated_hour_once() -> None:
    assert runs(hourly(30, "America/New_York"), utc(2026, 11, 1, 4, 0), 4) == [
        utc(2026, 11, 1, 4, 30),  # 00:30 EDT
        utc(2026, 11, 1, 5, 30),  # 01:30 EDT, first occurrence
        # 01:30 EST (06:30Z) is the second occurrence: not run
        utc(2026, 11, 1, 7, 30),  # 02:30 EST
        utc(2026, 11, 1, 8, 30),
    ]


def test_new_york_daily_run_time_in_the_overlap_runs_once_at_first_occurrence() -> None:
    schedule = daily("01:30", "America/New_York")
    assert runs(schedule, utc(2026, 10, 31, 12, 0), 2) == [
        utc(2026, 11, 1, 5, 30),  # 01:30 EDT
        utc(2026, 11, 2, 6, 30),  # 01:30 EST the next day; never 06:30Z on the 1st
    ]
    # asked from inside the second occurrence, the next run is tomorrow
    assert next_run_at(schedule, utc(2026, 11, 1, 6, 0)) == utc(2026, 11, 2, 6, 30)


# --- Europe/London: 2026-03-29 01:00 GMT -> 02:00 BST; 2026-10-25 02:00 BST -> 01:00 GMT -----


def test_london_spring_forward() -> None:
    assert runs(hourly(0, "Europe/London"), utc(2026, 3, 28, 23, 30), 3) == [
        utc(2026, 3, 29, 0, 0),  # 00:00 GMT
        utc(2026, 3, 29, 1, 0),  # 01:00 does not exist -> 02:00 BST; same instant as 02:00
        utc(2026, 3, 29, 2, 0),  # 03:00 BST
    ]
    assert next_run_at(daily("01:30", "Europe/London"), utc(2026, 3, 28, 12, 0)) == utc(
        2026, 3, 29, 1, 0
    )


def test_london_fall_back() -> None:
    assert runs(hourly(15, "Europe/London"), utc(2026, 10, 24, 23, 30), 3) == [
        utc(2026, 10, 25, 0, 15),  # 01:15 BST, first occurrence
        # 01:15 GMT (01:15Z) is the second occurrence: not run
        utc(2026, 10, 25, 2, 15),  # 02:15 GMT
        utc(2026, 10, 25, 3, 15),
    ]
    assert runs(daily("01:30", "Europe/London"), utc(2026, 10, 24, 12, 0), 2) == [
        utc(2026, 10, 25, 0, 30),  # 01:30 BST
        utc(2026, 10, 26, 1, 30),  # 01:30 GMT
    ]


# --- hourly minute 0 and 59 --------------------------------------------------------------


def test_hourly_minute_0_and_59() -> None:
    assert runs(hourly(0), utc(2026, 1, 1, 23, 59, 59), 2) == [utc(2026, 1, 2), utc(2026, 1, 2, 1)]
    assert runs(hourly(59), utc(2026, 1, 1, 23, 59), 2) == [
        utc(2026, 1, 2, 0, 59),
        utc(2026, 1, 2, 1, 59),
    ]
    assert next_run_at(hourly(59), utc(2026, 1, 1, 23, 58, 59, 999999)) == utc(2026, 1, 1, 23, 59)


def test_next_run_is_strictly_after_a_slot_instant() -> None:
    assert next_run_at(hourly(7), utc(2026, 1, 1, 10, 7)) == utc(2026, 1, 1, 11, 7)


# --- gaps and overlaps at the instant level -------------------------------------------------


def test_local_to_instant_gap_and_overlap() -> None:
    ny = zone("America/New_York")
    assert local_to_instant(datetime(2026, 3, 8, 2, 30), ny) == utc(2026, 3, 8, 7, 0)
    assert local_to_instant(datetime(2026, 11, 1, 1, 30), ny) == utc(2026, 11, 1, 5, 30)
    # Pacific/Apia skipped 2011-12-30 entirely: any time that day runs at the jump
    apia = zone("Pacific/Apia")
    assert local_to_instant(datetime(2011, 12, 30, 9, 0), apia) == utc(2011, 12, 30, 10, 0)


# --- slots, missed runs and claims ------------------------------------------------------------


def test_previous_slot() -> None:
    schedule = hourly(30, "America/New_York")
    assert previous_slot(schedule, utc(2026, 11, 1, 6, 20)) == utc(2026, 11, 1, 5, 30)
    assert previous_slot(schedule, utc(2026, 11, 1, 7, 30)) == utc(2026, 11, 1, 7, 30)
    assert previous_slot(schedule, utc(2026, 3, 8, 7, 10)) == utc(2026, 3, 8, 7, 0)


def test_nothing_due_before_next_run_at() -> None:
    assert due_slot(hourly(7), utc(2026, 1, 1, 10, 7), utc(2026, 1, 1, 10, 6, 59)) is None


def test_slot_due_on_time() -> None:
    due = due_slot(hourly(7), utc(2026, 1, 1, 10, 7), utc(2026, 1, 1, 10, 7, 3))
    assert due is not None
    assert (due.slot, due.next_run_at) == (utc(2026, 1, 1, 10, 7), utc(2026, 1, 1, 11, 7))


def test_a_long_outage_runs_once_at_the_latest_missed_slot() -> None:
    # down from 10:07 to 19:40: nine slots passed; one run (for 19:07), next at 20:07
    due = due_slot(hourly(7), utc(2026, 1, 1, 10, 7), utc(2026, 1, 1, 19, 40))
    assert due is not None
    assert (due.slot, due.next_run_at) == (utc(2026, 1, 1, 19, 7), utc(2026, 1, 1, 20, 7))
    # claimed: the stored value moved past now, nothing more is due
    assert due_slot(hourly(7), due.next_run_at, utc(2026, 1, 1, 19, 40)) is None


def test_daily_missed_for_days_runs_once() -> None:
    schedule = daily("06:00", "Europe/Paris")
    due = due_slot(schedule, utc(2026, 6, 1, 4, 0), utc(2026, 6, 5, 12, 0))
    assert due is not None
    assert due.slot == utc(2026, 6, 5, 4, 0)
    assert due.next_run_at == utc(2026, 6, 6, 4, 0)


def test_two_schedulers_claim_a_slot_once_by_compare_and_set() -> None:
    schedule = hourly(0, "Asia/Kathmandu")
    stored = next_run_at(schedule, utc(2026, 1, 1))
    claimed = []
    for now in (stored, stored + timedelta(seconds=1), stored + timedelta(seconds=2)):
        # both schedulers read the row before either writes
        seen = [stored, stored]
        for read in seen:
            due = due_slot(schedule, read, now)
            if due is not None and stored == read:  # the compare-and-set
                stored = due.next_run_at
                claimed.append(due.slot)
    assert claimed == [utc(2026, 1, 1, 0, 15)]
