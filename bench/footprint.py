"""What one machine needs per item and per process: the sizing figures of docs/benchmarks.md.

    .venv/bin/python bench/footprint.py

In a fresh HERALD_HOME (SQLite), `herald demo` stores, enriches and indexes the bundled demo
corpus (news and podcast episodes) with the real models, as `make run` does; printed are its CPU
time, the database's and the search index's size (per item), then the resident memory of a
`herald serve` process (one worker; after a search, once its warm-up has loaded the models and
the knowledge base and its memory has settled), read from /proc.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

HERALD = str(Path(sys.executable).with_name("herald"))


def machine() -> str:
    """Cores, CPU model (with its family and model numbers), memory and the load average."""
    fields: dict[str, str] = {}
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        name, _, value = line.partition(":")
        fields.setdefault(name.strip(), value.strip())
    model = fields.get("model name") or platform.processor()
    if "cpu family" in fields and "model" in fields:
        model += f", family {fields['cpu family']} model {fields['model']}"
    memory = int(Path("/proc/meminfo").read_text().split()[1]) / 1024 / 1024
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return f"{os.cpu_count()} cores ({model}), {memory:.0f} GiB; load average {load}"


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def resident_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def wait_until(check: object, timeout: float = 600) -> None:
    assert callable(check)
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError("timed out")
        time.sleep(1)


def serve_memory(env: dict[str, str], home: Path, api_key: str) -> float:
    port = 18931
    log = (home / "serve.log").open("wb")
    process = subprocess.Popen(
        [HERALD, "serve", "--port", str(port)], env=env, stdout=log, stderr=log
    )
    try:
        wait_until(lambda: _ready(port))
        # A search loads what queries need; then wait until the warm-up's loading is over.
        httpx.post(
            f"http://127.0.0.1:{port}/v1/content/search",
            json={"query": "earthquake rescue"},
            headers={"authorization": f"Bearer {api_key}"},
            timeout=300,
        ).raise_for_status()
        samples = [resident_mb(process.pid)]
        while len(samples) < 4 or max(samples[-4:]) - min(samples[-4:]) > 5:
            time.sleep(5)
            samples.append(resident_mb(process.pid))
            if len(samples) > 120:
                raise TimeoutError("memory did not settle in 10 minutes")
        return samples[-1]
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)


def _ready(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=2).status_code == 200
    except httpx.TransportError:
        return False


def main() -> int:
    print(f"footprint: the demo corpus into a fresh SQLite home; machine: {machine()}")
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        env = {k: v for k, v in os.environ.items() if not k.startswith("HERALD_")}
        env |= {"HERALD_HOME": str(home), "HERALD_LOG_FORMAT": "json"}
        subprocess.run([HERALD, "db", "upgrade"], env=env, check=True, capture_output=True)
        before = children_cpu()
        started = time.perf_counter()
        demo = subprocess.run(
            [HERALD, "demo", "--json"], env=env, check=True, capture_output=True, text=True
        )
        api_key = json.loads(demo.stdout)["api_key"]
        cpu, wall = children_cpu() - before, time.perf_counter() - started
        found = subprocess.run(
            [HERALD, "search", "--json", "earthquake"], env=env, check=True, capture_output=True
        )
        assert json.loads(found.stdout), "the demo corpus is not searchable"
        database = size(home / "herald.db") + size(home / "herald.db-wal")
        index = size(home / "index")
        items = _items(home)
        print(
            f"  herald demo: {items} items stored, enriched and indexed in {wall:.0f} s wall, "
            f"{cpu:.0f} s CPU ({cpu / items * 1000:.0f} ms CPU per item, all stages)"
        )
        print(
            f"  database {database / 1e6:.1f} MB ({database / items / 1000:.1f} KB per item), "
            f"search index {index / 1e6:.1f} MB ({index / items / 1000:.1f} KB per item)"
        )
        resident = serve_memory(env, home, api_key)
        print(f"  herald serve, models loaded, idle: {resident:.0f} MB resident")
    return 0


def _items(home: Path) -> int:
    import sqlite3

    with sqlite3.connect(home / "herald.db") as connection:
        return int(connection.execute("SELECT count(*) FROM content_items").fetchone()[0])


if __name__ == "__main__":
    raise SystemExit(main())
