"""`herald ingest PATH...`: bulk import of files (polled feeds: :mod:`herald.cli.sources`)."""

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

from herald.cli.common import cli_runtime, console
from herald.ingest.model import SourceRef
from herald.ingest.pipeline import (
    PARALLEL_MIN_LINES,
    ingest_json_lines_parallel,
    ingest_outcomes,
    parse_document,
    read_document,
    wait_until_processed,
)
from herald.ingest.service import IngestReport
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
