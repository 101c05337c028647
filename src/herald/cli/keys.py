"""`herald keys ...`: workspaces and their API keys."""

from __future__ import annotations

import json
from typing import Annotated

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
    stdout,
)
from herald.core.clock import isoformat_z
from herald.errors import HeraldError
from herald.workspaces import service

app = typer.Typer(help="Create, list and revoke API keys.", no_args_is_help=True)


@app.command("create")
def create(
    workspace: Annotated[
        str, typer.Option(help="Workspace name (at most 200 characters); created if new.")
    ],
    role: Annotated[str, typer.Option(help="member (public API) or admin (also /v1/admin).")] = (
        "member"
    ),
    label: Annotated[
        str | None, typer.Option(help="A note to tell keys apart (at most 200 characters).")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help='Print only {"team_id", "api_key"} as JSON on stdout.')
    ] = False,
) -> None:
    """Create an API key. The key is shown once; only its hash is stored."""
    if role not in service.ROLES:
        console.print(f"[red]role must be one of {', '.join(service.ROLES)}[/]")
        raise typer.Exit(2)
    try:
        with cli_runtime() as runtime, runtime.sessions.write() as session:
            created = service.create_key(
                session, workspace=workspace, role=role, clock=runtime.clock, label=label
            )
    except HeraldError as refused:
        console.print(f"[red]{escape(refused.message)}[/]")
        raise typer.Exit(1) from None
    if as_json:
        print(json.dumps({"team_id": created.team_id, "api_key": created.api_key}))
        return
    console.print(
        f"workspace [bold]{escape(workspace.strip())}[/] ({created.team_id}), role {role}"
    )
    console.print("API key (shown once, store it now):")
    stdout.print(created.api_key)


@app.command("list")
def list_keys(
    workspace: Annotated[str | None, typer.Option(help="Only this workspace.")] = None,
    as_json: JsonOption = False,
) -> None:
    """List keys (never the keys themselves: their id, prefix, role and state)."""
    with cli_runtime() as runtime, runtime.sessions.read() as session:
        keys = service.list_keys(session, workspace=workspace)
    if as_json:
        print_json(
            {
                "keys": [
                    {
                        "key_id": key.key_id,
                        "workspace": key.workspace,
                        "team_id": key.team_id,
                        "role": key.role,
                        "key_prefix": key.key_prefix,
                        "label": key.label,
                        "created_at": isoformat_z(key.created_at),
                        "revoked_at": isoformat_z(key.revoked_at) if key.revoked_at else None,
                    }
                    for key in keys
                ]
            }
        )
        return
    table = Table(
        id_column("key id"), "workspace", "team_id", "role", "prefix", "label", "created", "state"
    )
    for key in keys:
        state = f"revoked {isoformat_z(key.revoked_at)}" if key.revoked_at else "active"
        table.add_row(
            key.key_id,
            escape(key.workspace),
            key.team_id,
            key.role,
            key.key_prefix + "…",
            escape(key.label or ""),
            isoformat_z(key.created_at),
            state,
        )
    print_table(table)


@app.command("revoke")
def revoke(key_id: Annotated[str, typer.Argument(help="The key id shown by `keys list`.")]) -> None:
    """Revoke a key at once; requests with it get 401. An unknown key id exits 1."""
    try:
        with cli_runtime() as runtime, runtime.sessions.write() as session:
            service.revoke_key(session, key_id, runtime.clock)
    except HeraldError as refused:
        console.print(f"[red]{escape(refused.message)}[/]")
        raise typer.Exit(1) from None
    console.print(f"revoked {key_id}")
