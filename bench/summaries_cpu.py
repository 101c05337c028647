"""CPU cost of sentence splitting and extractive summaries, and whether their output changed.

Corpus: the enrichment throughput corpus (ECB+ news articles and Changelog transcript pieces of
300-800 words, ``bench/enrich_throughput.py``), from ``--data DATA``, the folder holding the
``ecbplus`` and ``changelog-podcast-transcripts`` datasets (docs/benchmarks.md, "Datasets").
Prints CPU ms per text for ``split_sentences`` and ``summarize`` (best of three passes: the
machine is shared) and, with ``--dump FILE``, writes every text's summary, brief, detailed
summary and key points, so two versions of the code can be compared with ``--compare FILE``.

    .venv/bin/python bench/summaries_cpu.py --data DATA --limit 400 --dump /tmp/after.json
    .venv/bin/python bench/summaries_cpu.py --data DATA --limit 400 --compare /tmp/before.json
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from enrich_corpus import DATASETS, corpus
from herald.enrich.summarize import summarize
from herald.enrich.text import split_sentences, word_count
from public_data import add_data_argument


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_data_argument(parser, *DATASETS)
    parser.add_argument("--limit", type=int, default=400)
    parser.add_argument("--dump", type=Path)
    parser.add_argument("--compare", type=Path)
    parser.add_argument(
        "--wrapped-lines", action="store_true", help="as enrichment reads article bodies"
    )
    args = parser.parse_args()
    options = {"wrapped_lines": True} if args.wrapped_lines else {}
    texts, origin = corpus(args.limit, args.data)
    print(f"{len(texts)} texts: {origin}; load average {os.getloadavg()[0]:.1f}")
    for name, step in (
        ("split_sentences", lambda t, b: split_sentences(b)),
        ("word_count", lambda t, b: word_count(b)),
        ("summarize", lambda t, b: summarize(t, b, **options)),
    ):
        best = min(_cpu(texts, step) for _ in range(3))
        print(f"{name}: {1000 * best / len(texts):.3f} ms CPU per text (best of 3)")
    outputs = [_output(title, body, options) for title, body in texts]
    if args.dump:
        args.dump.write_text(json.dumps(outputs, ensure_ascii=False))
    if args.compare:
        before = json.loads(args.compare.read_text())
        same = sum(a == b for a, b in zip(before, outputs, strict=True))
        print(f"identical output (summaries and key points): {same} of {len(outputs)}")


def _cpu(texts: list[tuple[str, str]], step: object) -> float:
    started = time.process_time()
    for title, body in texts:
        step(title, body)  # type: ignore[operator]
    return time.process_time() - started


def _output(title: str, body: str, options: dict[str, bool]) -> dict[str, object]:
    result = summarize(title, body, **options)
    return {
        "summary": result.summary,
        "brief": result.brief,
        "detailed": result.detailed,
        "key_points": list(result.key_points),
        "sentences": len(split_sentences(body)),
        "words": word_count(body),
    }


if __name__ == "__main__":
    main()
