"""`herald sources poll ID --wait`: wait until the poll asked for has run, and say how it went."""

from __future__ import annotations

import time
from typing import Any

from rich.markup import escape

from herald.cli.common import console
from herald.ingest.polling import pending_poll
from herald.ingest.source_records import SourceView, find_source
from herald.runtime import Runtime


def wait_for_poll(runtime: Runtime, source_id: str, *, timeout: float, poll: float = 0.5) -> int:
    """Wait until no poll of the source is queued or running, then print its outcome; returns
    the exit code: 0 when it stored what the feed had, 1 when it failed or is not done within
    ``timeout`` seconds (no worker running?)."""
    deadline = time.monotonic() + timeout
    while True:
        with runtime.sessions.read() as session:
            pending = pending_poll(session, source_id)
            if pending is None:
                view = SourceView.of(find_source(session, source_id))
                break
        if time.monotonic() > deadline:
            console.print(
                f"[red]the poll of source {source_id} is still {pending} after {timeout:g} s[/]: "
                "is a `herald serve` or `herald worker` running?"
            )
            return 1
        time.sleep(poll)
    if view.last_error is not None:
        console.print(f"[red]poll of source {source_id} failed[/]: {escape(view.last_error)}")
        return 1
    console.print(f"poll of source {source_id}: {describe_report(view.last_report or {})}")
    return 0


def describe_report(report: dict[str, Any]) -> str:
    """A poll's report in one line: the items stored, and the rejected ones."""
    if report.get("http_status") == 304:
        return "the feed has not changed since the last poll (HTTP 304)"
    counts = ("accepted", "updated", "duplicates", "tombstoned", "rejected")
    said = ", ".join(f"{int(report.get(name) or 0)} {name}" for name in counts)
    errors = [f"{e.get('reason')}" for e in report.get("errors") or []]
    return said + "".join(f"\n  rejected: {escape(reason)}" for reason in errors)
