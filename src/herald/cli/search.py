"""`herald search "QUERY" [filters]` and `herald index rebuild|status`."""

from __future__ import annotations

import json
import time
from dataclasses import asdict
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Column, Table

from herald.cli.common import (
    EntitiesOption,
    ExcludeDomainsOption,
    IncludeDomainsOption,
    JsonOption,
    MediaTypesOption,
    cli_runtime,
    console,
    id_column,
    print_json,
    print_table,
    progress,
    refusal_exits,
    stdout,
)
from herald.content.repository import get_items
from herald.core.clock import isoformat_z
from herald.search.request import DEFAULT_LIMIT, build_content_search
from herald.search.service import discard_unusable_index, get_search
from herald.search.status import IndexStatus, index_status

index_app = typer.Typer(help="The search index.", no_args_is_help=True)


def search(
    query: Annotated[str, typer.Argument(help='Search text; supports "phrases", -word, OR.')],
    start_date: Annotated[
        str | None, typer.Option("--start-date", help="YYYY-MM-DD or datetime (with --end-date).")
    ] = None,
    end_date: Annotated[
        str | None, typer.Option("--end-date", help="Inclusive; at most 60 days after the start.")
    ] = None,
    media_type: MediaTypesOption = None,
    include_domain: IncludeDomainsOption = None,
    exclude_domain: ExcludeDomainsOption = None,
    entity: EntitiesOption = None,
    limit: Annotated[int, typer.Option(help="At most this many results (1-100).")] = DEFAULT_LIMIT,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")] = False,
) -> None:
    """Search content like POST /v1/content/search and print the results as a table.

    Without dates the window is the last 60 days through today (UTC).
    """
    with cli_runtime() as runtime:
        with refusal_exits():
            request = build_content_search(
                query=query,
                start_date=start_date,
                end_date=end_date,
                media_types=media_type,
                include_domains=include_domain,
                exclude_domains=exclude_domain,
                entity_ids=entity,
                limit=limit,
                clock=runtime.clock,
            )
        started = time.perf_counter()
        with runtime.sessions.read() as session:
            hits = get_search(runtime).search(session, request)
            items = get_items(session, [h.content_id for h in hits])
        elapsed = (time.perf_counter() - started) * 1000
    rows = [(h.score, items[h.content_id]) for h in hits if h.content_id in items]
    if as_json:
        out = [
            {
                "score": score,
                "id": item.id,
                "published_date": isoformat_z(item.published_at),
                "media_type": item.media_type,
                "source": item.source_domain,
                "title": item.title,
            }
            for score, item in rows
        ]
        stdout.print_json(json.dumps({"results": out}))
        return
    table = Table(
        id_column(),
        Column("score", justify="right"),
        "published",
        "type",
        "source",
        "title",
        title=f"{len(rows)} results for {escape(repr(query))} ({elapsed:.0f} ms)",
        expand=False,
    )
    for score, item in rows:
        table.add_row(
            item.id,
            f"{score:.3f}",
            isoformat_z(item.published_at)[:10],
            item.media_type,
            escape(item.source_domain),
            escape(item.title),
        )
    print_table(table)


@index_app.command("rebuild")
def rebuild(as_json: JsonOption = False) -> None:
    """Empty the search index and rebuild it from the database (safe while serving)."""
    with cli_runtime() as runtime, progress() as bar:
        if discard_unusable_index(runtime):
            console.print("the old index could not be opened by this version: replaced")
        search = get_search(runtime)
        started = time.monotonic()
        task = bar.add_task("emptying the index", total=3)
        search.index.clear()
        with runtime.sessions.read() as session:
            bar.update(task, description="indexing text (shared index)", completed=1)
            applied = search.catch_up(session, shared_only=True)
            bar.update(task, description="indexing vectors", completed=2)
            applied = max(applied, search.catch_up(session))
        bar.update(task, description="saving", completed=2)
        search.persist()
        bar.update(task, description="done", completed=3)
        elapsed = time.monotonic() - started
    if as_json:
        print_json({"backend": search.backend, "items": applied, "seconds": round(elapsed, 3)})
        return
    stdout.print(f"rebuilt the {search.backend} search index: {applied} items in {elapsed:.1f} s")


@index_app.command("status")
def status(as_json: JsonOption = False) -> None:
    """Show how far the search index is behind the database, changing neither.

    Pending changes are normal while nothing searches: a running server applies them at its
    next search, `herald index rebuild` at once. Per-process vector graphs are not shown (each
    process catches its own up when it starts). It says when the index must be rebuilt: built
    from a newer state of the database (a restore), or too old, having missed deletions whose
    record is older than HERALD_HISTORY_DAYS. It names the identity of the database the index
    was built from and whether it is this one (an index built from another is rebuilt by the
    next search or indexing job).
    """
    with cli_runtime() as runtime:
        found = index_status(runtime)
    if as_json:
        print_json(
            {**asdict(found), "current": found.current, "same_database": found.same_database}
        )
        return
    _print_status(found)
    stdout.print(_identity_line(found))


def _identity_line(found: IndexStatus) -> str:
    if found.database is None:
        return "database identity unknown (migrations pending: run `herald db upgrade`)"
    if found.built_from is None:
        return (
            f"database {found.database}; the index records none yet (the next search or "
            "indexing job records it)"
        )
    if found.same_database:
        return f"built from this database ({found.database})"
    return f"built from database {found.built_from}, not this one ({found.database})"


def _print_status(found: IndexStatus) -> None:
    if found.problem:
        stdout.print(f"{found.backend} search index cannot be used: {escape(found.problem)}")
    elif not found.exists:
        stdout.print(
            f"no {found.backend} search index yet: the first search or `herald index rebuild` "
            f"builds it ({found.pending} items to index)"
        )
    elif found.current:
        stdout.print(
            f"{found.backend} search index is current (change {found.applied_seq} applied)"
        )
    else:
        stdout.print(
            f"{found.backend} search index is {found.pending} changed items behind the database "
            f"(applied change {found.applied_seq} of {found.latest_seq}); the next search "
            "applies them"
        )
