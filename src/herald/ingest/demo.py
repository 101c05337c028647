"""The bundled demo corpus (``herald/data/demo/demo.jsonl.gz``), with dates rebased on load.

The corpus is real, freely licensed text from 2024-2026 (see the README beside it); the default
search window is the last 60 days. On load every collection (the first path component of
``external_id``: ``current-events``, ``practicalai``, ``changelog-news``) is moved so that its
newest item lands one day before now: a collection spanning at most ``WINDOW_DAYS`` keeps its
exact spacing (the portal's 55 days of spring 2025 stay 55 days), a longer one is compressed
linearly into that span, keeping its order.
"""

from __future__ import annotations

import dataclasses
import gzip
import time
from collections import defaultdict
from datetime import datetime, timedelta
from importlib import resources
from typing import TYPE_CHECKING

from herald.core.clock import Clock
from herald.ingest.model import IncomingItem, ItemError
from herald.ingest.pipeline import PIPELINE_JOB_KINDS, ingest_outcomes, wait_until_processed
from herald.ingest.sources.jsonl import parse_json_lines
from herald.jobs.queue import pending_count

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress

    from herald.runtime import Runtime

__all__ = [
    "PROGRESS_SECONDS",
    "WINDOW_DAYS",
    "JobProgress",
    "demo_corpus_bytes",
    "demo_corpus_size",
    "load_demo_corpus",
    "load_demo_items",
    "rebase_dates",
]

WINDOW_DAYS = 55
_LATEST_OFFSET = timedelta(days=1)


def demo_corpus_bytes() -> bytes:
    data = resources.files("herald").joinpath("data/demo/demo.jsonl.gz").read_bytes()
    return gzip.decompress(data)


def demo_corpus_size() -> int:
    """How many items the bundled corpus holds (one JSON object a line)."""
    return sum(1 for line in demo_corpus_bytes().splitlines() if line.strip())


def load_demo_items(clock: Clock) -> list[IncomingItem]:
    """Every demo item, with dates rebased relative to ``clock.now()``.

    The corpus is validated when it is built, so an error here is a packaging bug.
    """
    items: list[IncomingItem] = []
    for outcome in parse_json_lines(demo_corpus_bytes().splitlines()):
        if isinstance(outcome, ItemError):
            raise RuntimeError(f"bundled demo corpus is broken: {outcome}")
        if isinstance(outcome, IncomingItem):
            items.append(outcome)
    return rebase_dates(items, now=clock.now())


def load_demo_corpus(runtime: Runtime, *, wait: bool = True) -> int:
    """Store the demo corpus (rebased to recent dates), then enrich and index it, with progress
    on stderr: a progress bar in a terminal, otherwise (output sent to a file or a pipe) a line
    when the items are stored and one every ``PROGRESS_SECONDS`` while they are enriched, so
    that a log shows the load is alive. Returns the number of items stored. ``herald demo``
    (``make run``) calls it."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from herald.jobs.registry import lanes
    from herald.jobs.worker import Worker

    items = load_demo_items(runtime.clock)
    console = Console(stderr=True)
    plain = not console.is_terminal
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        console=console,
        disable=plain,
    ) as progress:
        task = progress.add_task("storing demo items", total=len(items))
        report = ingest_outcomes(
            runtime.sessions,
            items,
            clock=runtime.clock,
            on_progress=lambda n: progress.advance(task, n),
        )
        if plain:
            console.print(f"stored {len(items)} demo items; enriching and indexing them")
        if wait:
            worker = Worker(runtime)
            jobs = JobProgress(progress, console if plain else None)

            def work() -> int:
                done = sum(worker.drain(lane, max_jobs=64) for lane in lanes())
                with runtime.sessions.read() as session:
                    left = pending_count(session, kinds=PIPELINE_JOB_KINDS)
                jobs.update(done=done, left=left)
                return done

            wait_until_processed(runtime.sessions, work=work)
    return report.accepted + report.updated


PROGRESS_SECONDS = 15.0


class JobProgress:
    """Pipeline jobs done, out of those done and those left. Enriching an item queues its
    indexing and clustering jobs, so the total grows while the work goes on (a bar of items
    would run past its end, about two jobs per item). Without a terminal (``console`` given), a
    line every ``every_seconds`` says the same."""

    def __init__(
        self,
        progress: Progress,
        console: Console | None,
        *,
        every_seconds: float = PROGRESS_SECONDS,
    ) -> None:
        self._progress = progress
        self._task = progress.add_task("enriching and indexing (jobs)", total=None)
        self._console = console
        self._every = every_seconds
        self._done = 0
        self._last = time.monotonic()

    def update(self, *, done: int, left: int) -> None:
        self._done += done
        self._progress.update(self._task, completed=self._done, total=self._done + left)
        if self._console is not None and time.monotonic() - self._last >= self._every:
            self._last = time.monotonic()
            self._console.print(f"enriching and indexing: {self._done} jobs done, {left} left")


def rebase_dates(items: list[IncomingItem], *, now: datetime) -> list[IncomingItem]:
    groups: dict[str, list[int]] = defaultdict(list)
    for index, item in enumerate(items):
        groups[(item.external_id or "").split("/", 1)[0]].append(index)
    latest = (now - _LATEST_OFFSET).replace(microsecond=0)
    window = timedelta(days=WINDOW_DAYS)
    rebased = list(items)
    for indexes in groups.values():
        dates = [items[i].published_date for i in indexes]
        oldest, newest = min(dates), max(dates)
        span = newest - oldest
        scale = 1.0 if span <= window else window / span
        for i in indexes:
            moved = latest - (newest - items[i].published_date) * scale
            rebased[i] = dataclasses.replace(items[i], published_date=moved.replace(microsecond=0))
    return rebased
