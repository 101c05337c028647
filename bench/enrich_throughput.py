"""End-to-end enrichment throughput on 2,000 real articles of 300-800 words.

    .venv/bin/python bench/enrich_throughput.py --data DATA [--items 2000]
        [--mode both|pipeline|jobs|cpu] [--ner-max-chars 0] [--batch 32]
        [--embedding-runtime onnx|torch] [--processes 1] [--record]
        [--database-url URL] [--finish batched|per-row]

Corpus (real text, all freely licensed, from ``--data DATA``, the folder holding the ``ecbplus``
and ``changelog-podcast-transcripts`` datasets; docs/benchmarks.md, "Datasets"):
every ECB+ news article of 300-800 words, longer ECB+ articles cut at the last sentence end
before 800 words, then Changelog News and Practical AI podcast transcripts (CC BY-SA 4.0) cut
at paragraph ends into 300-800-word pieces, in that order, until --items texts (first line or
sentence = title). Two measurements:

* ``pipeline``: the enrichment steps alone (language, summaries, NER, linking with the bundled
  40,000-entity knowledge base, embeddings) over batches, with the time of every step;
* ``jobs``: end to end through the durable queue on SQLite: items inserted, ``enrich.item`` jobs
  queued, a worker drains them (read, enrich, store results, entity links, embeddings, jobs
  finished, and the search indexing and clustering jobs that follow), as `herald enrich` does;
  ``--processes N`` drains with N worker processes at once (as N `herald worker` processes
  would), timed from when all have loaded their models. ``--database-url`` runs it on that
  (empty, migrated here) PostgreSQL database instead; ``--finish per-row`` finishes jobs one
  ``DELETE`` per job, as the queue did before (``bench/jobs_claim.py``), for a comparison.

Wall time and process CPU time are both printed: the machine is shared with other engineers'
jobs (2 cores), so wall time depends on their load and CPU time says what the work costs.

``--record`` writes the ``jobs`` figures (articles per second, CPU per article) into
bench/results.json as the point of ``--processes`` worker processes, with the code version
measured (bench/results.py), for the plot of docs/benchmarks.md. The plot is of the default
settings on 2,000 texts, so recording refuses any other.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from enrich_corpus import DATASETS, corpus
from public_data import add_data_argument

DATABASE_URL: str | None = None  # --database-url
FINISH = "batched"  # --finish
ENGINE = "onnx"  # --embedding-runtime
PRECISION = "int8"  # --embedding-precision
RECOGNIZER = "herald"  # --recognizer
# the settings of the plotted figures: --record refuses others
RECORDED_DEFAULTS = (
    "items",
    "batch",
    "ner_max_chars",
    "recognizer",
    "embedding_runtime",
    "embedding_precision",
    "database_url",
    "finish",
)


def cpu_profile(texts: list[tuple[str, str]], batch: int, ner_max_chars: int) -> None:
    """CPU cost of each model step alone (process CPU seconds), independent of other load."""
    from herald.enrich.embedder import build_embedder
    from herald.enrich.embedding import embedding_text
    from herald.entities.kb import KnowledgeBase
    from herald.entities.linking import EntityLinker, document_text

    sample = texts[:200]
    linker = EntityLinker(KnowledgeBase.from_seed())
    recognizer = build_recognizer(batch, ner_max_chars)
    embedder = build_embedder(None, engine=ENGINE, precision=PRECISION)
    recognizer.recognize([document_text(t, b) for t, b in sample[:8]])
    embedder.embed([embedding_text(t, b) for t, b in sample[:8]])
    c0 = time.process_time()
    found = recognizer.recognize([document_text(t, b) for t, b in sample])
    c1 = time.process_time()
    embedder.embed([embedding_text(t, b) for t, b in sample])
    c2 = time.process_time()
    for (title, body), mentions in zip(sample, found, strict=True):
        linker.link(title, body, mentions)
    c3 = time.process_time()
    ner, link = 1000 * (c1 - c0) / len(sample), 1000 * (c3 - c2) / len(sample)
    print(
        f"cpu profile ({len(sample)} articles): NER ({RECOGNIZER}) {ner:.1f} ms CPU per article "
        "(one core), "
        f"linking {link:.1f} ms (NER + linking {ner + link:.1f} ms), embedding "
        f"{1000 * (c2 - c1) / len(sample):.1f} ms CPU per article ({ENGINE}, {PRECISION})"
    )


def build_recognizer(batch: int, ner_max_chars: int) -> Any:
    """The recogniser of ``--recognizer``, built as enrichment builds it."""
    if RECOGNIZER == "spacy":
        from herald.enrich.ner import EntityRecognizer

        return EntityRecognizer(batch_size=batch, max_chars=ner_max_chars)
    from herald.enrich.ner_model import TrainedRecognizer

    return TrainedRecognizer(max_chars=ner_max_chars)


def run_pipeline(texts: list[tuple[str, str]], batch: int, ner_max_chars: int) -> None:
    from herald.enrich.embedder import build_embedder
    from herald.enrich.language import LanguageDetector
    from herald.enrich.pipeline import EnrichmentPipeline, ItemText
    from herald.entities.kb import KnowledgeBase
    from herald.entities.linking import EntityLinker

    t0 = time.perf_counter()
    pipeline = EnrichmentPipeline(
        language=LanguageDetector(),
        recognizer=build_recognizer(batch, ner_max_chars),
        linker=EntityLinker(KnowledgeBase.from_seed()),
        embedder=build_embedder(None, engine=ENGINE, precision=PRECISION),
    )
    print(f"pipeline: models and knowledge base loaded in {time.perf_counter() - t0:.1f}s")
    items = [
        ItemText(content_id=f"cnt_{i}", media_type="news", title=t, body=b)
        for i, (t, b) in enumerate(texts)
    ]
    steps: dict[str, float] = defaultdict(float)
    wall0, cpu0 = time.perf_counter(), time.process_time()
    linked = 0
    for start in range(0, len(items), batch):
        result = pipeline.run(items[start : start + batch])
        linked += sum(len(i.entities) for i in result.items)
        for step, seconds in result.seconds.items():
            steps[step] += seconds
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    print(
        f"pipeline: {len(items)} articles in {wall:.1f}s wall = {len(items) / wall:.1f} "
        f"articles/s; CPU {cpu:.1f}s = {cpu / len(items) * 1000:.1f} ms CPU per article; "
        f"{linked / len(items):.1f} linked entities per article"
    )
    print(
        "  wall seconds by step (embedding runs beside NER and linking; 'embedding_wait' is "
        "the time left waiting for it):"
    )
    for step, seconds in sorted(steps.items(), key=lambda s: -s[1]):
        if not step.endswith("_cpu"):
            print(f"    {step:<15} {seconds:7.1f}s  {1000 * seconds / len(items):7.1f} ms/article")


def run_jobs(
    texts: list[tuple[str, str]], batch: int, ner_max_chars: int, processes: int = 1
) -> tuple[float, float]:
    """Enrich ``texts`` through the job queue; return articles per second (wall) and
    milliseconds of CPU per article."""
    import hashlib

    from herald.config import Settings
    from herald.core.ids import stable_id
    from herald.db.migrate import upgrade
    from herald.db.models.content import ContentItem
    from herald.enrich.queueing import queue_enrichment
    from herald.entities.service import get_entity_store
    from herald.jobs.worker import Worker
    from herald.runtime import Runtime

    home = Path(tempfile.mkdtemp(prefix="herald-bench-"))
    settings = Settings(
        home=home,
        database_url=DATABASE_URL,
        log_format="text",
        enrich_batch_size=batch,
        ner_max_chars=ner_max_chars,
        ner_recognizer=RECOGNIZER,
        embedding_runtime=ENGINE,
        embedding_precision=PRECISION,
    )
    upgrade(settings.resolved_database_url)
    runtime = Runtime(settings)
    t0 = time.perf_counter()
    get_entity_store(runtime).ensure_seeded()
    database = runtime.sessions.engine.dialect.name
    print(f"jobs: bundled knowledge base seeded into {database} in {time.perf_counter() - t0:.1f}s")
    now = datetime.now(UTC)  # a benchmark script, not Herald code: the real clock is fine
    with runtime.sessions.write() as session:
        ids = []
        for number, (title, body) in enumerate(texts):
            key = f"https://bench.example/{number}"
            item_id = stable_id("cnt", key)
            session.add(
                ContentItem(
                    id=item_id,
                    canonical_key=key,
                    media_type="news",
                    url=key,
                    source_name="Bench",
                    source_domain="bench.example",
                    title=title,
                    authors=[],
                    published_at=now - timedelta(minutes=number),
                    body=body,
                    summaries=[],
                    key_points=[],
                    segments=[],
                    word_count=len(body.split()),
                    content_hash=hashlib.sha256(body.encode()).hexdigest(),
                    change_seq=0,
                    version=1,
                    created_at=now,
                    updated_at=now,
                    summary_provided=False,
                )
            )
            ids.append(item_id)
        queue_enrichment(session, ids, clock=runtime.clock)
    if processes > 1:
        figures = run_worker_processes(settings, processes, len(ids), FINISH)
        print(f"  articles enriched: {enriched_count(runtime)} of {len(ids)}")
        runtime.close()
        return figures
    use_finish(FINISH)
    worker = Worker(runtime)
    worker.run_once()  # the first batch loads the models: timed apart
    first = enriched_count(runtime)
    wall0, cpu0 = time.perf_counter(), time.process_time()
    worker.drain()
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    done = enriched_count(runtime) - first
    print(
        f"jobs: {done} articles end to end in {wall:.1f}s wall = {done / wall:.1f} articles/s; "
        f"CPU {cpu:.1f}s = {cpu / max(done, 1) * 1000:.1f} ms CPU per article "
        f"(after a first batch of {first} that loaded the models)"
    )
    runtime.close()
    return done / wall, cpu / max(done, 1) * 1000


def enriched_count(runtime: Any) -> int:
    """Articles whose enrichment is stored (the job counts include follow-up jobs)."""
    from sqlalchemy import func, select

    from herald.db.models.content import ContentItem

    with runtime.sessions.read() as session:
        query = select(func.count()).where(ContentItem.enriched_at.is_not(None))
        return int(session.scalar(query) or 0)


def use_finish(way: str) -> None:
    """Finish jobs as ``--finish`` says: the queue's way, or one ``DELETE`` per job."""
    if way == "per-row":
        from herald.jobs import queue
        from jobs_claim import finish_per_row

        queue.finish = finish_per_row  # type: ignore[assignment]


