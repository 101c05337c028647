from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from herald.core.clock import FrozenClock, isoformat_z
from herald.core.ids import new_id, stable_id


def test_ids_are_prefixed_and_url_safe() -> None:
    value = new_id("mon")
    assert re.fullmatch(r"mon_[0-9a-z]{20}", value)
    assert new_id("mon") != value


def test_stable_ids_are_deterministic_and_distinct() -> None:
    assert stable_id("cnt", "https://example.com/a") == stable_id("cnt", "https://example.com/a")
    assert stable_id("cnt", "https://example.com/a") != stable_id("cnt", "https://example.com/b")


def test_unknown_prefix_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="unknown id prefix"):
        new_id("xyz")


def test_frozen_clock_moves_only_when_told() -> None:
    clock = FrozenClock(datetime(2026, 1, 1, tzinfo=UTC))
    assert clock.now() == clock.now()
    clock.sleep(90)
    assert clock.now() == datetime(2026, 1, 1, 0, 1, 30, tzinfo=UTC)
    clock.advance(timedelta(hours=1))
    assert clock.monotonic() == 90 + 3600


def test_timestamps_render_in_utc_with_z() -> None:
    assert isoformat_z(datetime(2026, 11, 25, 21, 0, tzinfo=UTC)) == "2026-11-25T21:00:00Z"
    assert isoformat_z(datetime(2026, 11, 25, 21, 0, 0, 123456, tzinfo=UTC)) == (
        "2026-11-25T21:00:00.123Z"
    )
