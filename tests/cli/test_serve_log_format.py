"""`herald serve` in a terminal (as under `make run`) logs text for the person reading it, unless
HERALD_LOG_FORMAT says otherwise; writing to a file or a pipe it logs JSON lines."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import time
from pathlib import Path

import pytest

from tests.serving import HERALD, free_port, migrated_light_home

pytestmark = pytest.mark.slow


def first_log_lines(env: dict[str, str], *, terminal: bool, log: Path) -> list[str]:
    """Start `herald serve`, with stderr a terminal or a file, until it says it is running."""
    env = env | {"HERALD_PORT": str(free_port())}
    if terminal:
        leader, follower = pty.openpty()
        process = subprocess.Popen([HERALD, "serve"], env=env, stdout=follower, stderr=follower)
        os.close(follower)
    else:
        with log.open("wb") as out:
            process = subprocess.Popen([HERALD, "serve"], env=env, stdout=out, stderr=out)
    seen = b""
    try:
        deadline = time.monotonic() + 90
        while b"running on http" not in seen.lower() and time.monotonic() < deadline:
            if terminal:
                ready, _, _ = select.select([leader], [], [], 0.5)
                if ready:
                    seen += os.read(leader, 65536)
            else:
                time.sleep(0.3)
                seen = log.read_bytes()
            assert process.poll() is None, seen.decode(errors="replace")
    finally:
        process.terminate()
        process.wait(timeout=30)
        if terminal:
            os.close(leader)
    lines = [line for line in seen.decode(errors="replace").splitlines() if line.strip()]
    assert any("running on http" in line.lower() for line in lines), lines
    return lines


def test_a_terminal_gets_text_and_a_file_gets_json(tmp_path: Path) -> None:
    env = migrated_light_home(tmp_path / "home")
    del env["HERALD_LOG_FORMAT"]  # unset, as in a checkout's `make run`
    on_terminal = first_log_lines(env, terminal=True, log=tmp_path / "unused.log")
    assert not [line for line in on_terminal if line.lstrip().startswith("{")], on_terminal
    in_file = first_log_lines(env, terminal=False, log=tmp_path / "serve.log")
    assert all(line.startswith("{") for line in in_file), in_file


def test_a_format_that_is_set_holds_in_a_terminal_too(tmp_path: Path) -> None:
    env = migrated_light_home(tmp_path / "home") | {"HERALD_LOG_FORMAT": "json"}
    on_terminal = first_log_lines(env, terminal=True, log=tmp_path / "unused.log")
    assert all(line.lstrip().startswith("{") for line in on_terminal), on_terminal
