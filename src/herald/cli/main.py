"""The `herald` command. Each area adds its commands here with one line."""

from __future__ import annotations

from typing import Annotated

import typer

from herald import __version__
from herald.cli import clusters as clusters_cli
from herald.cli import db, demo, ingest, keys, serve
from herald.cli import enrich as enrich_cli
from herald.cli import entities as entities_cli
from herald.cli import mcp as mcp_cli
from herald.cli import monitors as monitors_cli
from herald.cli import search as search_cli
from herald.cli import webhooks as webhooks_cli

app = typer.Typer(
    name="herald",
    help="Herald: self-hosted content intelligence (news, wire, podcasts).",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)


def _print_version(value: bool) -> None:
    if value:
        print(f"herald {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Herald: self-hosted content intelligence (news, wire, podcasts).

    Settings come from HERALD_* environment variables and a .env file in the current directory
    (docs/configuration.md). Shell completion: `herald --install-completion`.
    """


app.command("serve")(serve.serve)
app.command("worker")(serve.worker)
app.add_typer(db.app, name="db")
app.add_typer(keys.app, name="keys")
app.command("demo")(demo.demo)
app.command("ingest")(ingest.ingest)
app.add_typer(ingest.sources_app, name="sources")
app.add_typer(entities_cli.app, name="entities")
app.command("enrich")(enrich_cli.enrich)
app.command("search")(search_cli.search)
app.add_typer(search_cli.index_app, name="index")
app.add_typer(clusters_cli.app, name="clusters")
app.add_typer(monitors_cli.app, name="monitors")
app.add_typer(webhooks_cli.app, name="webhooks")
app.command("mcp")(mcp_cli.mcp)

if __name__ == "__main__":
    app()
