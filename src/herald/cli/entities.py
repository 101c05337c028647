"""`herald entities import FILE`, `seed` and `review`: the entity knowledge base."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Annotated, cast

import typer
from rich.markup import escape
from rich.table import Table

from herald.cli.common import (
    JsonOption,
    cli_runtime,
    console,
    id_column,
    print_json,
    print_table,
    progress,
    stdout,
)
from herald.entities import staging
from herald.entities.jsonl import parse_entity_lines
from herald.entities.model import ENTITY_KINDS, EntityKind
from herald.entities.service import import_records, open_entity_file, seed_knowledge_base
from herald.entities.wikidata import (
    DEFAULT_CLASSES,
    WikidataFilter,
    is_wikidata_dump,
    read_wikidata,
)
from herald.errors import NotFound

app = typer.Typer(help="The entity knowledge base.", no_args_is_help=True)


@app.command("import")
def import_file(
    file: Annotated[
        Path,
        typer.Argument(
            exists=True,
            dir_okay=False,
            help="JSON Lines (.jsonl, .jsonl.gz) or a Wikidata JSON dump (.json, .gz, .bz2).",
        ),
    ],
    file_format: Annotated[
        str, typer.Option("--format", help="auto (from the file's first line), jsonl or wikidata.")
    ] = "auto",
    min_sitelinks: Annotated[
        int,
        typer.Option(
            "--min-sitelinks",
            min=0,
            help="Wikidata: keep entities with at least this many site links.",
        ),
    ] = 0,
    language: Annotated[
        str,
        typer.Option(
            "--language", help="Wikidata: the language of labels, aliases and Wikipedia titles."
        ),
    ] = "en",
    classes: Annotated[
        list[str] | None,
        typer.Option(
            "--class",
            help="Wikidata: keep instances of this class as KIND (Q5=person, Q515=place:city); "
            "repeat it; replaces the default classes.",
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Import entities; an entity with the same id is replaced.

    Herald's JSON Lines format, or Wikidata's JSON dump (streamed, compressed or not), filtered by
    class ("instance of") and site links. Bad lines are reported with their line number and
    skipped; the other lines are imported. An entity linking had discovered on its own that is
    now imported (the same name and kind) is merged into it: its content links move and its id
    answers for the imported one. Run `herald enrich --rebuild` afterwards to link existing
    content to the new entities.
    """
    if file_format not in ("auto", "jsonl", "wikidata"):
        raise typer.BadParameter("must be auto, jsonl or wikidata", param_hint="--format")
    wanted = WikidataFilter(
        classes=parse_classes(classes) if classes else DEFAULT_CLASSES,
        min_sitelinks=min_sitelinks,
        language=language,
    )
    with (
        cli_runtime() as runtime,
        open_entity_file(file) as handle,
        progress() as bar,
        runtime.sessions.write() as session,
    ):
        first = handle.readline()
        lines = itertools.chain([first], handle)
        wikidata = file_format == "wikidata" or (file_format == "auto" and is_wikidata_dump(first))
        records = read_wikidata(lines, wanted) if wikidata else parse_entity_lines(lines)
        # A dump is not counted first (it can be large); the bar then shows entities written.
        task = bar.add_task("importing entities", total=None)
        report = import_records(
            session,
            records,
            now=runtime.clock.now(),
            progress=lambda count: bar.advance(task, count),
        )
    if as_json:
        problems = [{"line": p.line, "message": p.message} for p in report.problems]
        print_json({"imported": report.written, "skipped": problems, "merged": report.merged})
    else:
        for problem in report.problems:
            console.print(f"[yellow]line {problem.line}[/]: {problem.message}")
        stdout.print(f"imported {report.written} entities, skipped {len(report.problems)} lines")
        if report.merged:
            stdout.print(
                f"merged {report.merged} entities linking had discovered into imported ones"
            )
    if report.problems and not report.written:
        raise typer.Exit(1)


