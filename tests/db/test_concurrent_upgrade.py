"""Several `herald db upgrade` started at once on one PostgreSQL database (two machines
deploying together, or a retried deploy step): each ends with the database at the latest
schema, none fails half-way on a table or revision another one just created."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import create_engine

from herald.db.migrate import head_revisions, is_up_to_date

PROCESSES = 3
UPGRADE = "from herald.cli.main import app; app(['db', 'upgrade'])"


def test_concurrent_upgrades_all_succeed(
    new_pg_database: Callable[[], str], tmp_path: Path
) -> None:
    url = new_pg_database()
    runs = []
    for number in range(PROCESSES):
        env = {
            **os.environ,
            "HERALD_HOME": str(tmp_path / f"home{number}"),
            "HERALD_DATABASE_URL": url,
            "HERALD_EMBEDDING_MODEL": "herald-hashing",
        }
        runs.append(
            subprocess.Popen(
                [sys.executable, "-c", UPGRADE],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
        )
    outputs = [run.communicate(timeout=180)[0] for run in runs]
    failed = [output[-2000:] for run, output in zip(runs, outputs, strict=True) if run.returncode]
    assert failed == []
    assert all("database at the latest schema" in output for output in outputs)
    engine = create_engine(url)
    try:
        assert head_revisions(url)
        assert is_up_to_date(engine, url)
    finally:
        engine.dispose()
