"""`herald entities import FILE` and `herald entities seed`: the entity knowledge base."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from herald.cli.common import cli_runtime, console, stdout
from herald.entities.service import import_entities, open_entity_file, seed_knowledge_base

app = typer.Typer(help="The entity knowledge base.", no_args_is_help=True)


@app.command("import")
def import_file(
    file: Annotated[
        Path, typer.Argument(exists=True, dir_okay=False, help="JSON Lines (.jsonl or .jsonl.gz).")
    ],
) -> None:
    """Import entities from JSON Lines; an entity with the same id is replaced.

    Bad lines are reported with their line number and skipped; the other lines are imported.
    Run `herald enrich --rebuild` afterwards to link existing content to the new entities.
    """
    with (
        cli_runtime() as runtime,
        open_entity_file(file) as handle,
        runtime.sessions.write() as session,
    ):
        report = import_entities(session, handle, now=runtime.clock.now())
    for problem in report.problems:
        console.print(f"[yellow]line {problem.line}[/]: {problem.message}")
    stdout.print(f"imported {report.written} entities, skipped {len(report.problems)} lines")
    if report.problems and not report.written:
        raise typer.Exit(1)


@app.command("seed")
def seed(
    force: Annotated[
        bool, typer.Option("--force", help="Also when seed entities exist (adds missing ones).")
    ] = False,
) -> None:
    """Load the knowledge-base seed (HERALD_ENTITY_SEED) into the database.

    Enrichment does this by itself when the entity table has no seed entities yet; existing
    entities are never overwritten.
    """
    with cli_runtime() as runtime:
        written = seed_knowledge_base(runtime, force=force)
    stdout.print(f"seeded {written} entities")
