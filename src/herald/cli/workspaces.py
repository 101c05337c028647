"""`herald workspaces delete`: delete a workspace and everything that belongs to it."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape

from herald.cli.common import JsonOption, cli_runtime, console, print_json, refusal_exits, stdout
from herald.workspaces import deletion

app = typer.Typer(help="Workspaces: delete one with everything it owns.", no_args_is_help=True)


@app.command("delete")
def delete(
    workspace: Annotated[
        str, typer.Argument(help="The workspace's name (as in `keys create --workspace`) or id.")
    ],
    yes: Annotated[bool, typer.Option("--yes", help="Delete without asking.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Delete a workspace: its keys, monitors (runs, results, ledger, feed), webhook target
    (secrets, events, deliveries, attempts), jobs and rate buckets.

    Content, sources, entities and story clusters are shared by all workspaces and stay. The
    keys are revoked, the monitors disabled and the webhook target paused at once; the rows are
    then deleted in batches by the `workspaces.delete` job, which this command also runs to the
    end. If it is interrupted, a worker finishes the job (or run the command again with the id).
    Without --yes it shows what will be deleted and asks; a refusal deletes nothing (exit 1).
    """
    with cli_runtime() as runtime:
        with refusal_exits(), runtime.sessions.read() as session:
            found = deletion.find_workspace(session, workspace)
            counts = deletion.count_rows(session, found.team_id)
        if not yes:
            _show(found.name, found.team_id, counts)
            if not typer.confirm("Delete this workspace and all of it?", err=True):
                console.print("nothing deleted")
                raise typer.Exit(1)
        with runtime.sessions.write() as session:
            job_id = deletion.start_deletion(session, found, clock=runtime.clock)
        deleted = deletion.delete_workspace(runtime.sessions, found.team_id)
    if as_json:
        print_json(
            {
                "team_id": found.team_id,
                "workspace": found.name,
                "deleted": counts,
                "rows_deleted": deleted,
                "job_id": job_id,
            }
        )
        return
    stdout.print(
        f"deleted workspace {escape(found.name)} ({found.team_id}): {deleted} rows", highlight=False
    )


def _show(name: str, team_id: str, counts: dict[str, int]) -> None:
    console.print(f"workspace [bold]{escape(name)}[/] ({team_id}) holds:", highlight=False)
    for table, n in sorted(counts.items()):
        console.print(f"  {table}: {n}", highlight=False)
    console.print("Content, sources, entities and clusters are shared and stay.")
