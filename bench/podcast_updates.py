"""CPU that updates of podcast episodes cost when only their audio URL changes.

    .venv/bin/python bench/podcast_updates.py [--rounds 3] [--database-url URL]

Podcast hosts rewrite enclosure URLs constantly (a new ``?updated=`` query whenever ads are
inserted again), so every poll of such a feed updates every episode. On a fresh database (a
temporary SQLite file by default) the demo corpus's podcast episodes (with their transcripts)
are stored and enriched by the real models, then each round stores every episode again with a
new audio URL and runs every job that follows (enrichment, search indexing) as a worker would.
Two ways, alternating round by round:

- ``kept``: ingestion as it is: an update that changes nothing enrichment reads keeps the
  enrichment (:mod:`herald.enrich.inputs`);
- ``re-enriched``: the same updates with an enrichment queued for each episode, as every update
  was before (the whole pipeline runs again).

Printed per way: CPU seconds of this process per round (storing and jobs), per episode, and the
enrichment runs, with the load average before and after.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

DEMO = Path(__file__).resolve().parents[1] / "src" / "herald" / "data" / "demo" / "demo.jsonl.gz"


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each way")
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()

    from herald.config import Settings
    from herald.db.migrate import upgrade
    from herald.enrich.pipeline import BatchResult, EnrichmentPipeline, ItemText
    from herald.enrich.queueing import queue_enrichment
    from herald.ingest.pipeline import ingest_outcomes, parse_document
    from herald.ingest.sources import Document
    from herald.jobs.registry import lanes, load_handlers
    from herald.jobs.worker import Worker
    from herald.runtime import Runtime

    episodes = [
        line
        for line in (json.loads(raw) for raw in gzip.decompress(DEMO.read_bytes()).splitlines())
        if line.get("media_type") == "podcast"
    ]
    runs: list[int] = []
    real = EnrichmentPipeline.run

    def counted(self: EnrichmentPipeline, items: Sequence[ItemText]) -> BatchResult:
        runs.append(len(items))
        return real(self, items)

    EnrichmentPipeline.run = counted  # type: ignore[method-assign]
    load_handlers()
    with tempfile.TemporaryDirectory(prefix="herald-podcasts-") as tmp:
        settings = Settings(home=Path(tmp), database_url=args.database_url, log_level="ERROR")
        upgrade(settings.resolved_database_url)
        runtime = Runtime(settings)
        worker = Worker(runtime)

        def store(version: int) -> list[str]:
            lines = [
                e | {"audio_url": f"https://cdn.example.com/{n}.mp3?updated={version}"}
                for n, e in enumerate(episodes)
            ]
            content = "\n".join(json.dumps(line) for line in lines).encode()
            document = Document(content=content, origin="bench.jsonl")
            outcomes = parse_document(document, format_name="jsonl", clock=runtime.clock)
            report = ingest_outcomes(runtime.sessions, outcomes, clock=runtime.clock)
            return report.changed_ids

        def run_jobs() -> None:
            while sum(worker.drain(lane) for lane in sorted(lanes())) > 0:
                pass

        try:
            print(f"database: {runtime.sessions.engine.dialect.name}, episodes: {len(episodes)}")
            print(f"load average before: {_load()}")
            store(0)
            run_jobs()  # the first enrichment (and the models' loading) is not measured
            cpu: dict[str, list[float]] = {"kept": [], "re-enriched": []}
            enriched: dict[str, int] = {"kept": 0, "re-enriched": 0}
            version = 0
            for _ in range(args.rounds):
                for way in ("kept", "re-enriched"):
                    version += 1
                    before_runs = sum(runs)
                    started = time.process_time()
                    changed = store(version)
                    if way == "re-enriched":
                        with runtime.sessions.write() as session:
                            queue_enrichment(session, changed, clock=runtime.clock)
                    run_jobs()
                    cpu[way].append(time.process_time() - started)
                    enriched[way] += sum(runs) - before_runs
            for way, times in cpu.items():
                median = statistics.median(times)
                print(
                    f"{way:12} {median:.3f} s CPU per round of {len(episodes)} updates "
                    f"({1000 * median / len(episodes):.1f} ms per episode; rounds: "
                    + ", ".join(f"{t:.3f}" for t in times)
                    + f"); enrichment runs {enriched[way]}"
                )
            print(f"load average after: {_load()}")
        finally:
            runtime.close()


if __name__ == "__main__":
    main()
