"""`herald clusters rebuild` (re-cluster the whole store from scratch, in publication order) and
`herald clusters recount` (make the word statistics exact again)."""

from __future__ import annotations

from typing import Annotated

import typer

from herald.cli.common import JsonOption, cli_runtime, console, print_json, progress, stdout
from herald.clusters.recount import RecountDeferred
from herald.clusters.recount import recount as recount_statistics
from herald.clusters.service import get_engine
from herald.clusters.service import rebuild as rebuild_clusters
from herald.clusters.tasks import queue_recount

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


@app.command("recount")
def recount(
    now: Annotated[
        bool, typer.Option("--now", help="Recount in this process instead of queueing a job.")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Make the clustering word statistics exact again, from the articles clustered now.

    Queues the `clusters.recount` job (a worker runs it; an hourly check also queues it while
    articles clustered before the upgrade to 0028 lack a record of their words). Clustering goes
    on meanwhile. With --now, it runs here and reports what it changed.
    """
    with cli_runtime() as runtime:
        if not now:
            job_id = queue_recount(runtime)
            if as_json:
                print_json({"queued": job_id is not None, "job_id": job_id})
            elif job_id is None:
                stdout.print("a recount is already queued or running")
            else:
                stdout.print(f"queued the recount (job {job_id}); a worker runs it")
            return
        try:
            report = recount_statistics(runtime.sessions, clock=runtime.clock)
        except RecountDeferred as deferred:
            console.print(f"[red]{deferred}[/]; run it again later")
            raise typer.Exit(1) from None
    if as_json:
        print_json(
            {
                "recorded": report.recorded,
                "articles": report.articles,
                "corrected": report.corrected,
                "documents": report.documents,
            }
        )
        return
    stdout.print(
        f"recounted {report.articles} articles: {report.corrected} counts corrected, "
        f"{report.recorded} articles given a record of their words"
    )
