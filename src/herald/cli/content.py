"""`herald content delete|allow|purge|deletions`: deleting content for good (docs/operations.md)."""

from __future__ import annotations

import getpass
from datetime import UTC, date, datetime
from typing import Annotated

import typer
from rich.markup import escape

from herald.cli.common import JsonOption, cli_runtime, console, print_json, progress, stdout
from herald.content.deletion import (
    ContentSelector,
    DeletionReport,
    count_matching,
    delete_content,
    recent_deletions,
)
from herald.content.purge import PurgeReport, purge_files
from herald.content.retention import apply_retention
from herald.content.tombstones import count_tombstones, lift_tombstones, tombstones_of
from herald.core.clock import isoformat_z
from herald.ingest.urls import InvalidUrl, canonical_forms, canonical_url, normalise_domain
from herald.runtime import Runtime

app = typer.Typer(help="Delete content for good, and compact the files it leaves.")

NoPurgeOption = Annotated[
    bool,
    typer.Option(
        "--no-purge",
        help="Skip the compaction (`herald content purge`) after deleting: the items are gone "
        "from every read at once, their text stays in free space of the files until a purge.",
    ),
]


def actor() -> str:
    """Who runs the command, as the deletion record names them."""
    try:
        return f"cli:{getpass.getuser()}"
    except (KeyError, OSError):  # no user name for this uid (a bare container)
        return "cli"


def parse_before(value: str) -> datetime:
    """A date (midnight UTC) or an ISO 8601 timestamp (UTC when it has no offset)."""
    text = value.strip()
    try:
        if len(text) == 10:
            day = date.fromisoformat(text)
            return datetime(day.year, day.month, day.day, tzinfo=UTC)
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise typer.BadParameter(
            f"{value!r} is not a date (YYYY-MM-DD) or an ISO 8601 timestamp",
            param_hint="--published-before",
        ) from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _selector(
    content_id: str | None, url: str | None, domain: str | None, before: str | None
) -> ContentSelector:
    given = [
        name
        for name, value in (("ID", content_id), ("--url", url), ("--source-domain", domain))
        if value
    ]
    if len(given) != 1:
        raise typer.BadParameter("give exactly one of ID, --url or --source-domain")
    if before is not None and domain is None:
        raise typer.BadParameter("--published-before goes with --source-domain")
    if url is not None:
        urls = [url]
        try:
            urls.append(canonical_url(url))
        except InvalidUrl as exc:
            raise typer.BadParameter(str(exc), param_hint="--url") from None
        return ContentSelector(urls=tuple(dict.fromkeys(urls)))
    if domain is not None:
        try:
            normalised = normalise_domain(domain)
        except InvalidUrl as exc:
            raise typer.BadParameter(str(exc), param_hint="--source-domain") from None
        return ContentSelector(
            source_domain=normalised,
            published_before=None if before is None else parse_before(before),
        )
    return ContentSelector(content_id=content_id)


@app.command("delete")
def delete(
    content_id: Annotated[str | None, typer.Argument(help="The content item's id.")] = None,
    url: Annotated[str | None, typer.Option("--url", help="The item's URL.")] = None,
    source_domain: Annotated[
        str | None,
        typer.Option("--source-domain", help="Every item of this source domain (e.g. bbc.co.uk)."),
    ] = None,
    published_before: Annotated[
        str | None,
        typer.Option(
            "--published-before",
            help="With --source-domain: only items published before this date (YYYY-MM-DD, "
            "midnight UTC) or time (ISO 8601).",
        ),
    ] = None,
    yes: Annotated[
        bool, typer.Option("--yes", help="Delete. Without it, only count what would go.")
    ] = False,
    no_purge: NoPurgeOption = False,
    as_json: JsonOption = False,
) -> None:
    """Delete content items for good (a dry run that counts them unless --yes).

    The items leave every read at once (item, search, entity timelines, story clusters, monitor
    results and feeds); then the files are compacted so no file under HERALD_HOME keeps their
    text. The deletion is recorded (who, when, which selector, how many), never the content.
    Polls and imports skip the deleted items from then on (see `herald content allow`).
    """
    selector = _selector(content_id, url, source_domain, published_before)
    with cli_runtime() as runtime:
        if not yes:
            with runtime.sessions.read() as session:
                matching = count_matching(session, selector)
            if as_json:
                print_json({"dry_run": True, "matching": matching, "selector": selector.describe()})
            else:
                stdout.print(
                    f"would delete {matching} item(s); run again with --yes to delete"
                    if matching
                    else "no item matches: nothing to delete"
                )
            return
        report = _delete(runtime, selector)
        purged = None if no_purge or report.deleted == 0 else purge_files(runtime)
    _print_outcome(report, purged, as_json=as_json)


