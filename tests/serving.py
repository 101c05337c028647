"""A real `herald serve` process on a loopback port, for the tests that drive Herald from outside
(the HTTP client, the MCP client, the browser)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

HERALD = str(Path(sys.executable).with_name("herald"))


def migrated_light_home(home: Path) -> dict[str, str]:
    """The environment of Herald processes on a new, migrated SQLite home that start fast (the
    hashing embedder, no knowledge-base seed; JSON logs)."""
    from herald.db.migrate import upgrade

    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERALD_")}
    env |= {
        "HERALD_HOME": str(home),
        "HERALD_DATABASE_URL": f"sqlite:///{home / 'herald.db'}",
        "HERALD_EMBEDDING_MODEL": "herald-hashing",
        "HERALD_ENTITY_SEED": "none",
        "HERALD_LOG_FORMAT": "json",
    }
    upgrade(env["HERALD_DATABASE_URL"])
    return env


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def herald_serve(
    args: Sequence[str], *, env: Mapping[str, str], log_path: Path, timeout: float = 90
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """Start `herald serve --host 127.0.0.1 --port P ARGS...`, wait until `/healthz` answers,
    yield its base URL and process; stop it (SIGTERM, then SIGKILL after 20 s) on the way out.
    Its output goes to ``log_path``, shown when it exits early."""
    port = free_port()
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [HERALD, "serve", "--host", "127.0.0.1", "--port", str(port), *args],
            env=dict(env),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    base_url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if process.poll() is not None:
                pytest.fail(f"herald serve exited: {log_path.read_text()}")
            try:
                if httpx.get(f"{base_url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"herald serve did not answer /healthz within {timeout:.0f} s")
            time.sleep(0.2)
        yield base_url, process
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


@contextmanager
def uvicorn_thread(app: Any) -> Iterator[str]:
    """Serve the ASGI ``app`` with uvicorn on a free loopback port in a thread (the app's runtime
    is the test's: both databases); yield its base URL, stop the server on the way out."""
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_config=None, lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=20)
