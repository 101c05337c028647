"""`herald db ...`: schema migrations."""

from __future__ import annotations

import typer

from herald.cli.common import JsonOption, console, load_settings, print_json
from herald.db.engine import make_engine
from herald.db.migrate import current_revisions, head_revisions, upgrade

app = typer.Typer(help="Database schema migrations.", no_args_is_help=True)


@app.command("upgrade")
def upgrade_command() -> None:
    """Apply every pending migration (SQLite or PostgreSQL, whichever is configured)."""
    settings = load_settings()
    settings.home.mkdir(parents=True, exist_ok=True)
    upgrade(settings.resolved_database_url)
    console.print(f"[green]database at the latest schema[/] ({_describe(settings)})")


@app.command("current")
def current_command(as_json: JsonOption = False) -> None:
    """Show the schema revision of the database and the latest one available."""
    settings = load_settings()
    engine = make_engine(settings.resolved_database_url)
    try:
        found = sorted(current_revisions(engine))
    finally:
        engine.dispose()
    latest = sorted(head_revisions(settings.resolved_database_url))
    if as_json:
        print_json({"current": found, "latest": latest, "up_to_date": found == latest})
        return
    current = ", ".join(found) or "(empty)"
    console.print(f"current: {current}\nlatest:  {', '.join(latest)}")
    if found != latest:
        console.print("[yellow]migrations are pending: run `herald db upgrade`[/]")


def _describe(settings: object) -> str:
    from herald.config import Settings

    assert isinstance(settings, Settings)
    if settings.is_sqlite:
        return f"SQLite {settings.home / 'herald.db'}"
    return "PostgreSQL"
