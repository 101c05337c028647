"""What the backfill tests share: the fixtures' call types, dates, and a backfill request."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

from fastapi.testclient import TestClient

MonitorFactory = Callable[..., dict[str, Any]]
Content = Callable[..., str]
Drain = Callable[[], int]


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)  # type: ignore[misc]


def days_before(end: date, count: int) -> list[str]:
    return [(end - timedelta(days=i)).isoformat() for i in range(count)]


def backfill(
    client: TestClient, auth: dict[str, str], monitor_id: str, dates: list[str], **extra: Any
) -> Any:
    return client.post(
        f"/v1/monitors/{monitor_id}/backfills", json={"dates": dates, **extra}, headers=auth
    )
