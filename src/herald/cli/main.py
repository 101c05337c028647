"""The `herald` command. Each area adds its commands here with one line."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError
from rich.markup import escape
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError, ProgrammingError, SQLAlchemyError

from herald import __version__
from herald.cli import clusters as clusters_cli
from herald.cli import content as content_cli
from herald.cli import db, demo, ingest, keys, serve, sources
from herald.cli import enrich as enrich_cli
from herald.cli import entities as entities_cli
from herald.cli import mcp as mcp_cli
from herald.cli import monitors as monitors_cli
from herald.cli import search as search_cli
from herald.cli import webhooks as webhooks_cli
from herald.cli import workspaces as workspaces_cli
from herald.cli.common import console, load_settings, settings_error_lines
from herald.db.copy import describe
from herald.db.engine import make_engine
from herald.db.migrate import is_up_to_date, unknown_revisions


class _Herald(typer.Typer):
    """The app, with a plain message instead of a traceback when the database is unreachable
    (the first error of many installations; docs/troubleshooting.md) or a setting is invalid
    (one line per setting, exit code 2 as for a usage error)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().__call__(*args, **kwargs)
        except (OperationalError, ProgrammingError) as exc:
            if migrations_pending():  # a table missing: a database not migrated yet
                console.print("[red]migrations are pending: run `herald db upgrade`[/]")
                sys.exit(1)
            if isinstance(exc, ProgrammingError):
                raise
            print_database_error(exc)
            sys.exit(1)
        except ValidationError as exc:
            if exc.title != "Settings":
                raise
            for line in settings_error_lines(exc):
                console.print(f"[red]{escape(line)}[/]", soft_wrap=True)
            sys.exit(2)


def migrations_pending() -> bool:
    """Whether the configured database answers and is behind this version's schema."""
    url = load_settings().resolved_database_url
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and not Path(parsed.database or "").is_file():
        return False  # opening would create it
    engine = make_engine(url, pool_size=1)
    try:
        return not unknown_revisions(engine, url) and not is_up_to_date(engine, url)
    except SQLAlchemyError:  # it does not answer: the error says why
        return False
    finally:
        engine.dispose()


def print_database_error(exc: OperationalError) -> None:
    settings = load_settings()
    where = describe(settings.resolved_database_url)
    reason = str(exc.orig).strip().splitlines()[0] if exc.orig else str(exc)
    console.print(
        f"[red]cannot use the database[/] {escape(where)}: {escape(reason)}\n"
        "Check HERALD_DATABASE_URL (environment or .env), that the database server is "
        "running and accepts connections, and that its disk has room "
        "(docs/troubleshooting.md).",
        soft_wrap=True,
    )


app = _Herald(
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
app.add_typer(workspaces_cli.app, name="workspaces")
app.command("demo")(demo.demo)
app.command("ingest")(ingest.ingest)
app.add_typer(sources.sources_app, name="sources")
app.add_typer(content_cli.app, name="content")
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
