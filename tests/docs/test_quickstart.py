"""docs/quickstart.md, followed word for word as a new user would, against real processes.

``make run`` is the commands of its Makefile target (checked here), run in a fresh "checkout"
directory: the line that writes ``HERALD_HOME`` into ``.env``, then three ``herald`` commands as
subprocesses that find the data directory through that file alone. The ``export`` lines
``herald demo`` prints are the page's, and they set the environment of the user's second
terminal and Python session; the printed ``curl`` command is run as printed, after them. The
page's Python blocks are pasted, line by line, into one interactive interpreter (the user's
Python session, ``code.InteractiveConsole``, which reads them as ``python`` at its ``>>>`` prompt
does: a compound statement ends at a blank line) against the real ``herald serve``; its shell
blocks run with bash in the "checkout" directory; the receiver is
the page's own script, serving HTTPS with the certificate the page's ``trustme`` command made,
and it must print the signed deliveries it verified.

The user's own feed is an RSS feed this test serves on loopback (``FEED_URL`` set to it, and the
server told to fetch from loopback with ``HERALD_FETCH_ALLOW_NETWORKS``, which a public feed
does not need); the search for a word of its titles must find its items.

Differences from a user's machine, all for speed or isolation: a free port instead of 8080 (and
8443) through ``HERALD_PORT``/``PORT`` (so the printed base URL carries that port), the
model-free embedder, a 7-entity knowledge base and NER over the first 300 characters of each
item (the demo corpus still loads in full).
"""

from __future__ import annotations

import code
import json
import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
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

pytestmark = pytest.mark.slow


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


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's working directory: the checkout, where `make run` keeps `.herald`."""
    directory = tmp_path / "herald"
    directory.mkdir()
    monkeypatch.chdir(directory)  # the Python session runs there too (it writes a file)
    return directory


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


@pytest.fixture
def session() -> Iterator[Interpreter]:
    """The user's Python session: the page's blocks are pasted into it, in order."""
    interpreter = Interpreter()
    yield interpreter
    if "client" in interpreter.locals:
        interpreter.locals["client"].close()


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[Any]]]:
    started: list[subprocess.Popen[Any]] = []
    yield started
    for process in reversed(started):
        stop(process)
        if process.stdout is not None:
            process.stdout.close()


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


@pytest.fixture
def feed_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), FeedHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/feed.xml"
    server.shutdown()
    server.server_close()


def make_run_recipe() -> list[str]:
    makefile = (ROOT / "Makefile").read_text()
    recipe = makefile.split("\nrun: setup\n", 1)[1].split("\n\n", 1)[0]
    return [line.strip() for line in recipe.splitlines()]


def test_make_run_is_the_commands_the_quickstart_describes() -> None:
    assert make_run_recipe() == [
        "@grep -qs '^HERALD_HOME=' .env || echo 'HERALD_HOME=$(CURDIR)/.herald' >> .env",
        "$(BIN)/herald db upgrade",
        "$(BIN)/herald demo",
        "$(BIN)/herald serve",
    ]
    assert doc_blocks()["make-run"].strip() == "make run"


