"""`herald clusters rebuild`: re-cluster the whole store from scratch, in publication order."""

from __future__ import annotations

import typer

from herald.cli.common import JsonOption, cli_runtime, print_json, progress, stdout
from herald.clusters.service import get_engine
from herald.clusters.service import rebuild as rebuild_clusters

app = typer.Typer(help="Story clusters.", no_args_is_help=True)


@app.command("rebuild")
def rebuild(as_json: JsonOption = False) -> None:
    """Forget every story cluster and cluster all enriched news and wire items again.

    Items are replayed in publication order through the online clusterer, with progress.
    Clustering jobs that arrive meanwhile wait for the rebuild (their items are clustered at
    its end). If it is interrupted, run it again: it starts over.
    """
    with cli_runtime() as runtime:
        engine = get_engine(runtime)
        with progress() as bar:
            task = bar.add_task("clustering", total=None)

            def show(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            outcome = rebuild_clusters(
                runtime.sessions, engine, clock=runtime.clock, on_progress=show
            )
    if as_json:
        print_json(
            {
                "clustered": outcome.clustered,
                "clusters": outcome.created,
                "skipped": outcome.skipped,
            }
        )
        return
    stdout.print(
        f"clustered {outcome.clustered} items into {outcome.created} clusters "
        f"({outcome.skipped} skipped)"
    )
