"""`herald monitors ...`: a workspace's monitors, through the HTTP API (see herald.cli.api)."""

from __future__ import annotations

import datetime as dt
from itertools import islice
from typing import Annotated, Any

import herald_client
import typer
from herald_client.models import LedgerSummary, QueuedTask, Schedule
from rich.markup import escape
from rich.table import Table

from herald.cli.api import ApiKeyOption, BaseUrlOption, api_client, dump, wait_for_task
from herald.cli.common import (
    EntitiesOption,
    ExcludeDomainsOption,
    IncludeDomainsOption,
    JsonOption,
    MediaTypesOption,
    console,
    id_column,
    print_json,
    print_table,
    stdout,
)

app = typer.Typer(
    help="Monitors of the workspace of HERALD_API_KEY, through the API at HERALD_BASE_URL.",
    no_args_is_help=True,
)
MonitorId = Annotated[str, typer.Argument(help="The monitor id (mon_...).")]
WaitOption = Annotated[
    bool,
    typer.Option("--wait", help="Wait until every dated job has finished, with progress."),
]
TimeoutOption = Annotated[
    float, typer.Option(help="With --wait: give up after this many seconds (exit 1).")
]
MAX_DATES = 100  # a backfill request covers at most this many dates (the API refuses more)


@app.command("list")
def list_monitors(
    status: Annotated[
        str | None, typer.Option(help="Only monitors in this state: active or disabled.")
    ] = None,
    as_json: JsonOption = False,
    base_url: BaseUrlOption = None,
    api_key: ApiKeyOption = None,
) -> None:
    """List the workspace's monitors, newest first."""
    with api_client(base_url, api_key) as client:
        monitors = list(client.monitors.list_all(status=status))  # type: ignore[arg-type]
    if as_json:
        print_json({"monitors": [dump(m) for m in monitors]})
        return
    table = Table(id_column(), "name", "status", "query", "schedule", "next run")
    for monitor in monitors:
        table.add_row(
            monitor.id,
            escape(monitor.name),
            monitor.status,
            escape(monitor.search.query),
            _schedule(monitor.schedule),
            monitor.next_run_at.isoformat() if monitor.next_run_at else "",
        )
    print_table(table)


@app.command("create")
def create(
    name: Annotated[str, typer.Argument(help="A name for people.")],
    query: Annotated[str, typer.Option(help='The saved search; "phrases", -word, OR.')],
    media_type: MediaTypesOption = None,
    include_domain: IncludeDomainsOption = None,
    exclude_domain: ExcludeDomainsOption = None,
    entity: EntitiesOption = None,
    frequency: Annotated[
        str | None, typer.Option(help="hourly or daily (default hourly at the creation minute).")
    ] = None,
    run_time: Annotated[
        str | None, typer.Option("--run-time", help="daily: HH:MM on the timezone's clock.")
    ] = None,
    minute: Annotated[int | None, typer.Option(help="hourly: the minute of the hour.")] = None,
    timezone: Annotated[str | None, typer.Option(help="IANA time zone (default UTC).")] = None,
    description: Annotated[str | None, typer.Option(help="A longer note.")] = None,
    as_json: JsonOption = False,
    base_url: BaseUrlOption = None,
    api_key: ApiKeyOption = None,
) -> None:
    """Create a monitor: a saved search the scheduler runs, capturing what matches."""
    search: dict[str, Any] = {"query": query}
    for key, value in (
        ("media_types", media_type),
        ("include_domains", include_domain),
        ("exclude_domains", exclude_domain),
        ("entity_ids", entity),
    ):
        if value:
            search[key] = value
    schedule = {
        key: value
        for key, value in (
            ("frequency", frequency),
            ("run_time", run_time),
            ("minute", minute),
            ("timezone", timezone),
        )
        if value is not None
    }
    with api_client(base_url, api_key) as client:
        monitor = client.monitors.create(
            name=name, search=search, schedule=schedule or None, description=description
        )
    if as_json:
        print_json(dump(monitor))
        return
    console.print(
        f"created monitor [bold]{escape(monitor.name)}[/] ({_schedule(monitor.schedule)}; "
        f"next run {monitor.next_run_at})"
    )
    stdout.print(monitor.id)


@app.command("show")
def show(
    monitor_id: MonitorId,
    as_json: JsonOption = False,
    base_url: BaseUrlOption = None,
    api_key: ApiKeyOption = None,
) -> None:
    """Show a monitor, its date ledger's summary and its latest runs."""
    with api_client(base_url, api_key) as client:
        monitor = client.monitors.get(monitor_id)
        ledger = client.monitors.ledger(monitor_id, limit=1)
        runs = client.monitors.runs(monitor_id, limit=10)
    if as_json:
        print_json(
            {
                "monitor": dump(monitor),
                "ledger": dump(ledger.summary),
                "runs": [dump(r) for r in runs.runs],
            }
        )
        return
    search = monitor.search
    lines = [
        f"[bold]{escape(monitor.name)}[/] {monitor.id} ({monitor.status})",
        f"query: {escape(search.query)}",
        *(
            f"{label}: {', '.join(values)}"
            for label, values in (
                ("media types", search.media_types),
                ("domains", search.include_domains),
                ("excluded domains", search.exclude_domains),
                ("entities", search.entity_ids),
            )
            if values
        ),
        f"schedule: {_schedule(monitor.schedule)}; next run {monitor.next_run_at}",
        _ledger_line(ledger.summary),
    ]
    for line in lines:
        stdout.print(line, highlight=False)
    table = Table(
        id_column("run"), "kind", "date", "status", "results", "finished", title="latest runs"
    )
    for run in runs.runs:
        table.add_row(
            run.run_id,
            run.kind,
            str(run.published_date or ""),
            run.status,
            "" if run.result_count is None else str(run.result_count),
            run.finished_at.isoformat() if run.finished_at else "",
        )
    print_table(table)


