"""`herald ingest PATH...` and `herald sources ...`: bulk import and polled sources."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from herald.cli.common import cli_runtime, console, id_column, print_refusal, print_table, stdout
from herald.cli.source_poll import wait_for_poll
from herald.core.clock import isoformat_z
from herald.errors import HeraldError
from herald.ingest.model import SourceRef
from herald.ingest.pipeline import (
    PARALLEL_MIN_LINES,
    ingest_json_lines_parallel,
    ingest_outcomes,
    parse_document,
    read_document,
    wait_until_processed,
)
from herald.ingest.polling import request_poll
from herald.ingest.service import IngestReport
from herald.ingest.source_records import (
    SOURCE_FORMATS,
    SourceView,
    add_source,
    list_sources,
    parse_interval,
    remove_source,
    set_retention,
)
from herald.ingest.sources.detect import UnknownFormat, detect_format
from herald.ingest.tasks import get_fetcher
from herald.ingest.urls import InvalidUrl, normalise_domain
from herald.jobs.registry import lanes
from herald.jobs.worker import Worker

FORMATS = ("auto", "jsonl", "rss", "ninjs", "jsonfeed")
EXIT_REJECTED = 2  # everything readable was stored, but some entries were rejected


def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files to ingest (.gz is decompressed).")],
    format_name: Annotated[
        str,
        typer.Option(
            "--format", help="auto, jsonl, rss, ninjs or jsonfeed (auto: by name/content)."
        ),
    ] = "auto",
    fetch: Annotated[
        bool,
        typer.Option(
            help="Fetch article pages for teaser-only feeds and podcast transcripts.",
        ),
    ] = True,
    wait: Annotated[
        bool,
        typer.Option(
            help="Enrich and index before exiting (then every accepted item is searchable)."
        ),
    ] = True,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the summary as JSON on stdout.")
    ] = False,
    source_domain: Annotated[
        str | None,
        typer.Option(
            help="Source domain of the items of feeds, JSON Feeds and ninjs files (default: "
            "what each document says). JSON Lines items carry their own."
        ),
    ] = None,
    source_name: Annotated[
        str | None, typer.Option(help="Source name with --source-domain (default: the domain).")
    ] = None,
) -> None:
    """Ingest files in the JSON Lines format, RSS/Atom (incl. podcast feeds), JSON Feed or ninjs.

    Bad entries are reported with their line (or entry) number and reason; every other entry is
    stored. Exits 0 when all entries were accepted, 2 when some were rejected, 1 on errors.
    Works while `herald serve` runs on the same HERALD_HOME.
    """
    if format_name not in FORMATS:
        console.print(f"[red]--format must be one of {', '.join(FORMATS)}[/]")
        raise typer.Exit(1)
    source = None
    if source_domain or source_name:
        try:
            domain = normalise_domain(source_domain or "")
        except InvalidUrl as exc:
            console.print(f"[red]--source-domain: {escape(str(exc))}[/]")
            raise typer.Exit(1) from None
        source = SourceRef(name=(source_name or "").strip() or domain, domain=domain)
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        console.print(f"[red]not a file: {', '.join(missing)}[/]")
        raise typer.Exit(1)
    report = IngestReport()
    with cli_runtime() as runtime:
        fetcher = get_fetcher(runtime) if fetch else None
        with Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=not console.is_terminal,
            disable=not console.is_terminal,
        ) as progress:
            for path in paths:
                document = read_document(path, source=source)
                if not document.content.strip(b"\xef\xbb\xbf \t\r\n"):
                    console.print(f"[red]{escape(str(path))} is empty: nothing to ingest[/]")
                    raise typer.Exit(1)
                total = (
                    document.content.count(b"\n") + 1 if format_name in ("jsonl", "auto") else None
                )
                task = progress.add_task(path.name, total=total)

                def advance(count: int, task_id: TaskID = task) -> None:
                    progress.advance(task_id, count)

                file_report = IngestReport()
                try:
                    chosen = format_name
                    if chosen == "auto":
                        chosen = detect_format(document.content, document.origin)
                    lines = document.content.count(b"\n")
                    workers = min(4, os.cpu_count() or 1)
                    if chosen == "jsonl" and lines >= PARALLEL_MIN_LINES and workers > 1:
                        # Big files: parse and fingerprint in other processes while this stores.
                        ingest_json_lines_parallel(
                            runtime.sessions,
                            document.content,
                            clock=runtime.clock,
                            workers=workers,
                            report=file_report,
                            on_progress=advance,
                        )
                    else:
                        outcomes = parse_document(
                            document, format_name=chosen, clock=runtime.clock, fetcher=fetcher
                        )
                        ingest_outcomes(
                            runtime.sessions,
                            outcomes,
                            clock=runtime.clock,
                            report=file_report,
                            on_progress=advance,
                        )
                except UnknownFormat as exc:
                    console.print(f"[red]{escape(str(exc))}[/]")
                    raise typer.Exit(1) from None
                fatal = next((e for e in file_report.rejected if e.location == "document"), None)
                if fatal is not None:
                    # Not a document of the format at all: an error, not a rejected entry.
                    console.print(f"[red]{escape(str(path))}: {escape(fatal.reason)}[/]")
                    raise typer.Exit(1)
                report.merge(file_report)
                progress.update(task, total=progress.tasks[task].completed)
            if wait and report.changed_ids:
                task = progress.add_task("enriching and indexing", total=None)
                worker = Worker(runtime)
                wait_until_processed(
                    runtime.sessions, work=lambda: sum(worker.drain(lane) for lane in lanes())
                )
                progress.update(task, total=1, completed=1)
    _print_report(report, as_json=as_json)
    if report.rejected:
        raise typer.Exit(EXIT_REJECTED)


def _print_report(report: IngestReport, *, as_json: bool) -> None:
    summary = report.summary(max_messages=1000)
    if as_json:
        print(json.dumps(summary))
        return
    console.print(
        f"accepted {report.accepted}, updated {report.updated}, "
        f"duplicates {report.duplicates}, rejected {len(report.rejected)}"
        + (f", skipped {report.tombstoned} deleted by an operator" if report.tombstoned else "")
        + (f" ({report.syndicated} joined an existing article)" if report.syndicated else "")
    )
    for error in report.rejected[:50]:
        console.print(f"  [red]rejected[/] {escape(str(error))}", soft_wrap=True)
    if len(report.rejected) > 50:
        console.print(f"  ... and {len(report.rejected) - 50} more (use --json for all)")
    for warning in report.warnings[:20]:
        console.print(f"  [yellow]warning[/] {escape(str(warning))}", soft_wrap=True)


sources_app = typer.Typer(help="Feeds Herald polls on an interval.", no_args_is_help=True)


@sources_app.command("add")
def sources_add(
    url: Annotated[str, typer.Argument(help="The feed URL.")],
    media_type: Annotated[str, typer.Option(help="news, wire or podcast.")],
    interval: Annotated[
        str | None, typer.Option(help="Polling interval: seconds or 90s/15m/2h/1d (default 15m).")
    ] = None,
    format_name: Annotated[
        str, typer.Option("--format", help=f"{', '.join(SOURCE_FORMATS)}.")
    ] = "rss",
    name: Annotated[
        str | None, typer.Option(help="Source name shown on items (default: the feed's).")
    ] = None,
    domain: Annotated[
        str | None, typer.Option(help="Source domain of items (default: each link's).")
    ] = None,
    retention_days: Annotated[
        int | None,
        typer.Option(
            "--retention-days",
            help="Days its items are kept (0: forever; default: HERALD_RETENTION_DAYS).",
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the source as JSON on stdout.")
    ] = False,
) -> None:
    """Add a source; a running worker polls it within a minute, then on its interval."""
    with cli_runtime() as runtime:
        try:
            seconds = parse_interval(interval) if interval else runtime.settings.source_poll_seconds
            with runtime.sessions.write() as session:
                view = add_source(
                    session,
                    url=url,
                    media_type=media_type,
                    clock=runtime.clock,
                    interval_seconds=seconds,
                    format_name=format_name,
                    name=name,
                    domain=domain,
                    retention_days=retention_days,
                )
        except HeraldError as exc:
            print_refusal(exc)
            raise typer.Exit(1) from None
    if as_json:
        print(json.dumps(source_json(view)))
        return
    console.print(
        f"added source [bold]{view.id}[/] ({view.media_type}, every {view.interval_seconds} s)"
    )
    stdout.print(view.id)


@sources_app.command("list")
def sources_list(
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the sources as JSON on stdout.")
    ] = False,
) -> None:
    """List sources with their schedule and last error."""
    with cli_runtime() as runtime, runtime.sessions.read() as session:
        views = list_sources(session)
    if as_json:
        print(json.dumps([source_json(v) for v in views]))
        return
    if not views:
        stdout.print("no sources yet: `herald sources add URL --media-type news` adds a feed")
        return
    table = Table(id_column(), "url", "type", "every", "next poll", "last success", "last error")
    for view in views:
        moved = f"\n(moved to {view.fetch_url})" if view.fetch_url != view.url else ""
        failing = f"{view.consecutive_failures} failed in a row: " if view.last_error else ""
        table.add_row(
            view.id,
            escape(view.url + moved),
            view.media_type,
            f"{view.interval_seconds} s",
            isoformat_z(view.next_poll_at),
            isoformat_z(view.last_success_at) if view.last_success_at else "never",
            escape(failing + (view.last_error or "")),
        )
    print_table(table)


_POLL_SAID = {
    "queued": "poll of source {id} queued: a running `herald serve` or `herald worker` fetches "
    "it within seconds; `herald sources list` shows how it went",
    "already_queued": "a poll of source {id} is queued already: it runs once",
    "already_running": "source {id} is being polled now; `herald sources list` shows how it went",
}


@sources_app.command("poll")
def sources_poll(
    source: Annotated[str, typer.Argument(help="Source id or feed URL.")],
    as_json: Annotated[
        bool,
        typer.Option("--json", help='Print {"poll": ..., "source": ...} as JSON on stdout.'),
    ] = False,
    wait: Annotated[
        bool, typer.Option("--wait", help="Wait until the poll has run and say how it went.")
    ] = False,
    timeout: Annotated[
        float, typer.Option(min=1, help="With --wait: give up after this many seconds.")
    ] = 120.0,
) -> None:
    """Poll a source now instead of at its next slot (once, even if asked twice). With --wait,
    exits 1 when the poll failed or has not run within the timeout."""
    with cli_runtime() as runtime:
        try:
            with runtime.sessions.write() as session:
                asked = request_poll(session, source, clock=runtime.clock)
        except HeraldError as exc:
            print_refusal(exc)
            raise typer.Exit(1) from None
        if as_json:
            print(json.dumps({"poll": asked.poll, "source": source_json(asked.source)}))
        else:
            console.print(_POLL_SAID[asked.poll].format(id=asked.source.id))
        if wait:
            raise typer.Exit(wait_for_poll(runtime, asked.source.id, timeout=timeout))


@sources_app.command("retention")
def sources_retention(
    source: Annotated[str, typer.Argument(help="Source id or feed URL.")],
    days: Annotated[
        str,
        typer.Argument(
            help="Days its items are kept (0: forever), or `default` to follow "
            "HERALD_RETENTION_DAYS."
        ),
    ],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the source as JSON on stdout.")
    ] = False,
) -> None:
    """Set how long a source's items are kept (applied by the daily retention job)."""
    if days.strip().lower() == "default":
        value = None
    elif days.strip().isdigit():
        value = int(days)
    else:
        raise typer.BadParameter("a number of days, or `default`", param_hint="DAYS")
    with cli_runtime() as runtime:
        try:
            with runtime.sessions.write() as session:
                view = set_retention(session, source, value, clock=runtime.clock)
        except HeraldError as exc:
            print_refusal(exc)
            raise typer.Exit(1) from None
    if as_json:
        print(json.dumps(source_json(view)))
        return
    kept = (
        "as HERALD_RETENTION_DAYS"
        if value is None
        else ("forever" if value == 0 else f"{value} days")
    )
    console.print(f"source {view.id} keeps its items {kept}")


