"""Several processes on one data directory: a write by another process (a concurrent
`herald ingest`) is visible to this one's next search, and a Tantivy writer lock held elsewhere
only delays the catch-up. Real subprocesses on the same HERALD_HOME / database."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from herald.runtime import Runtime
from herald.search.request import build_content_search
from herald.search.service import get_search
from tests.search.support import put_item

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)

# Another process renames an item (as re-ingestion does) and catches its own index up, holding
# the Tantivy writer for a moment as a long ingest batch would.
WRITER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from herald.config import Settings
    from herald.content.changes import mark_changed
    from herald.db.models.content import ContentItem
    from herald.runtime import Runtime
    from herald.search.service import get_search

    home, url, content_id, title, marker = sys.argv[1:6]
    runtime = Runtime(Settings(home=Path(home), database_url=url, embedding_model="herald-hashing"))
    search = get_search(runtime)
    with runtime.sessions.write() as session:
        row = session.get(ContentItem, content_id)
        row.title = title
        mark_changed(session, [content_id])
    if search.backend == "embedded":
        with search.index.lexical.writer():
            Path(marker).write_text("locked")
            time.sleep(1.5)
    else:
        Path(marker).write_text("written")
    with runtime.sessions.read() as session:
        search.catch_up(session)
    runtime.close()
    """
)


def titles(runtime: Runtime, query: str) -> list[str]:
    request = build_content_search(query=query, clock=runtime.clock)
    with runtime.sessions.read() as session:
        hits = get_search(runtime).search(session, request)
    from herald.content.repository import get_items

    with runtime.sessions.read() as session:
        items = get_items(session, [h.content_id for h in hits])
        return [items[h.content_id].title for h in hits]


def test_a_write_by_another_process_is_visible_at_once(
    search_runtime: Runtime, tmp_path: Path
) -> None:
    runtime = search_runtime
    content_id = put_item(
        runtime,
        "https://example.com/volcano",
        title="Volcano erupts near the coast",
        body="Lava and ash forced thousands to leave their homes near the volcano.",
        published_at=NOW - timedelta(days=1),
    )
    assert titles(runtime, "volcano eruption lava") == ["Volcano erupts near the coast"]
    marker = tmp_path / "marker"
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    writer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            WRITER,
            str(runtime.settings.home),
            runtime.settings.resolved_database_url,
            content_id,
            "Glacier collapse blocks mountain valley",
            str(marker),
        ],
        env=env,
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        while not marker.exists():
            assert writer.poll() is None, "the writer process failed"
            time.sleep(0.05)
        # The other process committed the change (and may still hold the Tantivy lock).
        assert titles(runtime, "glacier collapse valley") == [
            "Glacier collapse blocks mountain valley"
        ]
    finally:
        assert writer.wait(timeout=120) == 0
