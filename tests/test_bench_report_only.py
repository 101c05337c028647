"""Report-only evaluation sets show figures, never errors: ECB+'s test topics and WCEP. The
scripts are run as their docs say, in a real subprocess, on a folder that has the dataset's
files (empty: the refusal comes before anything is read)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"


def _run(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BENCH / script), *args], capture_output=True, text=True
    )


@pytest.fixture
def ecbplus(tmp_path: Path) -> Path:
    for name in ("docs.jsonl", "ECBplus_xml.tar.gz", "ECBplus_coreference_sentences.csv"):
        (tmp_path / name).write_text("")
    return tmp_path


@pytest.mark.parametrize(
    "args",
    [
        ["--show-errors", "5"],
        ["--dump-errors", "errors.jsonl"],
        ["--split", "test", "--show-errors", "1"],
        ["--split", "all", "--dump-errors", "errors.jsonl"],
    ],
)
def test_ecbplus_test_topics_show_no_errors(ecbplus: Path, args: list[str]) -> None:
    run = _run("entities_ecbplus_eval.py", "--data", str(ecbplus), *args)
    assert run.returncode == 2
    assert run.stdout == ""
    assert "the test topics are report-only; their errors are not shown" in run.stderr
    assert not (ecbplus / "errors.jsonl").exists()


def test_ecbplus_dev_errors_are_allowed_past_the_check(ecbplus: Path) -> None:
    """Asking for dev errors passes the refusal (and then reads the empty folder)."""
    run = _run(
        "entities_ecbplus_eval.py", "--data", str(ecbplus), "--split", "dev", "--show-errors", "1"
    )
    assert "report-only" not in run.stderr


def test_wcep_shows_no_errors(tmp_path: Path) -> None:
    (tmp_path / "wikitimes_CEP_2015-09.json").write_text("[]")
    run = _run("entities_wcep_eval.py", "--data", str(tmp_path), "--show-errors", "3")
    assert run.returncode == 2
    assert run.stdout == ""
    assert "--show-errors: WCEP is report-only" in run.stderr