def test_the_first_make_run_says_why_it_waits_before_installing(tmp_path: Path) -> None:
    """The first `make run` installs for minutes with `pip -q`: it says so before it starts."""
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    shutil.copy(ROOT / "Makefile", checkout / "Makefile")
    for prerequisite in (
        "pyproject.toml",
        "constraints.txt",
        "clients/python/pyproject.toml",
        "build_backend/herald_build.py",
    ):
        (checkout / prerequisite).parent.mkdir(parents=True, exist_ok=True)
        (checkout / prerequisite).touch()
    planned = subprocess.run(
        ["make", "-n", "run"], cwd=checkout, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    [announce] = [n for n, line in enumerate(planned) if "Installing Herald" in line]
    [install] = [
        n for n, line in enumerate(planned) if "pip install -q -c constraints.txt -e" in line
    ]
    assert announce < install
    assert "first time only" in planned[announce]


def test_make_run_keeps_a_dot_env_it_finds_and_adds_the_data_directory(tmp_path: Path) -> None:
    write_env = make_run_recipe()[0].removeprefix("@").replace("$(CURDIR)", str(tmp_path))
    (tmp_path / ".env").write_text("HERALD_LOG_LEVEL=DEBUG\n")
    for _ in range(2):  # a second run leaves the file as it is
        subprocess.run(["bash", "-c", write_env], cwd=tmp_path, check=True)
    assert (tmp_path / ".env").read_text() == (
        f"HERALD_LOG_LEVEL=DEBUG\nHERALD_HOME={tmp_path}/.herald\n"
    )


def test_the_quickstart_word_for_word(
    checkout: Path,
    processes: list[subprocess.Popen[Any]],
    session: Interpreter,
    feed_url: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    blocks = doc_blocks()
    port, receiver_port = free_port(), free_port()
    base_url = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERALD_")}
    env.pop("SSL_CERT_FILE", None)
    env |= {
        "HERALD_PORT": str(port),
        "HERALD_EMBEDDING_MODEL": "herald-hashing",
        "HERALD_ENTITY_SEED": str(SMALL_SEED),
        "HERALD_NER_MAX_CHARS": "300",
        "HERALD_LOG_FORMAT": "text",
        "HERALD_FETCH_ALLOW_NETWORKS": "127.0.0.0/8",
        "HERALD_SCHEDULER_TICK_SECONDS": "1",
    }

    # 1. make run: .env gets the data directory; herald db upgrade, herald demo, herald serve
    # find it there (the environment has no HERALD_HOME).
    write_env = make_run_recipe()[0].removeprefix("@").replace("$(CURDIR)", str(checkout))
    subprocess.run(["bash", "-c", write_env], cwd=checkout, check=True)
    subprocess.run([HERALD, "db", "upgrade"], env=env, cwd=checkout, check=True)
    assert (checkout / ".herald" / "herald.db").is_file()
    demo = subprocess.run(
        [HERALD, "demo"], env=env, cwd=checkout, capture_output=True, text=True, check=True
    )
    printed = demo.stderr
    # What the wait shows (no terminal here, as under `make run > log`): the corpus's size, the
    # stored items, then the result.
    assert "storing, enriching and indexing 845 items" in printed
    assert "stored 845 demo items; enriching and indexing them" in printed
    assert "loaded 845 demo items" in printed
    key_match = re.search(r"^\s+export HERALD_API_KEY=(hk_\S+)$", printed, re.M)
    assert key_match, printed
    api_key = key_match.group(1)
    exports = [line.strip() for line in printed.splitlines() if line.strip().startswith("export ")]
    [curl] = [line.strip() for line in printed.splitlines() if line.strip().startswith("curl ")]
    assert f"API docs: {base_url}/docs" in printed
    assert f"Web console: {base_url}/console (sign in with the key above)" in printed
    serve_log = checkout / "serve.log"
    with serve_log.open("wb") as log:
        processes.append(
            subprocess.Popen(
                [HERALD, "serve"],
                env=env,
                cwd=checkout,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        )
    wait_until_up(base_url, processes[-1], serve_log)

    # 2. The printed export lines and curl command are the page's; pasted into the second
    # terminal they return ranked results.
    documented = [line.split("  #")[0] for line in blocks["exports"].strip().splitlines()]
    documented_key = documented[0].removeprefix("export HERALD_API_KEY=")
    assert exports == [
        line.replace(documented_key, api_key).replace("http://127.0.0.1:8080", base_url)
        for line in documented
    ]
    assert curl == blocks["curl"].strip()
    terminal = env | dict(line.removeprefix("export ").split("=", 1) for line in exports)
    answer = subprocess.run(
        ["bash", "-c", "\n".join([*exports, curl])],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    results = json.loads(answer.stdout)["results"]
    assert len(results) >= 3
    scores = [r["score"] for r in results]
    assert scores == sorted(scores, reverse=True)
    assert all(0 < s <= 1 for s in scores)
    assert any("quake" in r["content_item"]["title"].lower() for r in results[:3])

    # 2b. The browser step: the console and the API docs are served, with no outside asset.
    console = httpx.get(f"{base_url}/console/", timeout=10)
    assert console.status_code == 200
    assert '<script type="module" src="/console/app.js">' in console.text
    assert "http://127.0.0.1:8080/console" in DOC.read_text()
    assert "//" not in httpx.get(f"{base_url}/docs", timeout=10).text.split("<body>")[1]

    # 3-4. The Python session: search, then a monitor filled by a backfill.
    # The Python session starts in that terminal: it has the two variables.
    for name in ("HERALD_API_KEY", "HERALD_BASE_URL"):
        monkeypatch.setenv(name, terminal[name])

    def run_python(name: str, **replace: str) -> str:
        block = blocks[name]
        for old, new in replace.items():
            block = block.replace(old, new)
        reported = session.paste(block)
        assert reported == "", f"docs/quickstart.md, block {name}, at the >>> prompt:\n{reported}"
        return capsys.readouterr().out

    searched = run_python("search")
    assert len(searched.splitlines()) >= 3

    # 4. The user's own feed: added with the page's commands (FEED_URL set to it), read by the
    # running server within a minute, listed with a last success, and found by a search.
    add_feed = blocks["add-feed"].replace("https://example.com/feed.xml", feed_url)
    assert add_feed != blocks["add-feed"]
    added = subprocess.run(
        ["bash", "-c", in_venv(add_feed)],
        env=terminal,
        cwd=checkout,
        capture_output=True,
        text=True,
        check=True,
    )
    assert re.fullmatch(r"src_\w+\n", added.stdout), added
    listing = in_venv(blocks["list-sources"]).replace("sleep 60 && ", "")
    for _ in range(90):  # "never" polled and never read, until the server has read it
        shown = subprocess.run(
            ["bash", "-c", listing], env=terminal, cwd=checkout, capture_output=True, text=True
        ).stdout
        if "never" not in shown:
            break
        time.sleep(1)
    assert "never" not in shown, shown
    assert blocks["list-sources"].startswith("sleep 60 && ")
    for _ in range(60):  # the items are searchable once enriched and indexed
        found = run_python("search-feed")
        if set(FEED_TITLES) <= {line.split(": ", 1)[-1] for line in found.splitlines()}:
            break
        time.sleep(1)
    assert set(FEED_TITLES) <= {line.split(": ", 1)[-1] for line in found.splitlines()}, found
    monitored = run_python("monitor")
    assert "succeeded 30 dates searched" in monitored
    captured = list(session.locals["client"].monitors.results_all(session.locals["monitor"].id))
    assert captured, monitored
    assert any("quake" in (r.content_item.title or "").lower() for r in captured[:5])

    # 5. Webhooks: certificates, the restarted server, the target, the receiver, a test event.
    subprocess.run(["bash", "-c", in_venv(blocks["certs"])], cwd=checkout, check=True)
    assert (checkout / "certs" / "client.pem").exists()
    stop(processes.pop())
    with serve_log.open("ab") as log:
        processes.append(
            subprocess.Popen(
                ["bash", "-c", in_venv(blocks["serve-webhooks"])],
                env=env,
                cwd=checkout,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        )
    wait_until_up(base_url, processes[-1], serve_log)

    target = run_python("webhook-target", **{":8443/": f":{receiver_port}/"})
    assert f"https://127.0.0.1:{receiver_port}/herald True whsec_" in target
    assert (checkout / "webhook-secret.txt").read_text().startswith("whsec_")

    (checkout / "receiver.py").write_text(blocks["receiver"])
    receiver = subprocess.Popen(
        ["bash", "-c", in_venv(blocks["run-receiver"])],
        env=env | {"PORT": str(receiver_port)},
        cwd=checkout,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    processes.append(receiver)
    assert receiver.stdout is not None
    lines = Lines(receiver.stdout)
    assert lines.wait_for(lambda line: line.startswith("listening"), 30) == (
        f"listening on https://127.0.0.1:{receiver_port}/herald"
    )

    tested = run_python("test-delivery")
    assert "webhook.test succeeded 204" in tested
    verified = lines.wait_for(lambda line: line.startswith(("received", "rejected")), 10)
    assert verified.startswith("received webhook.test evt_"), verified

    # The monitor's events reach the receiver, signed and verified, through the worker.
    run_python("monitor-events")
    elections = session.locals["elections"].id
    lines.wait_for(lambda line: line.startswith(("received monitor.results.added", "rejected")), 60)
    lines.wait_for(
        lambda line: line.startswith(("received monitor.backfill.completed", "rejected")), 60
    )
    assert not [line for line in lines.seen if line.startswith("rejected")], lines.seen
    assert all(
        line.endswith(elections) for line in lines.seen if line.startswith("received monitor.")
    )
    attempts = list(session.locals["client"].webhooks.events_all())
    assert attempts
    assert all(a.http_status == 204 for a in attempts)
