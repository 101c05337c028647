"""What the quickstart tests share: the page's marked blocks, the recipe of ``make run``, the
processes a user starts (and how they are stopped and waited for), the user's Python session and
the user's own RSS feed."""

from __future__ import annotations

import code
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import IO, Any

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "quickstart.md"
VENV_BIN = Path(sys.executable).parent
HERALD = str(VENV_BIN / "herald")
SMALL_SEED = ROOT / "tests" / "client" / "data" / "entities-seed.jsonl"
BLOCK = re.compile(r"<!-- quickstart: ([\w-]+) -->\n```(\w+)\n(.*?)```", re.S)


def doc_blocks() -> dict[str, str]:
    text = DOC.read_text()
    found = {m.group(1): m.group(3) for m in BLOCK.finditer(text)}
    assert len(found) == text.count("<!-- quickstart:"), "a quickstart marker is malformed"
    return found


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def in_venv(shell: str) -> str:
    """The page's commands name `.venv/bin/...` of the checkout: this test's virtualenv."""
    return shell.replace(".venv/bin/", f"{VENV_BIN}/")


class Lines:
    """A process's output, line by line, readable with a timeout."""

    def __init__(self, stream: IO[str]) -> None:
        self._queue: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream: IO[str]) -> None:
        for line in stream:
            self._queue.put(line.rstrip("\n"))

    def wait_for(self, predicate: Any, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self._queue.get(timeout=left)
            except queue.Empty:
                break
            self.seen.append(line)
            if predicate(line):
                return line
        raise AssertionError(f"no such line within {timeout} s; saw {self.seen}")


def stop(process: subprocess.Popen[Any]) -> None:
    """Stop a process this test started, and its children (it leads its own session)."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def wait_until_up(base_url: str, process: subprocess.Popen[Any], log: Path) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"herald serve exited:\n{log.read_text()}")
        try:
            if httpx.get(f"{base_url}/healthz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    pytest.fail(f"herald serve did not answer within 90 s:\n{log.read_text()}")


class Interpreter(code.InteractiveConsole):
    """``python`` at its prompt: each line is read as typed, and what it reports on stderr
    (a syntax error, a traceback) is kept."""

    def __init__(self) -> None:
        super().__init__({"__name__": "__main__"}, filename="<stdin>")
        self.reported: list[str] = []

    def write(self, data: str) -> None:
        self.reported.append(data)

    def paste(self, block: str) -> str:
        """Type a block line by line, then an empty line (Enter at the last prompt); returns
        what the interpreter reported (empty when every statement ran)."""
        del self.reported[:]
        for line in [*block.rstrip("\n").split("\n"), ""]:
            self.push(line)
        return "".join(self.reported)


FEED_TITLES = [
    "Harbour festival draws record crowds to the waterfront",
    "City council approves new harbour ferry timetable",
    "Storm closes the harbour for the second time this winter",
]


class FeedHandler(BaseHTTPRequestHandler):
    """The user's own site: an RSS feed of three stories, and their pages."""

    def do_GET(self) -> None:
        host = f"http://{self.headers['Host']}"
        if self.path == "/feed.xml":
            entries = "".join(
                f"<item><title>{title}</title><link>{host}/news/{n}</link>"
                f"<guid>{host}/news/{n}</guid><pubDate>{time.strftime('%a, %d %b %Y')} "
                f"0{n}:00:00 GMT</pubDate><description>{title}. The local paper reports it in "
                "full, with what residents and the port authority said.</description></item>"
                for n, title in enumerate(FEED_TITLES, start=1)
            )
            body = (
                '<?xml version="1.0"?><rss version="2.0"><channel><title>Harbour Gazette</title>'
                f"<link>{host}/</link><description>Local news</description>{entries}"
                "</channel></rss>"
            ).encode()
            kind = "application/rss+xml"
        else:
            number = int(self.path.rsplit("/", 1)[-1]) if self.path.startswith("/news/") else 0
            if not 1 <= number <= len(FEED_TITLES):
                self.send_error(404)
                return
            title = FEED_TITLES[number - 1]
            text = f"{title}. " + "Residents and the port authority spoke about it. " * 8
            body = f"<html><head><title>{title}</title></head><body><article><h1>{title}</h1>"
            body += f"<p>{text}</p></article></body></html>"
            body, kind = body.encode(), "text/html; charset=utf-8"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


def make_run_recipe() -> list[str]:
    makefile = (ROOT / "Makefile").read_text()
    recipe = makefile.split("\nrun: setup\n", 1)[1].split("\n\n", 1)[0]
    return [line.strip() for line in recipe.splitlines()]
