"""Fairness under a hostile workspace: 20 workspaces on one Herald, one of them hostile.

    .venv/bin/python bench/fairness_hostile.py [--seconds 60] [--database-url URL]

Loopback only, bounded in count and time. The hostile workspace queues 1,000 run-nows (1,000
monitors, 4 dated jobs each), its webhook target's name is served by a name server that never
answers (a UDP server on loopback this script starts; the resolver sends it real DNS queries and
waits as the OS resolver would), and it sends bursts of test deliveries through the API. The 19
others each have a monitor whose scheduled slot falls inside the run, and receive a steady
stream of deliveries at a real HTTPS receiver (own process). Printed: how late each scheduled run
started after its slot (target: within 60 s) and the event-to-first-attempt latency of the 19
workspaces' deliveries (target: p99 under 1 s).
"""

from __future__ import annotations

import argparse
import atexit
import ipaddress
import logging
import os
import secrets
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.webhooks_delivery import BENCH_NOTE, _kill_if_running, percentile

HOSTILE_NAME = "hook.hostile.test"
GOOD_NAME = "hook.good.test"


def start_silent_dns() -> tuple[socket.socket, int]:
    """A name server that reads every query and never answers."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))

    def swallow() -> None:
        while True:
            try:
                sock.recvfrom(4096)
            except OSError:
                return

    threading.Thread(target=swallow, daemon=True).start()
    return sock, int(sock.getsockname()[1])


def make_resolver(dns_port: int) -> object:
    def resolve(host: str) -> list[ipaddress.IPv4Address]:
        if host == GOOD_NAME:
            return [ipaddress.IPv4Address("127.0.0.1")]
        # A real A query to the bench's name server, waited for as long as a stub resolver
        # would (5 s x 2 tries); it never answers.
        query = struct.pack(">HHHHHH", 0x4242, 0x0100, 1, 0, 0, 0)
        query += b"".join(bytes([len(p)]) + p.encode() for p in host.split(".")) + b"\0"
        query += struct.pack(">HH", 1, 1)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            sock.settimeout(5)
            for _ in range(2):
                sock.sendto(query, ("127.0.0.1", dns_port))
                try:
                    sock.recvfrom(4096)
                except TimeoutError:
                    continue
        raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")

    return resolve


def start_receiver(work: Path) -> tuple[subprocess.Popen[str], int, str]:
    import trustme

    ca = trustme.CA()
    ca_file = work / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    ca.issue_cert(GOOD_NAME).private_key_and_cert_chain_pem.write_to_path(str(work / "server.pem"))
    script = Path(__file__).with_name("webhooks_delivery.py")
    proc = subprocess.Popen(
        [sys.executable, str(script), "--serve", str(work)], stdout=subprocess.PIPE, text=True
    )
    port_file = work / "port"
    deadline = time.monotonic() + 20
    while not port_file.exists() or not port_file.read_text():
        if time.monotonic() > deadline:
            raise RuntimeError("receiver did not start")
        time.sleep(0.05)
    return proc, int(port_file.read_text()), str(ca_file)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--run-nows", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=10.0, help="good deliveries per second")
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()

    from fastapi.testclient import TestClient
    from sqlalchemy import func, select, update

    from herald.api.app import create_app
    from herald.config import Settings
    from herald.core.net import SafeHttpsClient, TargetPolicy
    from herald.db.migrate import upgrade
    from herald.db.models.monitor import Monitor, MonitorRun
    from herald.db.models.webhooks import WebhookAttempt, WebhookEvent
    from herald.jobs.scheduler import Scheduler
    from herald.jobs.worker import Worker
    from herald.monitors.requests import run_now
    from herald.monitors.service import create_monitor
    from herald.runtime import Runtime
    from herald.webhooks import service
    from herald.webhooks.delivery import PER_WORKSPACE_IN_FLIGHT, Sender
    from herald.webhooks.events import record_event
    from herald.workspaces.service import create_key

    with tempfile.TemporaryDirectory(prefix="herald-fair-") as tmp:
        work = Path(tmp)
        receiver, port, ca_file = start_receiver(work)
        atexit.register(_kill_if_running, receiver)
        dns_sock, dns_port = start_silent_dns()
        os.environ["SSL_CERT_FILE"] = ca_file
        settings = Settings(
            home=work / "home",
            database_url=args.database_url,
            log_format="text",
            log_level="ERROR",
            webhook_allow_networks="127.0.0.0/8",
            embedding_model="herald-hashing",
            scheduler_tick_seconds=1.0,
        )
        upgrade(settings.resolved_database_url)
        runtime = Runtime(settings)
        clock = runtime.clock
        resolver = make_resolver(dns_port)
        runtime.service("webhooks.resolver", lambda: resolver)

        def build_sender() -> Sender:
            client = SafeHttpsClient(
                TargetPolicy(settings.allowed_webhook_networks),
                resolver=resolver,  # type: ignore[arg-type]
                max_connections_per_target=PER_WORKSPACE_IN_FLIGHT + 2,
            )
            runtime.on_close(client.close)
            return Sender(client, clock)

        runtime.service("webhooks.sender", build_sender)

        # 19 good workspaces and a hostile one, each with a key and a webhook target.
        # Names of this run only: a database kept from an earlier run (``--database-url``) adds
        # no workspaces, events or runs to the figures.
        run = secrets.token_hex(4)
        keys = {}
        with runtime.sessions.write() as session:
            for i in range(20):
                workspace = f"fair-{run}-{i}"
                keys[i] = create_key(session, workspace=workspace, role="member", clock=clock)
        good = [keys[i].team_id for i in range(1, 20)]
        hostile = keys[0].team_id
        good_url = service.checked_target_url(runtime, f"https://{GOOD_NAME}:{port}/hook")
        t_setup = time.monotonic()
        with runtime.sessions.write() as session:
            for team_id in good:
                service.save_target(session, team_id, url=good_url, enabled=True, clock=clock)
            # Saved while the name still answered; its name server has gone silent since.
            service.save_target(
                session, hostile, url=f"https://{HOSTILE_NAME}/hook", enabled=True, clock=clock
            )
            slots = {}
            for n, team_id in enumerate(good):
                monitor = create_monitor(
                    session,
                    team_id=team_id,
                    name="scheduled",
                    search={"query": "port strike"},
                    schedule={"frequency": "hourly"},
                    description=None,
                    status="active",
                    clock=clock,
                )
                # Slots spread over the first 40 s of the run (after the run-nows are queued).
                slots[monitor.id] = clock.now() + timedelta(seconds=20 + 2 * n)
                session.execute(
                    update(Monitor)
                    .where(Monitor.id == monitor.id)
                    .values(next_run_at=slots[monitor.id])
                )
        hostile_monitors = []
        for start in range(0, args.run_nows, 100):
            with runtime.sessions.write() as session:
                for n in range(start, min(start + 100, args.run_nows)):
                    hostile_monitors.append(
                        create_monitor(
                            session,
                            team_id=hostile,
                            name=f"h{n}",
                            search={"query": f"flood {n}"},
                            schedule=None,
                            description=None,
                            status="active",
                            clock=clock,
                        ).id
                    )
        for start in range(0, len(hostile_monitors), 100):
            with runtime.sessions.write() as session:
                for monitor_id in hostile_monitors[start : start + 100]:
                    run_now(session, team_id=hostile, monitor_id=monitor_id, clock=clock)
        setup_seconds = time.monotonic() - t_setup

        worker = Worker(runtime)
        scheduler = Scheduler(runtime)
        worker.start()
        scheduler.start()
        stop = threading.Event()
        test_statuses: list[int] = []

        def test_bursts() -> None:
            logging.disable(logging.WARNING)  # a line per request would drown the figures
            with (
                TestClient(create_app(runtime), raise_server_exceptions=False) as api,
                ThreadPoolExecutor(15) as pool,
            ):
                headers = {"x-api-key": keys[0].api_key}

                def one(_: int) -> int:
                    return api.post("/v1/webhooks/test", headers=headers).status_code

                while not stop.is_set():  # 15 at once, every 10 s
                    test_statuses.extend(pool.map(one, range(15)))
                    stop.wait(10)

        burster = threading.Thread(target=test_bursts, daemon=True)
        burster.start()
        data = {"monitor_id": "mon_bench", "new_result_count": 1, "items": [{"id": "cnt_x"}]}
        t0 = time.monotonic()
        sent = 0
        while time.monotonic() - t0 < args.seconds:
            time.sleep(max(0.0, t0 + sent / args.rate - time.monotonic()))
            with runtime.sessions.write() as session:
                record_event(
                    session,
                    team_id=good[sent % len(good)],
                    event_type="monitor.results.added",
                    data=data,
                    clock=clock,
                )
            sent += 1
        time.sleep(5)  # the last deliveries go out
        stop.set()
        burster.join(60)
        with runtime.sessions.read() as session:
            child_start = (
                select(
                    MonitorRun.monitor_id,
                    func.min(MonitorRun.started_at).label("started"),
                )
                .where(MonitorRun.kind == "dated", MonitorRun.team_id.in_(good))
                .group_by(MonitorRun.monitor_id)
            )
            started = {r.monitor_id: r.started for r in session.execute(child_start)}
            hostile_done = session.scalar(
                select(func.count())
                .select_from(MonitorRun)
                .where(
                    MonitorRun.team_id == hostile,
                    MonitorRun.kind == "dated",
                    MonitorRun.status.not_in(("queued", "running")),
                )
            )
            rows = session.execute(
                select(WebhookEvent.created_at, WebhookAttempt.attempted_at)
                .join(WebhookAttempt, WebhookAttempt.event_id == WebhookEvent.id)
                .where(WebhookAttempt.attempt_number == 1, WebhookAttempt.team_id.in_(good))
            ).all()
            hostile_attempts = session.execute(
                select(WebhookAttempt.delivery_status, func.count())
                .where(WebhookAttempt.team_id == hostile)
                .group_by(WebhookAttempt.delivery_status)
            ).all()
        scheduler.stop()
        worker.stop()
        runtime.close()
        dns_sock.close()
        receiver.send_signal(signal.SIGTERM)
        receiver.communicate(timeout=30)

    lags = [
        (started[m] - slot).total_seconds() if m in started else float("inf")
        for m, slot in slots.items()
    ]
    latencies = [(a - c).total_seconds() for c, a in rows]
    backend = "postgresql" if args.database_url else "sqlite"
    print(f"fairness benchmark (1 hostile workspace of 20) on {backend} {BENCH_NOTE}")
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"  load average at the end (1, 5, 15 min): {load} on {os.cpu_count()} cores")
    print(
        f"  setup: {args.run_nows} hostile run-nows ({4 * args.run_nows} dated jobs) queued in "
        f"{setup_seconds:.1f} s; {len(slots)} scheduled slots 20-56 s after setup began"
    )
    print(
        f"  scheduled runs of 19 workspaces, start after slot: max {max(lags):.1f} s, "
        f"median {percentile(lags, 0.5):.1f} s (target: within 60 s); not started: "
        f"{sum(1 for lag in lags if lag == float('inf'))}"
    )
    print(
        f"  deliveries of 19 workspaces ({len(latencies)} of {sent} events): event to first "
        f"attempt p50 {percentile(latencies, 0.5) * 1000:.0f} ms, p99 "
        f"{percentile(latencies, 0.99) * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms "
        "(target: p99 under 1 s)"
    )
    print(f"  hostile dated jobs finished meanwhile: {hostile_done} of {4 * args.run_nows}")
    print(f"  hostile attempts by outcome: {dict(hostile_attempts)}")
    codes = {c: test_statuses.count(c) for c in sorted(set(test_statuses))}
    print(f"  hostile test deliveries by status: {codes}")


if __name__ == "__main__":
    main()