def parse_classes(values: list[str]) -> dict[str, tuple[EntityKind, str | None]]:
    """``Q5=person``, ``Q515=place:city`` -> ``{"Q5": ("person", None), ...}``."""
    out: dict[str, tuple[EntityKind, str | None]] = {}
    for value in values:
        qid, _, kind_text = value.partition("=")
        kind, _, place_type = kind_text.partition(":")
        if not re.fullmatch(r"Q[1-9][0-9]*", qid.strip()) or kind not in ENTITY_KINDS:
            raise typer.BadParameter(
                f"{value!r}: expected QID=KIND (KIND one of {', '.join(ENTITY_KINDS)})",
                param_hint="--class",
            )
        out[qid.strip()] = (cast(EntityKind, kind), place_type or None)
    return out


@app.command("seed")
def seed(
    force: Annotated[
        bool,
        typer.Option(
            "--force", help="Also when this seed file was loaded before (adds missing ones)."
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Load the knowledge-base seed (HERALD_ENTITY_SEED) into the database.

    Enrichment does this by itself, once per seed file: a changed file adds the entities the
    database lacks and corrects those an earlier seed wrote; an entity you imported is never
    overwritten.
    """
    with cli_runtime() as runtime, progress() as bar:
        task = bar.add_task("seeding entities", total=None)
        written = seed_knowledge_base(
            runtime, force=force, progress=lambda count: bar.advance(task, count)
        )
    if as_json:
        print_json({"seeded": written})
        return
    stdout.print(f"seeded {written} entities")


@app.command("review")
def review(
    accept: Annotated[
        list[str] | None,
        typer.Option("--accept", help="Confirm this candidate (an id from the list); repeat it."),
    ] = None,
    reject: Annotated[
        list[str] | None,
        typer.Option(
            "--reject",
            help="Refuse this discovered entity (a candidate, or one confirmed by mistake); "
            "repeat it.",
        ),
    ] = None,
    status: Annotated[
        str, typer.Option("--status", help="List candidate, active or rejected names.")
    ] = "candidate",
    limit: Annotated[int, typer.Option("--limit", min=1, help="List at most this many.")] = 50,
    as_json: JsonOption = False,
) -> None:
    """List the names linking discovered that wait for confirmation, or accept or reject some.

    A name the knowledge base lacks is linked by the items that name it, never by others, until
    HERALD_ENTITY_CONFIRM_ITEMS items from HERALD_ENTITY_CONFIRM_SOURCES sources name it or you
    accept it; then the items naming it are enriched again (by the worker) and new items link
    to it. A rejected name loses its links and is never linked again.
    """
    if status not in (staging.CANDIDATE, staging.ACTIVE, staging.REJECTED):
        raise typer.BadParameter("must be candidate, active or rejected", param_hint="--status")
    decided: list[staging.Candidate] = []
    listed: list[staging.Candidate] = []
    with cli_runtime() as runtime:
        try:
            with runtime.sessions.write() as session:
                for entity_id in accept or ():
                    decided.append(staging.accept(session, entity_id, clock=runtime.clock))
                for entity_id in reject or ():
                    decided.append(staging.reject(session, entity_id, clock=runtime.clock))
        except (NotFound, ValueError) as refused:
            console.print(f"[red]{refused}[/]")
            raise typer.Exit(1) from refused
        if not decided:
            with runtime.sessions.read() as session:
                listed = staging.list_candidates(session, status=status, limit=limit)
    shown = decided or listed
    if as_json:
        print_json({"entities": [c.as_dict() for c in shown]})
        return
    if decided:
        for c in decided:
            stdout.print(f"{c.id} {escape(c.display_name)} ({c.entity_kind}): {c.status}")
        return
    table = Table(id_column(), "name", "kind", "items", "sources", "first seen")
    for c in shown:
        table.add_row(
            c.id,
            escape(c.display_name),
            c.entity_kind,
            str(c.items),
            str(c.sources),
            c.first_seen.isoformat(timespec="seconds"),
        )
    print_table(table)