def _delete(runtime: Runtime, selector: ContentSelector) -> DeletionReport:
    with runtime.sessions.read() as session:
        total = count_matching(session, selector)
    with progress() as bar:
        task = bar.add_task("deleting", total=total)
        return delete_content(
            runtime.sessions,
            selector,
            actor=actor(),
            clock=runtime.clock,
            on_batch=lambda n: bar.advance(task, n),
        )


def _print_outcome(report: DeletionReport, purged: PurgeReport | None, *, as_json: bool) -> None:
    if as_json:
        print_json(
            {
                "dry_run": False,
                "deletion_id": report.deletion_id,
                "deleted": report.deleted,
                "clusters_changed": report.clusters_changed,
                "clusters_removed": report.clusters_removed,
                "purge": None if purged is None else _purge_json(purged),
            }
        )
        return
    stdout.print(
        f"deleted {report.deleted} item(s)"
        + (f" (deletion {report.deletion_id})" if report.deletion_id else "")
        + f"; {report.clusters_changed} story cluster(s) updated, "
        f"{report.clusters_removed} removed"
    )
    if purged is not None:
        _print_purge(purged)
    elif report.deleted:
        console.print("[yellow]not compacted: run `herald content purge`[/]")


def _purge_json(report: PurgeReport) -> dict[str, object]:
    return {
        "index_items": report.index_items,
        "vacuumed": report.vacuumed,
        "checkpoint_complete": report.checkpoint_complete,
    }


def _print_purge(report: PurgeReport) -> None:
    if report.index_items is not None:
        stdout.print(f"search index rewritten: {report.index_items} item(s)")
    if report.vacuumed:
        stdout.print("database compacted (VACUUM)")
    if not report.checkpoint_complete:
        console.print(
            "[yellow]the write-ahead log is still in use by another process: run "
            "`herald content purge` again when it is idle[/]"
        )


