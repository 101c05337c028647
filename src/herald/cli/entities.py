"""`herald entities import FILE` and `herald entities seed`: the entity knowledge base."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from herald.cli.common import JsonOption, cli_runtime, console, print_json, progress, stdout
from herald.entities.service import import_entities, open_entity_file, seed_knowledge_base

app = typer.Typer(help="The entity knowledge base.", no_args_is_help=True)


@app.command("import")
def import_file(
    file: Annotated[
        Path, typer.Argument(exists=True, dir_okay=False, help="JSON Lines (.jsonl or .jsonl.gz).")
    ],
    as_json: JsonOption = False,
) -> None:
    """Import entities from JSON Lines; an entity with the same id is replaced.

    Bad lines are reported with their line number and skipped; the other lines are imported.
    Run `herald enrich --rebuild` afterwards to link existing content to the new entities.
    """
    with open_entity_file(file) as handle:
        lines = sum(1 for line in handle if line.strip())
    with (
        cli_runtime() as runtime,
        open_entity_file(file) as handle,
        progress() as bar,
        runtime.sessions.write() as session,
    ):
        task = bar.add_task("importing entities", total=lines)
        report = import_entities(
            session,
            handle,
            now=runtime.clock.now(),
            progress=lambda count: bar.advance(task, count),
        )
    if as_json:
        problems = [{"line": p.line, "message": p.message} for p in report.problems]
        print_json({"imported": report.written, "skipped": problems})
    else:
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
    as_json: JsonOption = False,
) -> None:
    """Load the knowledge-base seed (HERALD_ENTITY_SEED) into the database.

    Enrichment does this by itself when the entity table has no seed entities yet; existing
    entities are never overwritten.
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
