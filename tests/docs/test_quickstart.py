"""docs/quickstart.md, followed word for word as a new user would, against real processes.

``make run`` is the commands of its Makefile target (checked here), run in a fresh "checkout"
directory: the line that writes ``HERALD_HOME`` into ``.env``, then three ``herald`` commands as
subprocesses that find the data directory through that file alone. The ``export`` lines
``herald demo`` prints are the page's, and they set the environment of the user's second
terminal and Python session; the printed ``curl`` command is run as printed, after them. The
page's Python blocks run in order in one namespace (the user's Python session) against the real
``herald serve``; its shell blocks run with bash in the "checkout" directory; the receiver is
the page's own script, serving HTTPS with the certificate the page's ``trustme`` command made,
and it must print the signed deliveries it verified.

Differences from a user's machine, all for speed or isolation: a free port instead of 8080 (and
8443) through ``HERALD_PORT``/``PORT`` (so the printed base URL carries that port), the
model-free embedder, a 7-entity knowledge base and NER over the first 300 characters of each
item (the demo corpus still loads in full).
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
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


@pytest.fixture
def session() -> Iterator[dict[str, Any]]:
    """The user's Python session: the page's blocks run in it, in order."""
    namespace: dict[str, Any] = {"__name__": "quickstart"}
    yield namespace
    if "client" in namespace:
        namespace["client"].close()


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[Any]]]:
    started: list[subprocess.Popen[Any]] = []
    yield started
    for process in reversed(started):
        stop(process)
        if process.stdout is not None:
            process.stdout.close()


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
    session: dict[str, Any],
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
    assert "loaded 951 demo items" in printed
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
        code = blocks[name]
        for old, new in replace.items():
            code = code.replace(old, new)
        exec(compile(code, f"docs/quickstart.md:{name}", "exec"), session)
        return capsys.readouterr().out

    searched = run_python("search")
    assert len(searched.splitlines()) >= 3
    monitored = run_python("monitor")
    assert "succeeded 30 dates searched" in monitored
    captured = list(session["client"].monitors.results_all(session["monitor"].id))
    assert captured, monitored
    assert all("quake" in (r.content_item.title or "").lower() for r in captured[:3])

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
    elections = session["elections"].id
    lines.wait_for(lambda line: line.startswith(("received monitor.results.added", "rejected")), 60)
    lines.wait_for(
        lambda line: line.startswith(("received monitor.backfill.completed", "rejected")), 60
    )
    assert not [line for line in lines.seen if line.startswith("rejected")], lines.seen
    assert all(
        line.endswith(elections) for line in lines.seen if line.startswith("received monitor.")
    )
    attempts = list(session["client"].webhooks.events_all())
    assert attempts
    assert all(a.http_status == 204 for a in attempts)