def _worker_process(settings: Any, finish: str, ready: Any, go: Any, results: Any) -> None:
    """One ``herald worker``-like process: load the models, wait for the start, drain."""
    from herald.enrich.service import get_pipeline
    from herald.jobs.worker import Worker
    from herald.runtime import Runtime

    use_finish(finish)
    runtime = Runtime(settings)
    get_pipeline(runtime)  # models and knowledge base loaded before the clock starts
    ready.wait()
    go.wait()
    cpu0 = time.process_time()
    done = Worker(runtime).drain()
    results.put((done, time.process_time() - cpu0, time.perf_counter()))
    runtime.close()


def run_worker_processes(
    settings: Any, processes: int, queued: int, finish: str
) -> tuple[float, float]:
    """``processes`` worker processes drain the same queue (how Herald scales enrichment: more
    ``herald worker`` processes on the shared database); timed from when all have loaded.
    Returns articles per second (wall) and milliseconds of CPU per article."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    ready, go = context.Barrier(processes + 1), context.Barrier(processes + 1)
    results = context.Queue()
    children = [
        context.Process(target=_worker_process, args=(settings, finish, ready, go, results))
        for _ in range(processes)
    ]
    for child in children:
        child.start()
    ready.wait()  # every process has loaded its models
    go.wait()
    started = time.perf_counter()
    finished = [results.get() for _ in children]
    for child in children:
        child.join()
    wall = max(end for _, _, end in finished) - started
    cpu = sum(seconds for _, seconds, _ in finished)
    print(
        f"jobs ({processes} worker processes): {queued} articles end to end in "
        f"{wall:.1f}s wall = {queued / wall:.1f} articles/s; CPU {cpu:.1f}s = "
        f"{cpu / queued * 1000:.1f} ms CPU per article; jobs (enrichment and the follow-up "
        f"jobs) per process {[count for count, _, _ in finished]}"
    )
    return queued / wall, cpu / queued * 1000


def main() -> int:
    global ENGINE, PRECISION, RECOGNIZER, DATABASE_URL, FINISH
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--mode", choices=("both", "pipeline", "jobs", "cpu"), default="both")
    add_data_argument(parser, *DATASETS)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--ner-max-chars", type=int, default=0)
    parser.add_argument("--recognizer", choices=("herald", "spacy"), default="herald")
    parser.add_argument("--embedding-runtime", choices=("onnx", "torch"), default="onnx")
    parser.add_argument("--embedding-precision", choices=("int8", "float32"), default="int8")
    parser.add_argument(
        "--processes", type=int, default=1, help="jobs mode: worker processes sharing the queue"
    )
    parser.add_argument("--database-url", default=None, help="jobs mode: an empty database")
    parser.add_argument("--finish", choices=("batched", "per-row"), default="batched")
    parser.add_argument(
        "--record",
        action="store_true",
        help="write the jobs figures into bench/results.json with the code version",
    )
    args = parser.parse_args()
    if args.record:
        defaults = {name: parser.get_default(name) for name in RECORDED_DEFAULTS}
        changed = [name for name, value in defaults.items() if getattr(args, name) != value]
        if changed or args.mode not in ("both", "jobs"):
            parser.error(
                "--record needs the jobs mode with the default settings (the plot's); "
                f"changed: {', '.join(changed) or 'mode'}"
            )
    ENGINE, PRECISION = args.embedding_runtime, args.embedding_precision
    RECOGNIZER = args.recognizer
    DATABASE_URL, FINISH = args.database_url, args.finish
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    texts, origin = corpus(args.items, args.data)
    words = [len(b.split()) for _, b in texts]
    print(
        f"corpus: {len(texts)} texts, {min(words)}-{max(words)} words "
        f"(mean {sum(words) / len(words):.0f}); {origin}"
    )
    print("machine: 2 cores shared with other engineers' jobs; load average at start:", end=" ")
    print(", ".join(f"{x:.1f}" for x in os.getloadavg()))
    print(
        f"settings: recogniser {RECOGNIZER}, batch {args.batch}, "
        f"ner_max_chars {args.ner_max_chars or 'all'}, "
        f"embedding runtime {ENGINE} ({PRECISION}), finish {FINISH}"
    )
    if args.mode in ("both", "pipeline", "cpu"):
        cpu_profile(texts, args.batch, args.ner_max_chars)
    if args.mode in ("both", "pipeline"):
        run_pipeline(texts, args.batch, args.ner_max_chars)
    if args.mode in ("both", "jobs"):
        per_s, cpu_ms = run_jobs(texts, args.batch, args.ner_max_chars, args.processes)
        if args.record:
            from results import record

            record(
                "enrichment",
                {"worker_processes": args.processes},
                {"articles_per_s": round(per_s, 1), "cpu_ms_per_article": round(cpu_ms, 1)},
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