@app.command("run")
def run(
    monitor_id: MonitorId,
    wait: WaitOption = False,
    timeout: TimeoutOption = 600.0,
    as_json: JsonOption = False,
    base_url: BaseUrlOption = None,
    api_key: ApiKeyOption = None,
) -> None:
    """Run a monitor now: dated jobs for today and the three previous UTC days."""
    with api_client(base_url, api_key) as client:
        queued = client.monitors.run(monitor_id)
        _finish(client, monitor_id, queued, wait=wait, timeout=timeout, as_json=as_json)


@app.command("backfill")
def backfill(
    monitor_id: MonitorId,
    start_date: Annotated[
        str | None, typer.Option("--start-date", help="First published date, YYYY-MM-DD.")
    ] = None,
    end_date: Annotated[
        str | None,
        typer.Option("--end-date", help="Last published date (default: the start date)."),
    ] = None,
    date: Annotated[
        list[str] | None, typer.Option("--date", help="One published date (repeatable).")
    ] = None,
    skip_complete: Annotated[
        bool,
        typer.Option("--skip-complete", help="Leave out dates the monitor has fully searched."),
    ] = False,
    wait: WaitOption = False,
    timeout: TimeoutOption = 600.0,
    as_json: JsonOption = False,
    base_url: BaseUrlOption = None,
    api_key: ApiKeyOption = None,
) -> None:
    """Search past published dates (at most 100 per request) into the monitor's results."""
    dates = list(date or [])
    if start_date:
        try:
            first = dt.date.fromisoformat(start_date)
            last = dt.date.fromisoformat(end_date) if end_date else first
        except ValueError:
            console.print("[red]--start-date and --end-date must be dates: YYYY-MM-DD[/]")
            raise typer.Exit(2) from None
        span = (last - first).days + 1
        if not 1 <= span <= MAX_DATES:
            console.print(f"[red]--start-date to --end-date must cover 1 to {MAX_DATES} dates[/]")
            raise typer.Exit(2)
        dates += [(first + dt.timedelta(days=n)).isoformat() for n in range(span)]
    if not dates:
        console.print("[red]give --start-date (and --end-date) or --date[/]")
        raise typer.Exit(2)
    with api_client(base_url, api_key) as client:
        queued = client.monitors.backfill(
            monitor_id, dates=dates, skip_complete=skip_complete or None
        )
        _finish(client, monitor_id, queued, wait=wait, timeout=timeout, as_json=as_json)


@app.command("results")
def results(
    monitor_id: MonitorId,
    start_date: Annotated[
        str | None, typer.Option("--start-date", help="From this published date (inclusive).")
    ] = None,
    end_date: Annotated[
        str | None, typer.Option("--end-date", help="Through this published date (inclusive).")
    ] = None,
    limit: Annotated[int, typer.Option(min=1, help="At most this many results.")] = 100,
    as_json: JsonOption = False,
    base_url: BaseUrlOption = None,
    api_key: ApiKeyOption = None,
) -> None:
    """The monitor's captured results, newest published first."""
    with api_client(base_url, api_key) as client:
        pages = client.monitors.results_all(
            monitor_id, start_date=start_date, end_date=end_date, page_size=min(limit, 100)
        )
        found = list(islice(pages, limit))
    if as_json:
        print_json({"monitor_id": monitor_id, "results": [dump(r) for r in found]})
        return
    table = Table(
        id_column(), "published", "score", "source", "title", title=f"{len(found)} results"
    )
    for result in found:
        item = result.content_item
        table.add_row(
            item.id,
            result.published_date.isoformat(),
            "" if result.score is None else f"{result.score:.3f}",
            escape((item.source.domain if item.source else None) or ""),
            escape(item.title or ""),
        )
    print_table(table)


def _finish(
    client: herald_client.Client,
    monitor_id: str,
    queued: QueuedTask,
    *,
    wait: bool,
    timeout: float,
    as_json: bool,
) -> None:
    summary = queued.summary
    if not wait:
        if as_json:
            print_json(dump(queued))
            return
        console.print(
            f"queued {summary.queued} of {summary.requested} dates "
            f"({summary.already_complete} already complete, {summary.already_running} running)"
        )
        stdout.print(queued.task_id)
        return
    try:
        task = wait_for_task(
            lambda: client.monitors.task(monitor_id, queued.task_id), timeout=timeout
        )
    except TimeoutError as exc:
        console.print(
            f"[red]task {queued.task_id} still {exc} after {timeout:.0f} s[/]: is a worker "
            "running (`herald serve` or `herald worker`)?"
        )
        raise typer.Exit(1) from None
    if as_json:
        print_json(dump(task))
    else:
        done = task.summary
        new = sum(child.new_result_count or 0 for child in task.tasks)
        stdout.print(
            f"{task.status}: {done.succeeded} dates searched, {done.failed} failed, "
            f"{done.skipped} skipped; {new} new results"
        )
    if task.status == "failed":
        raise typer.Exit(1)


def _ledger_line(summary: LedgerSummary) -> str:
    return (
        f"dates: {summary.total} ({summary.succeeded} succeeded, {summary.running} running, "
        f"{summary.failed} failed, {summary.skipped} skipped)"
    )


def _schedule(schedule: Schedule) -> str:
    if schedule.frequency == "daily":
        return f"daily at {schedule.run_time} {schedule.timezone}"
    return f"hourly at minute {schedule.minute} ({schedule.timezone})"
