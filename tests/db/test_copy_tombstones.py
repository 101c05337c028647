"""`herald db copy` keeps an operator's deletions in force: an item deleted before the copy is
still refused by ingestion on the target (SQLite -> PostgreSQL -> SQLite)."""

from __future__ import annotations

import json
from pathlib import Path

from herald.config import Settings
from herald.content.deletion import ContentSelector, delete_content
from herald.core.clock import FrozenClock
from herald.db.copy import copy_database
from herald.db.migrate import upgrade
from herald.ingest.pipeline import ingest_outcomes
from herald.ingest.service import IngestReport
from herald.ingest.sources import Document, JsonLinesAdapter
from herald.runtime import Runtime
from tests.conftest import START

LINES = [
    {
        "url": f"https://news.example.com/{slug}",
        "media_type": "news",
        "title": title,
        "body": f"{title}. Reporters followed the story through the afternoon.",
        "published_date": "2026-11-24T08:00:00Z",
        "source": {"name": "Example", "domain": "news.example.com"},
    }
    for slug, title in [("kept", "Harbour reopens"), ("taken-down", "Defamatory claim")]
]


def _runtime(home: Path, url: str) -> Runtime:
    settings = Settings(home=home, database_url=url, log_format="text", rate_limit_per_minute=0)
    return Runtime(settings, clock=FrozenClock(START))


def _ingest(runtime: Runtime) -> IngestReport:
    content = "\n".join(json.dumps(line) for line in LINES).encode()
    outcomes = JsonLinesAdapter().parse(Document(content=content, origin="test"))
    return ingest_outcomes(runtime.sessions, outcomes, clock=runtime.clock)


def test_a_deletion_is_in_force_after_copies_both_ways(pg_url: str, tmp_path: Path) -> None:
    source = f"sqlite:///{tmp_path / 'source' / 'herald.db'}"
    upgrade(source)
    runtime = _runtime(tmp_path / "source", source)
    try:
        assert _ingest(runtime).accepted == 2
        deleted = delete_content(
            runtime.sessions,
            ContentSelector(urls=("https://news.example.com/taken-down",)),
            actor="test",
            clock=runtime.clock,
        )
        assert deleted.deleted == 1
    finally:
        runtime.close()

    back = f"sqlite:///{tmp_path / 'back' / 'herald.db'}"
    copy_database(source, pg_url)
    copy_database(pg_url, back)
    for home, url in [(tmp_path / "pg", pg_url), (tmp_path / "back", back)]:
        target = _runtime(home, url)
        try:
            again = _ingest(target)  # the feed still lists the deleted item
            assert (again.accepted, again.duplicates, again.tombstoned) == (0, 1, 1), url
        finally:
            target.close()
