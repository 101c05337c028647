"""The `herald` command. Each area adds its commands here with one line."""

from __future__ import annotations

import typer

from herald.cli import db, demo, keys, serve

app = typer.Typer(
    name="herald",
    help="Herald: self-hosted content intelligence (news, wire, podcasts).",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)
app.command("serve")(serve.serve)
app.command("worker")(serve.worker)
app.add_typer(db.app, name="db")
app.add_typer(keys.app, name="keys")
app.command("demo")(demo.demo)

if __name__ == "__main__":
    app()