@sources_app.command("remove")
def sources_remove(
    source: Annotated[str, typer.Argument(help="Source id or feed URL.")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the removed source as JSON on stdout.")
    ] = False,
) -> None:
    """Remove a source (its items stay)."""
    with cli_runtime() as runtime:
        try:
            with runtime.sessions.write() as session:
                view = remove_source(session, source)
        except HeraldError as exc:
            print_refusal(exc)
            raise typer.Exit(1) from None
    if as_json:
        print(json.dumps(source_json(view)))
        return
    console.print(f"removed source {view.id} ({view.url}); its items stay")


def source_json(view: SourceView) -> dict[str, object]:
    return {
        "id": view.id,
        "url": view.url,
        "fetch_url": view.fetch_url,
        "media_type": view.media_type,
        "format": view.format,
        "name": view.name,
        "domain": view.domain,
        "interval_seconds": view.interval_seconds,
        "enabled": view.enabled,
        "next_poll_at": isoformat_z(view.next_poll_at),
        "last_polled_at": isoformat_z(view.last_polled_at) if view.last_polled_at else None,
        "last_success_at": isoformat_z(view.last_success_at) if view.last_success_at else None,
        "last_error": view.last_error,
        "last_error_at": isoformat_z(view.last_error_at) if view.last_error_at else None,
        "consecutive_failures": view.consecutive_failures,
        "last_report": view.last_report,
        "retention_days": view.retention_days,
        "created_at": isoformat_z(view.created_at),
    }
