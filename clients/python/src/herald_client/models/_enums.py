"""The closed sets of values requests may use (responses read them as plain strings, so a
newer server's new value never breaks an older client)."""

from __future__ import annotations

from typing import Literal

__all__ = [
    "BucketMinutes",
    "EntityKind",
    "LedgerStatus",
    "MediaType",
    "MonitorStatus",
    "ScheduleFrequency",
]

MediaType = Literal["news", "wire", "podcast"]
EntityKind = Literal["person", "company", "organization", "product", "place", "event"]
MonitorStatus = Literal["active", "disabled"]
LedgerStatus = Literal["running", "succeeded", "failed", "skipped"]
ScheduleFrequency = Literal["hourly", "daily"]
BucketMinutes = Literal[5, 15, 60, 1440]
