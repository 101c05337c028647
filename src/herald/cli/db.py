"""`herald db ...`: schema migrations."""

from __future__ import annotations

import typer

from herald.cli.common import console, load_settings
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
def current_command() -> None:
    """Show the schema revision of the database and the latest one available."""
    settings = load_settings()
    engine = make_engine(settings.resolved_database_url)
    try:
        current = ", ".join(sorted(current_revisions(engine))) or "(empty)"
    finally:
        engine.dispose()
    heads = ", ".join(sorted(head_revisions(settings.resolved_database_url)))
    console.print(f"current: {current}\nlatest:  {heads}")


def _describe(settings: object) -> str:
    from herald.config import Settings

    assert isinstance(settings, Settings)
    if settings.is_sqlite:
        return f"SQLite {settings.home / 'herald.db'}"
    return "PostgreSQL"
