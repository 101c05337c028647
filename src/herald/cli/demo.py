"""`herald demo`: what `make run` does before serving — demo data, a fresh admin key, next steps.

The key cannot be printed again on a later run (only its hash is stored), so every run creates a
new admin key labelled ``make-run`` in the demo workspace and revokes the one the previous run
printed: the last key `make run` printed is the one that works.
"""

from __future__ import annotations

import importlib
import json
import shlex
from typing import Annotated

import typer
from rich.markup import escape
from sqlalchemy import func, select

from herald.cli.api import local_base_url
from herald.cli.common import cli_runtime, console
from herald.db.models.content import ContentItem
from herald.errors import HeraldError
from herald.jobs.queue import pending_count
from herald.runtime import Runtime
from herald.workspaces import service

DEMO_WORKSPACE = "demo"
DEMO_LABEL = "make-run"
FIRST_QUERY = "earthquake"


def demo(
    workspace: Annotated[str, typer.Option(help="Workspace of the printed admin key.")] = (
        DEMO_WORKSPACE
    ),
    skip_data: Annotated[
        bool, typer.Option("--skip-data", help="Do not load the demo corpus.")
    ] = False,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json", help='Print only {"team_id", "api_key", "base_url"} as JSON on stdout.'
        ),
    ] = False,
) -> None:
    """Load the bundled demo corpus if the store is empty, and print a fresh admin key.

    The key and the server's address are printed as `export HERALD_API_KEY=...` and
    `export HERALD_BASE_URL=...` lines to paste into a shell, where the Python client,
    `herald monitors` and `herald webhooks` read them. Each run revokes the admin key the
    previous run printed, so no key is kept in plain text.
    """
    from herald.ingest.pipeline import PIPELINE_JOB_KINDS

    with cli_runtime() as runtime:
        with runtime.sessions.read() as session:
            count = session.execute(select(func.count()).select_from(ContentItem)).scalar_one()
        if count == 0 and not skip_data:
            loaded = _load_corpus(runtime)
            console.print(f"loaded {loaded} demo items (enriched and indexed)")
        elif count:
            console.print(
                f"the store already holds {count} items: kept as they are "
                "(`make clean-data` starts over)",
                soft_wrap=True,
            )
        with runtime.sessions.read() as session:
            unfinished = pending_count(session, kinds=PIPELINE_JOB_KINDS)
        try:
            with runtime.sessions.write() as session:
                revoked = service.revoke_keys_labelled(
                    session, workspace=workspace, label=DEMO_LABEL, clock=runtime.clock
                )
                created = service.create_key(
                    session,
                    workspace=workspace,
                    role="admin",
                    clock=runtime.clock,
                    label=DEMO_LABEL,
                )
        except HeraldError as refused:
            console.print(f"[red]{escape(refused.message)}[/]")
            raise typer.Exit(1) from None
        base = base_url(runtime)
    if as_json:
        payload = {"team_id": created.team_id, "api_key": created.api_key, "base_url": base}
        print(json.dumps(payload))
        return
    console.rule("[bold]Herald: your key and first steps")
    console.print(
        f"Admin API key (workspace {workspace}, shown once) and the server's address; paste "
        "both lines into the terminal you use next:",
        soft_wrap=True,
    )
    for line in export_lines(base, created.api_key):
        console.print(f"  {line}", soft_wrap=True, highlight=False)
    if revoked:
        console.print("  (the key an earlier `make run` or `herald demo` printed is revoked)")
    console.print(
        "First search, once `herald serve` is up (`make run` starts it next; after `herald "
        "demo` alone, start it yourself):",
        soft_wrap=True,
    )
    console.print(f"  {first_search_command()}", soft_wrap=True, highlight=False)
    if unfinished:
        console.print(
            f"  ({unfinished} enrichment jobs of an earlier run are left: the server finishes "
            "them, and searches find those items as they are done)",
            soft_wrap=True,
        )
    console.print(f"Web console: {base}/console (sign in with the key above)", highlight=False)
    console.print(f"API docs: {base}/docs", highlight=False)
    console.print(
        "Next, with the same two lines exported: a monitor (a saved search run every day) and "
        "the HTTPS endpoint its matches are delivered to, signed:",
        soft_wrap=True,
    )
    for line in NEXT_STEPS:
        console.print(f"  {line}", soft_wrap=True, highlight=False)
    console.print(
        "The quickstart of Herald's documentation (docs/quickstart.md in its source) walks "
        "through them with the Python client.",
        soft_wrap=True,
    )
    console.rule()


# A monitor and a webhook target, as a newcomer types them after the first search.
NEXT_STEPS = (
    'herald monitors create "Earthquakes" --query earthquake --frequency daily --run-time 07:00',
    "herald webhooks set https://YOUR-ENDPOINT.example/herald",
    "herald webhooks test",
)


def base_url(runtime: Runtime) -> str:
    """Where a client on this machine reaches `herald serve` with the current settings."""
    return local_base_url(runtime.settings.host, runtime.settings.port)


def export_lines(base: str, api_key: str) -> list[str]:
    """Shell lines that hand the key and the address to every later command and snippet."""
    return [
        f"export HERALD_API_KEY={shlex.quote(api_key)}",
        f"export HERALD_BASE_URL={shlex.quote(base)}",
    ]


def first_search_command() -> str:
    """The first search, reading the address and the key from the exported variables."""
    body = json.dumps({"query": FIRST_QUERY})
    return " ".join(
        [
            "curl -s",
            '"$HERALD_BASE_URL/v1/content/search"',
            "-H",
            '"x-api-key: $HERALD_API_KEY"',
            "-H",
            shlex.quote("content-type: application/json"),
            "-d",
            shlex.quote(body),
        ]
    )


def _load_corpus(runtime: Runtime) -> int:
    try:
        module = importlib.import_module("herald.ingest.demo")
    except ImportError:
        console.print("[yellow]no demo corpus is bundled with this build[/]")
        return 0
    console.print(
        f"loading the demo corpus: storing, enriching and indexing {module.demo_corpus_size()} "
        "items (a few minutes the first time)",
        soft_wrap=True,
    )
    loaded: int = module.load_demo_corpus(runtime)
    return loaded
