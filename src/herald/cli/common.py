"""What every CLI command shares: settings, logging, a runtime, console output, progress."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape
from rich.measure import Measurement
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Column, Table

from herald.config import Settings
from herald.errors import HeraldError
from herald.logging import configure_logging
from herald.runtime import Runtime

# Human-facing output goes to stderr so stdout stays clean for --json and piping.
console = Console(stderr=True)
stdout = Console(soft_wrap=True)

# The `--json` option of every command that prints data: one JSON document on stdout.
JsonOption = Annotated[bool, typer.Option("--json", help="Print the result as JSON on stdout.")]
# The content-search filters, as `herald search` and `herald monitors create|search` take them.
MediaTypesOption = Annotated[
    list[str] | None, typer.Option("--media-type", help="news, wire or podcast (repeatable).")
]
IncludeDomainsOption = Annotated[
    list[str] | None, typer.Option("--domain", help="Only these source domains (repeatable).")
]
ExcludeDomainsOption = Annotated[
    list[str] | None,
    typer.Option("--exclude-domain", help="Leave out these source domains (repeatable)."),
]
EntitiesOption = Annotated[
    list[str] | None, typer.Option("--entity", help="Linked to this entity id (repeatable).")
]


def load_settings() -> Settings:
    return Settings()


def settings_error_lines(exc: ValidationError) -> list[str]:
    """One line per invalid setting: its variable and the rule it breaks (the settings quote no
    input, so no password is printed)."""
    lines = []
    for error in exc.errors(include_url=False, include_input=False):
        message = error["msg"].removeprefix("Value error, ")
        if error["loc"]:
            message = f"HERALD_{str(error['loc'][0]).upper()}: {message}"
        lines.append(message)
    return lines


@contextmanager
def cli_runtime(*, quiet_logs: bool = True, settings: Settings | None = None) -> Iterator[Runtime]:
    settings = settings or load_settings()
    level = "WARNING" if quiet_logs else settings.log_level
    configure_logging(level, settings.log_format if not sys.stderr.isatty() else "text")
    runtime = Runtime(settings)
    try:
        yield runtime
    finally:
        runtime.close()


def progress() -> Progress:
    """A progress display on stderr, shown only on a terminal (logs and pipes stay clean)."""
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=not console.is_terminal,
        disable=not console.is_terminal,
    )


def id_column(header: str = "id") -> Column:
    """A table column of ids, never cut short with an ellipsis: on a narrow terminal the other
    columns wrap instead, so an id can be copied into the next command."""
    return Column(header, no_wrap=True)


UNBOUNDED = 100_000  # a width at which a table is measured as it would be with nothing cut


def print_table(table: Table) -> None:
    """A table on stdout when it fits the terminal; otherwise each row as a block of lines (its
    first cell, then ``header: value`` for every other cell that has one) under the table's
    title, so that no address, time or error is cut short with an ellipsis on a narrow
    terminal."""
    unbounded = stdout.options.update_width(UNBOUNDED)
    if Measurement.get(stdout, unbounded, table).maximum <= stdout.width:
        stdout.print(table)
        return
    if table.title:
        stdout.print(table.title, highlight=False)
    headers = [f"{column.header}:" for column in table.columns[1:]]
    pad = max((len(header) for header in headers), default=0) + 1
    cells = [list(column.cells) for column in table.columns]
    for row in range(table.row_count):
        lines = [f"[bold]{cells[0][row]}[/]"]
        for header, column in zip(headers, cells[1:], strict=True):
            first, *more = str(column[row]).split("\n")
            if first or more:
                lines.append(f"  {header:<{pad}}{first}")
                lines += [" " * (pad + 2) + line for line in more]
        stdout.print(("\n" if row else "") + "\n".join(lines), highlight=False)


def print_refusal(exc: HeraldError) -> None:
    """A refused command on stderr as the API words it: the code, the message and each field's
    issue (which often names what to do next, such as the source that already fetches a feed)."""
    console.print(f"[red]{exc.code}[/]: {escape(exc.message)}")
    for detail in exc.details:
        console.print(f"  {escape(detail.field)}: {escape(detail.message)}")


@contextmanager
def refusal_exits() -> Iterator[None]:
    """Inside it, a refused command (:class:`HeraldError`) prints as :func:`print_refusal` and
    exits with status 1."""
    try:
        yield
    except HeraldError as exc:
        print_refusal(exc)
        raise typer.Exit(1) from None


def print_json(payload: Any) -> None:
    """One JSON document on stdout, plain (no colours), for scripts and `jq`."""
    print(json.dumps(payload, default=str))
