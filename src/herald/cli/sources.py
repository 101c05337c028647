"""`herald sources ...`: feeds Herald polls on an interval."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from herald.cli.common import cli_runtime, console, id_column, print_table, refusal_exits, stdout
from herald.cli.source_poll import wait_for_poll
from herald.core.clock import isoformat_z
from herald.ingest.polling import request_poll
from herald.ingest.source_records import (
    SOURCE_FORMATS,
    SourceView,
    add_source,
    list_sources,
    parse_interval,
    remove_source,
    set_retention,
)

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
    with cli_runtime() as runtime, refusal_exits():
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
        with refusal_exits(), runtime.sessions.write() as session:
            asked = request_poll(session, source, clock=runtime.clock)
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
    with cli_runtime() as runtime, refusal_exits(), runtime.sessions.write() as session:
        view = set_retention(session, source, value, clock=runtime.clock)
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
    with cli_runtime() as runtime, refusal_exits(), runtime.sessions.write() as session:
        view = remove_source(session, source)
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
