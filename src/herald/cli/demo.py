"""`herald demo`: what `make run` does before serving — demo data and a fresh admin key."""

from __future__ import annotations

import importlib
from typing import Annotated

import typer
from sqlalchemy import func, select

from herald.cli.common import cli_runtime, console
from herald.db.models.content import ContentItem
from herald.workspaces import service

DEMO_WORKSPACE = "demo"
DEMO_LABEL = "make-run"


def demo(
    workspace: Annotated[str, typer.Option(help="Workspace of the printed admin key.")] = (
        DEMO_WORKSPACE
    ),
    skip_data: Annotated[
        bool, typer.Option("--skip-data", help="Do not load the demo corpus.")
    ] = False,
) -> None:
    """Load the bundled demo corpus if the store is empty, and print a fresh admin key.

    Each run revokes the admin key the previous run printed, so no key is kept in plain text.
    """
    with cli_runtime() as runtime:
        with runtime.sessions.read() as session:
            count = session.execute(select(func.count()).select_from(ContentItem)).scalar_one()
        if count == 0 and not skip_data:
            loaded = _load_corpus(runtime)
            console.print(f"loaded {loaded} demo items")
        with runtime.sessions.write() as session:
            service.revoke_keys_labelled(
                session, workspace=workspace, label=DEMO_LABEL, clock=runtime.clock
            )
            created = service.create_key(
                session, workspace=workspace, role="admin", clock=runtime.clock, label=DEMO_LABEL
            )
        base = f"http://{runtime.settings.host}:{runtime.settings.port}"
    console.rule("[bold]Herald is starting")
    console.print(f"Admin API key (workspace {workspace}): [bold]{created.api_key}[/]")
    console.print("First search:")
    console.print(
        f"  curl -s {base}/v1/content/search -H 'x-api-key: {created.api_key}' "
        "-H 'content-type: application/json' -d '{\"query\": \"earthquake\"}'",
        soft_wrap=True,
    )
    console.print(f"API docs: {base}/docs   Guide: docs/quickstart.md")
    console.rule()


def _load_corpus(runtime: object) -> int:
    try:
        module = importlib.import_module("herald.ingest.demo")
    except ImportError:
        console.print("[yellow]no demo corpus is bundled with this build[/]")
        return 0
    loaded: int = module.load_demo_corpus(runtime)
    return loaded
