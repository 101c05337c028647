"""`herald enrich --rebuild`: enrich every item again (after a model or knowledge-base change)."""

from __future__ import annotations

from typing import Annotated

import typer

from herald.cli.common import JsonOption, cli_runtime, console, print_json, progress, stdout
from herald.enrich.queueing import ENRICH_KIND, queue_enrichment
from herald.enrich.service import live_content_ids
from herald.jobs.queue import pending_count
from herald.jobs.worker import Worker


def enrich(
    rebuild: Annotated[
        bool,
        typer.Option("--rebuild", help="Queue every live item for enrichment, then run it."),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Run pending enrichment in this process, with progress.

    With --rebuild every live content item is queued first, so summaries, entities, embeddings
    and detected languages are recomputed with the current models, settings and knowledge base
    (a language a source gave is kept). A running `herald serve` or `herald worker` on the same
    data shares the work.
    """
    with cli_runtime() as runtime:
        if rebuild:
            with runtime.sessions.read() as session:
                ids = live_content_ids(session)
            for start in range(0, len(ids), 1000):
                with runtime.sessions.write() as session:
                    queue_enrichment(session, ids[start : start + 1000], clock=runtime.clock)
            console.print(f"queued {len(ids)} items for enrichment")
        with runtime.sessions.read() as session:
            total = pending_count(session, kinds=[ENRICH_KIND])
        worker = Worker(runtime)
        done = 0
        with progress() as bar, worker.renewing_leases():
            task = bar.add_task("enriching", total=total)
            while True:
                count = worker.run_once()
                if count == 0:
                    break
                done += count
                with runtime.sessions.read() as session:
                    left = pending_count(session, kinds=[ENRICH_KIND])
                bar.update(task, completed=max(total - left, 0), total=max(total, done))
        with runtime.sessions.read() as session:
            left = pending_count(session, kinds=[ENRICH_KIND])
    # The worker also runs what enrichment queues next (search indexing, clustering).
    if as_json:
        print_json({"enriched": max(total - left, 0), "jobs_run": done, "pending": left})
        return
    stdout.print(
        f"enriched {max(total - left, 0)} items ({done} jobs run in all); "
        f"{left} enrichment jobs still pending"
    )
