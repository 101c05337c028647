"""The bundled demo corpus: valid, licensed, modest, and rebased into the default window."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from importlib import resources
from io import StringIO

import pytest
from rich.console import Console
from rich.progress import Progress
from sqlalchemy import func, select

from herald.core.clock import FrozenClock
from herald.db.models.content import ContentItem
from herald.ingest.demo import (
    WINDOW_DAYS,
    JobProgress,
    demo_corpus_bytes,
    demo_corpus_size,
    load_demo_corpus,
    load_demo_items,
    rebase_dates,
)
from herald.ingest.model import ItemError
from herald.ingest.sources.jsonl import parse_json_lines
from herald.runtime import Runtime

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def test_every_line_is_valid_and_the_corpus_is_modest() -> None:
    raw = resources.files("herald").joinpath("data/demo/demo.jsonl.gz").read_bytes()
    assert len(raw) < 3 * 1024 * 1024
    outcomes = list(parse_json_lines(demo_corpus_bytes().splitlines()))
    assert not [o for o in outcomes if isinstance(o, ItemError)]
    readme = resources.files("herald").joinpath("data/demo/README.md").read_text(encoding="utf-8")
    for needle in ("CC BY-SA 4.0", "Wikipedia contributors", "Changelog Media"):
        assert needle in readme


def test_all_media_types_with_real_speaker_turns() -> None:
    items = load_demo_items(FrozenClock(NOW))
    kinds = Counter(item.media_type for item in items)
    assert kinds["news"] > 800
    assert kinds["podcast"] == 30
    assert len({item.content_id for item in items}) == len(items)
    timed = [i for i in items if i.transcript_segments]
    assert len(timed) == 15
    for item in timed:
        starts = [s.start for s in item.transcript_segments]
        assert starts == sorted(starts)
        speakers = {s.speaker for s in item.transcript_segments}
        assert len(speakers) >= 2
        assert None not in speakers


def test_dates_are_rebased_into_the_default_window() -> None:
    items = load_demo_items(FrozenClock(NOW))
    dates = [item.published_date for item in items]
    assert max(dates) == NOW - timedelta(days=1)
    assert min(dates) >= NOW - timedelta(days=1 + WINDOW_DAYS)
    assert all(d.tzinfo is not None for d in dates)
    # The portal's 55 days of March and April 2025 keep their spacing (a pure shift).
    news = sorted(i.published_date for i in items if i.media_type == "news")
    assert news[-1] - news[0] == timedelta(days=54)


def test_rebasing_keeps_order_and_compresses_long_spans() -> None:
    items = load_demo_items(FrozenClock(NOW))
    again = rebase_dates(items, now=NOW + timedelta(days=10))
    assert [i.published_date - timedelta(days=10) for i in again] == [
        i.published_date for i in items
    ]
    # The podcasts span more than a year: compressed into the window, their order kept.
    shows = [i for i in items if (i.external_id or "").startswith("practicalai/")]
    span = max(i.published_date for i in shows) - min(i.published_date for i in shows)
    assert span <= timedelta(days=WINDOW_DAYS)
    by_date = sorted(shows, key=lambda i: i.published_date)
    numbers = [int((i.external_id or "").split("/")[1]) for i in by_date]
    assert numbers == sorted(numbers)


@pytest.mark.slow
def test_load_demo_corpus_stores_everything_once(
    runtime: Runtime, capsys: pytest.CaptureFixture[str]
) -> None:
    assert load_demo_corpus(runtime, wait=False) == 845
    # stderr is not a terminal here (as in `make run > log`): a plain line instead of a bar.
    assert "stored 845 demo items; enriching and indexing them" in capsys.readouterr().err
    with runtime.sessions.read() as session:
        count = session.execute(select(func.count()).select_from(ContentItem)).scalar_one()
        newest = session.execute(select(func.max(ContentItem.published_at))).scalar_one()
    assert count == 845
    assert newest == runtime.clock.now() - timedelta(days=1)
    assert load_demo_corpus(runtime, wait=False) == 0  # a second load changes nothing


def test_the_announced_size_is_the_corpus() -> None:
    assert demo_corpus_size() == len(load_demo_items(FrozenClock(NOW))) == 845


def test_job_progress_never_passes_its_total_and_reports_without_a_terminal() -> None:
    out = StringIO()
    with Progress(console=Console(file=out, width=200), disable=True) as bar:
        jobs = JobProgress(bar, Console(file=out, width=200), every_seconds=0)
        jobs.update(done=64, left=845)  # enriching queued more jobs than were done
        jobs.update(done=64, left=900)
        jobs.update(done=30, left=0)
        [task] = bar.tasks
        assert (task.completed, task.total) == (158, 158)
    assert out.getvalue().splitlines() == [
        "enriching and indexing: 64 jobs done, 845 left",
        "enriching and indexing: 128 jobs done, 900 left",
        "enriching and indexing: 158 jobs done, 0 left",
    ]
    quiet = StringIO()
    with Progress(console=Console(file=quiet), disable=True) as bar:
        JobProgress(bar, Console(file=quiet), every_seconds=3600).update(done=64, left=10)
        JobProgress(bar, None, every_seconds=0).update(done=1, left=0)  # a terminal: the bar only
    assert quiet.getvalue() == ""