@app.command("allow")
def allow(
    url: Annotated[
        str | None, typer.Option("--url", help="The deleted item's URL (as given or canonical).")
    ] = None,
    deletion: Annotated[
        str | None,
        typer.Option("--deletion", help="Every item of this deletion (its id, `del_...`)."),
    ] = None,
    yes: Annotated[
        bool, typer.Option("--yes", help="Lift the tombstones. Without it, only count them.")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Let deleted items be ingested again (a dry run that counts tombstones unless --yes).

    A deletion by an operator leaves a tombstone of each item, so polls and imports skip it
    while its source still lists it. This lifts the tombstone of a URL, or every tombstone of a
    deletion; the items come back at the next poll or import that lists them.
    """
    if (url is None) == (deletion is None):
        raise typer.BadParameter("give exactly one of --url or --deletion")
    canonicals: tuple[str, ...] = ()
    if url is not None:
        try:
            canonicals = canonical_forms(url)
        except InvalidUrl as exc:
            raise typer.BadParameter(str(exc), param_hint="--url") from None
    selector = {"url": url} if url is not None else {"deletion_id": deletion}
    which = tombstones_of(canonicals=canonicals, deletion_id=deletion)
    with cli_runtime() as runtime:
        if not yes:
            with runtime.sessions.read() as session:
                matching = count_tombstones(session, which)
            if as_json:
                print_json({"dry_run": True, "matching": matching, "selector": selector})
            else:
                stdout.print(
                    f"would lift {matching} tombstone(s); run again with --yes to allow "
                    "the item(s) again"
                )
            return
        with runtime.sessions.write() as session:
            lifted = lift_tombstones(session, which)
    if as_json:
        print_json({"dry_run": False, "allowed": lifted, "selector": selector})
        return
    stdout.print(
        f"lifted {lifted} tombstone(s): the next poll or import that lists the item(s) stores them"
    )


@app.command("purge")
def purge(as_json: JsonOption = False) -> None:
    """Compact the files so deleted items' text leaves the disk.

    Rewrites this machine's search index from the database and, on SQLite, rewrites the
    database (VACUUM) and empties its write-ahead log. Safe while serving; run it on every
    machine that keeps a search index under its HERALD_HOME.
    """
    with cli_runtime() as runtime:
        report = purge_files(runtime)
    if as_json:
        print_json(_purge_json(report))
        return
    _print_purge(report)


@app.command("retention")
def retention(no_purge: NoPurgeOption = False, as_json: JsonOption = False) -> None:
    """Apply the retention policy now and print what it removed.

    Deletes, exactly as `herald content delete` does, the items published more than
    HERALD_RETENTION_DAYS days ago, or a source's own `retention_days` for its items (0 keeps
    them forever). The daily retention job does the same without the compaction.
    """
    with cli_runtime() as runtime:
        outcomes = apply_retention(
            runtime.sessions, default_days=runtime.settings.retention_days, clock=runtime.clock
        )
        deleted = sum(o.deleted for o in outcomes)
        purged = None if no_purge or deleted == 0 else purge_files(runtime)
    scopes = [
        {
            "source_id": o.scope.source_id,
            "days": o.scope.days,
            "published_before": isoformat_z(o.scope.cutoff),
            "deleted": o.deleted,
            "deletion_id": o.deletion_id,
        }
        for o in outcomes
    ]
    if as_json:
        print_json(
            {
                "deleted": deleted,
                "scopes": scopes,
                "purge": None if purged is None else _purge_json(purged),
            }
        )
        return
    if not scopes:
        stdout.print("no retention policy: HERALD_RETENTION_DAYS is 0 and no source sets one")
        return
    for scope in scopes:
        which = "all items" if scope["source_id"] is None else f"source {scope['source_id']}"
        stdout.print(
            f"{which}: {scope['deleted']} item(s) published before "
            f"{scope['published_before']} deleted ({scope['days']} days)"
        )
    if purged is not None:
        _print_purge(purged)
    elif deleted:
        console.print("[yellow]not compacted: run `herald content purge`[/]")


@app.command("deletions")
def deletions(
    limit: Annotated[int, typer.Option("--limit", min=1, max=1000)] = 20,
    as_json: JsonOption = False,
) -> None:
    """The latest deletions: who, when, which selector, how many (never the content)."""
    with cli_runtime() as runtime, runtime.sessions.read() as session:
        rows = recent_deletions(session, limit)
    records = [
        {
            "id": row.id,
            "actor": row.actor,
            "reason": row.reason,
            "selector": row.selector,
            "deleted_count": row.deleted_count,
            "status": row.status,
            "started_at": isoformat_z(row.started_at),
            "finished_at": None if row.finished_at is None else isoformat_z(row.finished_at),
        }
        for row in rows
    ]
    if as_json:
        print_json({"deletions": records})
        return
    for record in records:
        stdout.print(
            f"{record['started_at']}  {record['id']}  {escape(str(record['actor']))}  "
            f"{record['reason']}  {record['deleted_count']}  {record['status']}  "
            f"{escape(str(record['selector']))}"
        )
