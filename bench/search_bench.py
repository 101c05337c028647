"""What the search benchmarks share: where a work directory's stores live (a SQLite file, a
PostgreSQL database named after the directory), the environment of the `herald` processes run on
them, and what is read of those processes and of the machine (CPU time and memory from /proc, the
load average), with the API key and the wait for a server to answer.

Used by search_latency.py, search_concurrency.py and index_memory.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

PG_ADMIN = os.environ.get("HERALD_TEST_PG_ADMIN", "postgresql://postgres@127.0.0.1:5432/postgres")
HERALD = str(Path(sys.executable).with_name("herald"))


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def pg_database(work: Path) -> str:
    """One PostgreSQL database per work directory, so runs of other sizes leave it alone."""
    digest = hashlib.sha256(str(work.resolve()).encode()).hexdigest()[:8]
    return f"herald_bench_search_{digest}"


def database_url(backend: str, work: Path) -> str:
    if backend == "embedded":
        return f"sqlite:///{work / 'embedded' / 'herald.db'}"
    return f"postgresql+psycopg://postgres@127.0.0.1:5432/{pg_database(work)}"


def env_for(backend: str, work: Path) -> dict[str, str]:
    home = work / backend
    return {
        **os.environ,
        "HERALD_HOME": str(home),
        "HERALD_DATABASE_URL": database_url(backend, work),
        "HERALD_ENTITY_SEED": "none",
        "HERALD_LOG_LEVEL": "WARNING",
        # 800 searches a minute from one key: the benchmark measures search, not the limit
        "HERALD_RATE_LIMIT_PER_MINUTE": "0",
        "HF_HUB_OFFLINE": "1",
    }


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def database_cpu_seconds(backend: str, work: Path) -> float:
    """CPU time so far of the PostgreSQL server processes connected to the bench database
    (0 for SQLite, which runs inside the server process)."""
    if backend != "postgresql":
        return 0.0
    name = pg_database(work).encode()
    total = 0.0
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and name in (proc / "cmdline").read_bytes():
                total += cpu_seconds(int(proc.name))
        except OSError:  # exited meanwhile
            continue
    return total


def resident_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def machine() -> str:
    model = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        "unknown CPU",
    )
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{os.cpu_count()} cores ({model}), {memory:.0f} GiB, shared with other engineers' jobs"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def create_key(env: dict[str, str]) -> str:
    """A new API key of the store that ``env`` names."""
    created = subprocess.run(
        [HERALD, "keys", "create", "--workspace", "bench", "--json"],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return str(json.loads(created.stdout)["api_key"])


def wait_until_serving(client: httpx.Client, server: subprocess.Popen[bytes]) -> None:
    """Until the server answers its health check (at most 10 minutes: a large index opens)."""
    deadline = time.monotonic() + 600
    while True:
        try:
            if client.get("/healthz").status_code == 200:
                return
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline or server.poll() is not None:
            raise RuntimeError("the server did not start")
        time.sleep(0.5)
