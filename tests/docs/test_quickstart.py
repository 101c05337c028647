"""docs/quickstart.md, followed word for word as a new user would, against real processes.

``make run`` is the commands of its Makefile target (checked in test_quickstart_make_run.py), run in
a fresh "checkout" directory: the line that writes ``HERALD_HOME`` into ``.env``, then three
``herald`` commands as subprocesses that find the data directory through that file alone. The
``export`` lines ``herald demo`` prints are the page's, and they set the environment of the user's
second terminal and Python session; the printed ``curl`` command is run as printed, after them. The
page's Python blocks are pasted, line by line, into one interactive interpreter (the user's Python
session, ``code.InteractiveConsole``, which reads them as ``python`` at its ``>>>`` prompt does: a
compound statement ends at a blank line) against the real ``herald serve``; its shell blocks run
with bash in the "checkout" directory; the receiver is the page's own script, serving HTTPS with the
certificate the page's ``trustme`` command made, and it must print the signed deliveries it
verified.

The user's own feed is an RSS feed this test serves on loopback (``FEED_URL`` set to it, and the
server told to fetch from loopback with ``HERALD_FETCH_ALLOW_NETWORKS``, which a public feed
does not need); the search for a word of its titles must find its items.

Differences from a user's machine, all for speed or isolation: a free port instead of 8080 (and
8443) through ``HERALD_PORT``/``PORT`` (so the printed base URL carries that port), the
model-free embedder, a 7-entity knowledge base and NER over the first 300 characters of each
item (the demo corpus still loads in full).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.docs.quickstart_support import (
    DOC,
    FEED_TITLES,
    HERALD,
    SMALL_SEED,
    FeedHandler,
    Interpreter,
    Lines,
    doc_blocks,
    free_port,
    in_venv,
    make_run_recipe,
    stop,
    wait_until_up,
)

pytestmark = pytest.mark.slow


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's working directory: the checkout, where `make run` keeps `.herald`."""
    directory = tmp_path / "herald"
    directory.mkdir()
    monkeypatch.chdir(directory)  # the Python session runs there too (it writes a file)
    return directory


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


@pytest.fixture
def feed_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), FeedHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/feed.xml"
    server.shutdown()
    server.server_close()


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
