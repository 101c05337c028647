"""Webhook delivery benchmark: deliveries per second and event-to-first-attempt latency.

    .venv/bin/python bench/webhooks_delivery.py [--events 3000] [--workspaces 10] [--rate 150]
        [--database-url postgresql+psycopg://postgres@127.0.0.1:5432/herald_bench]

A real HTTPS receiver (test CA from trustme, TLS, keep-alive) runs in its own process on
loopback; Herald's delivery engine signs every delivery (both signature families), sends it
through the SSRF-safe client and records every attempt, with the dispatch jobs on the durable
job queue, exactly as in production. Two phases:

1. throughput: a backlog of ``--events`` events is recorded first, then the worker starts and
   the time until every delivery is recorded as succeeded gives deliveries/s;
2. latency: with the worker running, events are recorded one per transaction at ``--rate``
   per second; the latency is from the event's creation to the start of its first attempt
   (both from the same clock), reported as p50/p99.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import json
import os
import signal
import ssl
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH_NOTE = "(2-core machine shared with other engineers' work: numbers are indicative)"


# -- the receiver process --------------------------------------------------------------------


async def _serve(cert_dir: Path, port_file: Path) -> None:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert_dir / "server.pem")
    received = 0

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal received
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line[:15].lower() == b"content-length:":
                        length = int(line[15:])
                await reader.readexactly(length)
                received += 1
                writer.write(b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=context, backlog=512)
    port_file.write_text(str(server.sockets[0].getsockname()[1]))
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    async with server:
        await stop.wait()
    print(json.dumps({"received": received, "cpu_s": time.process_time()}), flush=True)


def start_receiver(work: Path) -> tuple[subprocess.Popen[str], int, str]:
    import trustme

    ca = trustme.CA()
    ca_file = work / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    ca.issue_cert("127.0.0.1").private_key_and_cert_chain_pem.write_to_path(
        str(work / "server.pem")
    )
    port_file = work / "port"
    proc = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(work)], stdout=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 20
    while not port_file.exists() or not port_file.read_text():
        if time.monotonic() > deadline:
            raise RuntimeError("receiver did not start")
        time.sleep(0.05)
    return proc, int(port_file.read_text()), str(ca_file)


# -- the benchmark -------------------------------------------------------------------------


def _kill_if_running(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.kill()
        process.wait(10)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--serve")
    parser.add_argument("--events", type=int, default=3000)
    parser.add_argument("--workspaces", type=int, default=10)
    parser.add_argument("--rate", type=float, default=150.0, help="events/s in the latency phase")
    parser.add_argument("--latency-seconds", type=float, default=10.0)
    parser.add_argument("--database-url", default=None)
    parser.add_argument(
        "--record", action="store_true", help="write the figures into bench/results.json"
    )
    args = parser.parse_args()
    if args.serve:
        asyncio.run(_serve(Path(args.serve), Path(args.serve) / "port"))
        return

    from sqlalchemy import func, select

    from herald.config import Settings
    from herald.core.ids import new_id
    from herald.db.migrate import upgrade
    from herald.db.models.webhooks import WebhookAttempt, WebhookDelivery, WebhookEvent
    from herald.db.models.workspace import Team
    from herald.jobs.scheduler import Scheduler
    from herald.jobs.worker import Worker
    from herald.runtime import Runtime
    from herald.webhooks import service
    from herald.webhooks.delivery import get_engine
    from herald.webhooks.events import record_event

    with tempfile.TemporaryDirectory(prefix="herald-bench-") as tmp:
        work = Path(tmp)
        receiver, port, ca_file = start_receiver(work)
        atexit.register(_kill_if_running, receiver)  # also when the benchmark fails midway
        os.environ["SSL_CERT_FILE"] = ca_file
        settings = Settings(
            home=work / "home",
            database_url=args.database_url,
            log_format="text",
            log_level="WARNING",
            webhook_allow_networks="127.0.0.0/8",
        )
        upgrade(settings.resolved_database_url)
        runtime = Runtime(settings)
        clock = runtime.clock
        teams = [new_id("team") for _ in range(args.workspaces)]
        url = f"https://127.0.0.1:{port}/hook"
        checked = service.checked_target_url(runtime, url)
        with runtime.sessions.write() as session:
            for i, team_id in enumerate(teams):
                session.add(Team(id=team_id, name=f"bench-{i}-{team_id}", created_at=clock.now()))
            session.flush()
            for team_id in teams:
                service.save_target(session, team_id, url=checked, enabled=True, clock=clock)
        data = {"monitor_id": "mon_bench", "new_result_count": 3, "items": [{"id": "cnt_x"}] * 3}

        # Phase 1: a backlog, then the worker drains it.
        started = time.monotonic()
        for n in range(args.events):
            with runtime.sessions.write() as session:
                record_event(
                    session,
                    team_id=teams[n % len(teams)],
                    event_type="monitor.results.added",
                    data=data,
                    clock=clock,
                )
        record_seconds = time.monotonic() - started
        worker = Worker(runtime)
        scheduler = Scheduler(runtime)
        t0, cpu0 = time.monotonic(), time.process_time()
        worker.start()
        scheduler.start()

        def succeeded() -> int:
            with runtime.sessions.read() as session:
                return int(
                    session.scalar(
                        select(func.count())
                        .select_from(WebhookDelivery)
                        .where(WebhookDelivery.status == "succeeded")
                    )
                    or 0
                )

        while succeeded() < args.events:
            if time.monotonic() - t0 > 600:
                raise RuntimeError("backlog not delivered within 10 minutes")
            time.sleep(0.05)
        drain_seconds = time.monotonic() - t0
        drain_cpu = time.process_time() - cpu0

        # Phase 2: steady arrivals, one event per transaction.
        first_id = 0
        with runtime.sessions.read() as session:
            first_id = int(session.scalar(select(func.max(WebhookDelivery.id))) or 0)
        count = int(args.rate * args.latency_seconds)
        t1 = time.monotonic()
        for n in range(count):
            due = t1 + n / args.rate
            pause = due - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            with runtime.sessions.write() as session:
                record_event(
                    session,
                    team_id=teams[n % len(teams)],
                    event_type="monitor.results.added",
                    data=data,
                    clock=clock,
                )
        while succeeded() < args.events + count:
            time.sleep(0.05)
        assert get_engine(runtime).wait_idle(60)
        with runtime.sessions.read() as session:
            rows = session.execute(
                select(WebhookEvent.created_at, WebhookAttempt.attempted_at)
                .join(WebhookAttempt, WebhookAttempt.event_id == WebhookEvent.id)
                .where(WebhookAttempt.delivery_id > first_id, WebhookAttempt.attempt_number == 1)
            ).all()
            failed = session.scalar(
                select(func.count())
                .select_from(WebhookAttempt)
                .where(WebhookAttempt.delivery_status != "succeeded")
            )
        latencies = [(a - c).total_seconds() for c, a in rows]
        scheduler.stop()
        worker.stop()
        runtime.close()
        receiver.send_signal(signal.SIGTERM)
        out, _ = receiver.communicate(timeout=30)
        receiver_report = json.loads(out.strip().splitlines()[-1])
        received = receiver_report["received"]

    backend = "postgresql" if args.database_url else "sqlite"
    print(f"webhook delivery benchmark on {backend} {BENCH_NOTE}")
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"  workspaces: {args.workspaces}, receiver: HTTPS on loopback (own process)")
    print(f"  load average at the end (1, 5, 15 min): {load} on {os.cpu_count()} cores")
    print(f"  recording {args.events} events (one transaction each): {record_seconds:.2f} s")
    print(
        f"  throughput: {args.events} deliveries in {drain_seconds:.2f} s = "
        f"{args.events / drain_seconds:.0f} deliveries/s"
    )
    print(
        f"  CPU during the drain: Herald's process {drain_cpu:.2f} s = "
        f"{drain_cpu / args.events * 1000:.2f} ms per delivery (all its threads); the receiver "
        f"{receiver_report['cpu_s'] / max(received, 1) * 1000:.2f} ms per request (whole run)"
    )
    p50, p99 = percentile(latencies, 0.50) * 1000, percentile(latencies, 0.99) * 1000
    print(
        f"  latency at {args.rate:.0f} events/s ({len(latencies)} events): event to first "
        f"attempt p50 {p50:.0f} ms, p99 {p99:.0f} ms, max {max(latencies) * 1000:.0f} ms"
    )
    print(f"  receiver counted {received} requests; failed attempts: {failed}")
    if args.record:
        from results import record

        name = "PostgreSQL" if args.database_url else "SQLite"
        figures = {"per_s": round(args.events / drain_seconds), "p50_ms": round(p50)}
        record("webhooks", {"backend": name, "run": "latest"}, {**figures, "p99_ms": round(p99)})


if __name__ == "__main__":
    main()
