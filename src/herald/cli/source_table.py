"""How `herald sources list` shows the sources: a table when it fits the terminal, else one
block of lines per source, so that no address, time or error is ever cut short."""

from __future__ import annotations

from rich.markup import escape
from rich.measure import Measurement
from rich.table import Table

from herald.cli.common import id_column, stdout
from herald.core.clock import isoformat_z
from herald.ingest.source_records import SourceView

UNBOUNDED = 100_000  # the width a table would take if nothing were wrapped or cut


def print_sources(views: list[SourceView]) -> None:
    table = Table(id_column(), "url", "type", "every", "next poll", "last success", "last error")
    for view in views:
        moved = f"\n(moved to {view.fetch_url})" if _moved(view) else ""
        table.add_row(
            view.id,
            escape(view.url + moved),
            view.media_type,
            f"{view.interval_seconds} s",
            isoformat_z(view.next_poll_at),
            _last_success(view),
            escape(_last_error(view)),
        )
    unbounded = stdout.options.update_width(UNBOUNDED)
    if Measurement.get(stdout, unbounded, table).maximum <= stdout.width:
        stdout.print(table)
        return
    for number, view in enumerate(views):
        lines = [
            f"[bold]{view.id}[/]  {view.media_type}, every {view.interval_seconds} s",
            f"  url:          {escape(view.url)}",
        ]
        if _moved(view):
            lines.append(f"  moved to:     {escape(view.fetch_url)}")
        lines += [
            f"  next poll:    {isoformat_z(view.next_poll_at)}",
            f"  last success: {_last_success(view)}",
        ]
        if view.last_error:
            lines.append(f"  last error:   {escape(_last_error(view))}")
        stdout.print(("\n" if number else "") + "\n".join(lines), highlight=False)


def _moved(view: SourceView) -> bool:
    return view.fetch_url != view.url


def _last_success(view: SourceView) -> str:
    return isoformat_z(view.last_success_at) if view.last_success_at else "never"


def _last_error(view: SourceView) -> str:
    if not view.last_error:
        return ""
    return f"{view.consecutive_failures} failed in a row: {view.last_error}"
