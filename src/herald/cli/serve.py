"""`herald serve` and `herald worker`."""

from __future__ import annotations

import logging
import signal
import sys
import threading
from typing import Annotated

import typer

from herald.cli.common import console, load_settings
from herald.cli.worker_processes import WorkerProcesses
from herald.db.migrate import SchemaAhead, is_up_to_date, refuse_ahead, upgrade
from herald.enrich.model_files import ModelFilesError, verify_configured_models
from herald.logging import configure_logging
from herald.runtime import Runtime

log = logging.getLogger(__name__)


def prepare_runtime() -> Runtime:
    settings = load_settings()
    configure_logging(settings.log_level, settings.log_format_for(terminal=sys.stderr.isatty()))
    settings.home.mkdir(parents=True, exist_ok=True)
    try:  # a changed model file stops the server at once, not its first enrichment job
        verify_configured_models(
            settings.embedding_model, settings.ner_recognizer, settings.nlp_model
        )
    except ModelFilesError as exc:
        console.print(f"[red]{exc}[/]")
        raise typer.Exit(1) from exc
    runtime = Runtime(settings)
    try:
        refuse_ahead(runtime.engine, settings.resolved_database_url)
    except SchemaAhead as exc:
        runtime.close()
        console.print(f"[red]{exc}[/]")
        raise typer.Exit(1) from None
    if not is_up_to_date(runtime.engine, settings.resolved_database_url):
        if runtime.backend != "sqlite":
            runtime.close()
            console.print("[red]the database schema is behind: run `herald db upgrade` first[/]")
            raise typer.Exit(1)
        upgrade(settings.resolved_database_url)  # the embedded default migrates itself
    return runtime


def serve(
    host: Annotated[str | None, typer.Option(help="Bind address (default HERALD_HOST).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (default HERALD_PORT).")] = None,
    no_worker: Annotated[
        bool, typer.Option("--no-worker", help="Serve the API only; run workers elsewhere.")
    ] = False,
    worker_processes: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=64,
            help="Processes that run jobs, this one included (default HERALD_WORKER_PROCESSES);"
            " each extra one is a `herald worker` child. Use the number of cores to enrich on"
            " all of them.",
        ),
    ] = None,
) -> None:
    """Serve the HTTP API, with workers and the scheduler in the same process by default."""
    import uvicorn

    from herald.api.app import create_app
    from herald.api.http_protocol import protocol_class
    from herald.jobs.registry import load_handlers
    from herald.jobs.scheduler import Scheduler
    from herald.jobs.worker import Worker
    from herald.metrics.exposition import metrics_for
    from herald.readiness import run_warmups

    runtime = prepare_runtime()
    load_handlers()
    app = create_app(runtime)
    threading.Thread(target=_warm, args=(runtime, run_warmups), daemon=True).start()
    worker = scheduler = children = None
    if not no_worker:
        worker = Worker(runtime)
        scheduler = Scheduler(runtime)
        worker.start()
        scheduler.start()
        extra = (worker_processes or runtime.settings.worker_processes) - 1
        if extra > 0:
            children = WorkerProcesses(extra)
            children.start()
            metrics_for(runtime).add_source(children.metrics())
    bind_host = host or runtime.settings.host
    bind_port = port or runtime.settings.port
    log.info("serving", extra={"host": bind_host, "port": bind_port, "workers": not no_worker})
    # The lifespan runs the /mcp endpoint's session manager.
    config = uvicorn.Config(
        app,
        host=bind_host,
        port=bind_port,
        log_config=None,
        access_log=False,
        lifespan="on",
        http=protocol_class(),  # unparseable requests get the JSON error envelope too
    )
    # uvicorn shuts down gracefully on SIGTERM/SIGINT, then raises the signal again under the
    # handler it found: with the default one the process would die before the cleanup below
    # (worker batch, child processes, database). This handler lets the cleanup run.
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, _note_signal)
    try:
        uvicorn.Server(config).run()
    finally:
        if scheduler is not None:
            scheduler.stop()
        if children is not None:
            children.stop()
        if worker is not None:
            worker.stop()
        runtime.close()


def worker(
    threads: Annotated[
        int | None,
        typer.Option(help="Threads for the default lane (default HERALD_WORKER_THREADS)."),
    ] = None,
    no_scheduler: Annotated[
        bool, typer.Option("--no-scheduler", help="Run jobs only; leave scheduling to others.")
    ] = False,
    metrics_port: Annotated[
        int | None,
        typer.Option(
            min=0,
            max=65535,
            help="Serve /metrics and /metrics/shared on this port (default "
            "HERALD_WORKER_METRICS_PORT; 0: none).",
        ),
    ] = None,
    metrics_host: Annotated[
        str | None,
        typer.Option(help="Address of the metrics port (default HERALD_WORKER_METRICS_HOST)."),
    ] = None,
) -> None:
    """Run job workers (and the scheduler) until interrupted. Run as many as you like."""
    from herald.jobs.registry import load_handlers, periodic_tasks
    from herald.jobs.scheduler import Scheduler
    from herald.jobs.worker import Worker
    from herald.metrics.exposition import metrics_for
    from herald.metrics.server import MetricsServer

    runtime = prepare_runtime()
    settings = runtime.settings
    port = settings.worker_metrics_port if metrics_port is None else metrics_port
    metrics_server = None
    if port:
        host = metrics_host or settings.worker_metrics_host
        try:
            metrics_server = MetricsServer(metrics_for(runtime), host, port)
        except OSError as exc:
            runtime.close()
            console.print(f"[red]cannot serve metrics on {host}:{port}: {exc.strerror}[/]")
            raise typer.Exit(1) from exc
        metrics_server.start()
    load_handlers()
    lanes = {"default": threads or runtime.settings.worker_threads}
    from herald.jobs.registry import lanes as all_lanes

    for lane in all_lanes() - {"default"}:
        lanes[lane] = lanes.get(lane, 1)
    worker_ = Worker(runtime, lane_threads=lanes)
    scheduler = None if no_scheduler else Scheduler(runtime)
    stop = threading.Event()

    def _stop(signum: int, _frame: object) -> None:
        log.info("stopping", extra={"signal": signum})
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    worker_.start()
    if scheduler is not None:
        scheduler.start()
    log.info(
        "worker started",
        extra={
            "lanes": lanes,
            "periodic": [t.name for t in periodic_tasks()],
            "metrics_port": metrics_server.port if metrics_server else None,
        },
    )
    stop.wait()
    if scheduler is not None:
        scheduler.stop()
    worker_.stop()
    if metrics_server is not None:
        metrics_server.stop()
    runtime.close()


def _note_signal(signum: int, _frame: object) -> None:
    log.info("stopping", extra={"signal": signum})


def _warm(runtime: Runtime, run: object) -> None:
    try:
        assert callable(run)
        run(runtime)
    except Exception:
        log.exception("warm-up failed")
