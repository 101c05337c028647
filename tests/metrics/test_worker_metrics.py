"""Real processes: `herald worker --metrics-port` serves its job metrics and memory (workers serve
no API), and `herald serve --worker-processes 2` reports its child's jobs in its own /metrics."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text

from herald.config import Settings
from herald.enrich.queueing import queue_enrichment
from herald.runtime import Runtime
from tests.metrics.scrape import names, total, value
from tests.serving import HERALD, free_port, herald_serve, migrated_light_home

pytestmark = pytest.mark.slow

ITEMS = 8


def _wait_for(check: Callable[[], bool], what: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.3)


def _get(url: str, **headers: str) -> httpx.Response | None:
    try:
        return httpx.get(url, headers=headers, timeout=10)
    except httpx.TransportError:
        return None


@pytest.fixture
def queued(tmp_path: Path) -> dict[str, str]:
    """A SQLite home with ITEMS items ingested and their enrichment jobs queued."""
    home = tmp_path / "home"
    env = migrated_light_home(home)
    day = (datetime.now(UTC) - timedelta(days=1)).date().isoformat()
    lines = [
        {
            "url": f"https://example.com/story-{n}",
            "title": f"Story number {n} about harbour cranes",
            "body": f"Dock workers in port {n} tested new harbour cranes on Monday. " * 5,
            "media_type": "news",
            "published_date": day,
            "source": {"name": "Example", "domain": "example.com"},
        }
        for n in range(ITEMS)
    ]
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(line) + "\n" for line in lines))
    subprocess.run([HERALD, "ingest", str(items)], env=env, check=True, capture_output=True)
    # `herald ingest` enriched them; queue their enrichment again, for a worker to run.
    runtime = Runtime(Settings(home=home, database_url=env["HERALD_DATABASE_URL"]))
    try:
        with runtime.sessions.write() as session:
            ids = list(session.execute(text("SELECT id FROM content_items")).scalars())
            assert queue_enrichment(session, ids, clock=runtime.clock) == ITEMS
    finally:
        runtime.close()
    return env


@pytest.fixture
def started() -> Iterator[list[subprocess.Popen[bytes]]]:
    processes: list[subprocess.Popen[bytes]] = []
    yield processes
    for process in processes:
        process.send_signal(signal.SIGTERM)
    for process in processes:
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()


def _enriched(text: str) -> float:
    return total(text, "herald_jobs_total", kind="enrich.item", outcome="succeeded")


def test_a_worker_serves_its_metrics_on_its_own_port(
    queued: dict[str, str], started: list[subprocess.Popen[bytes]], tmp_path: Path
) -> None:
    port = free_port()
    env = queued | {"HERALD_METRICS_TOKEN": "s3cret"}
    with (tmp_path / "worker.log").open("wb") as log:
        started.append(
            subprocess.Popen(
                [HERALD, "worker", "--metrics-port", str(port)], env=env, stdout=log, stderr=log
            )
        )
    url = f"http://127.0.0.1:{port}"
    bearer = {"authorization": "Bearer s3cret"}

    def scraped() -> str:
        answer = _get(f"{url}/metrics", **bearer)
        return answer.text if answer is not None and answer.status_code == 200 else ""

    _wait_for(lambda: _enriched(scraped()) == ITEMS, "the worker's enrichment jobs")
    text = scraped()
    assert total(text, "herald_job_seconds_count", kind="enrich.item", outcome="succeeded") > 0
    assert (value(text, "process_resident_memory_bytes") or 0) > 0
    assert "herald_queue_jobs" not in names(text)

    refused = _get(f"{url}/metrics")
    assert refused is not None
    assert refused.status_code == 401
    shared = _get(f"{url}/metrics/shared", **bearer)
    assert shared is not None
    assert shared.status_code == 200
    assert total(shared.text, "herald_queue_jobs", kind="enrich.item") == 0
    assert (value(shared.text, "herald_database_size_bytes") or 0) > 0
    missing = _get(f"{url}/elsewhere", **bearer)
    assert missing is not None
    assert missing.status_code == 404


def test_serve_reports_the_jobs_of_its_worker_children(
    queued: dict[str, str], tmp_path: Path
) -> None:
    # A worker metrics port in the environment must not be taken by the children.
    env = queued | {"HERALD_WORKER_METRICS_PORT": str(free_port())}
    log = tmp_path / "serve.log"
    with herald_serve(["--worker-processes", "2"], env=env, log_path=log) as (base_url, _):

        def scraped() -> str:
            answer = _get(f"{base_url}/metrics")
            return answer.text if answer is not None and answer.status_code == 200 else ""

        # Every job is counted once, whichever process ran it.
        _wait_for(lambda: _enriched(scraped()) == ITEMS, "every job in the server's metrics")
        text = scraped()
    assert (value(text, "herald_worker_child_resident_memory_bytes", child="1") or 0) > 0
    assert text.count("# TYPE herald_jobs_total counter") == 1
    assert "cannot serve metrics" not in log.read_text(errors="replace")
