"""What reading only the sentences that can hold a name costs in entities, and saves in CPU.

    .venv/bin/python bench/ner_passages_eval.py --data DATA [--items 2000]

The recogniser reads only runs of sentences with a capitalised word (``name_passages``). This
script runs spaCy's recogniser and Herald's linker (bundled 40,000-entity knowledge base) over
the enrichment-throughput corpus (bench/enrich_throughput.py: ECB+ news articles and podcast
transcript passages of 300-800 words) twice, reading the whole text and reading name passages,
and prints per part of the corpus: the share of text read, the recogniser's CPU per article,
how many recognised mentions are identical, and how many linked entities (all, and each item's
three most salient) are the same.

DATA: the folder holding the ``ecbplus`` and ``changelog-podcast-transcripts`` datasets
(docs/benchmarks.md, "Datasets").
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from enrich_corpus import DATASETS, corpus
from herald.enrich.ner import EntityRecognizer, Mention, name_passages
from herald.entities.kb import KnowledgeBase
from herald.entities.linking import EntityLinker, document_text
from public_data import add_data_argument


def run(
    texts: list[tuple[str, str]], passages_only: bool
) -> tuple[list[list[Mention]], list[list[Any]], float]:
    recognizer = EntityRecognizer(name_passages_only=passages_only)
    documents = [document_text(title, body) for title, body in texts]
    recognizer.recognize(documents[:8])
    started = time.process_time()
    mentions = recognizer.recognize(documents)
    cpu = time.process_time() - started
    linker = EntityLinker(KnowledgeBase.from_seed())
    linked = []
    for (title, body), found in zip(texts, mentions, strict=True):
        result = linker.link(title, body, found)
        for draft in result.new_entities:
            if draft.id not in linker.kb:
                linker.kb.add(draft.to_record())
        linked.append(result.entities)
    return mentions, linked, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_data_argument(parser, *DATASETS)
    parser.add_argument("--items", type=int, default=2000)
    args = parser.parse_args()
    texts, origin = corpus(args.items, args.data)
    whole = run(texts, passages_only=False)
    passages = run(texts, passages_only=True)
    news = origin.get("ECB+ news articles", 0)
    parts = {"news (ECB+)": range(0, news), "transcripts": range(news, len(texts))}
    parts["all"] = range(len(texts))
    print(f"corpus: {len(texts)} texts {origin}")
    for label, indexes in parts.items():
        if not indexes:
            continue
        documents = [document_text(*texts[i]) for i in indexes]
        read = sum(e - s for d in documents for s, e in name_passages(d))
        total = sum(len(d) for d in documents)
        same_m = all_m = got_m = 0
        same_e = all_e = got_e = top_same = top_all = 0
        for i in indexes:
            a = {(m.start, m.end, m.label) for m in whole[0][i]}
            b = {(m.start, m.end, m.label) for m in passages[0][i]}
            same_m, all_m, got_m = same_m + len(a & b), all_m + len(a), got_m + len(b)
            ea = {e.entity_id for e in whole[1][i]}
            eb = {e.entity_id for e in passages[1][i]}
            same_e, all_e, got_e = same_e + len(ea & eb), all_e + len(ea), got_e + len(eb)
            top = {e.entity_id for e in whole[1][i][:3]}
            top_same += len(top & eb)
            top_all += len(top)
        print(f"\n{label}: {len(indexes)} texts, name passages are {read / total:.1%} of the text")
        print(
            f"  mentions: whole text {all_m}, passages {got_m}, identical {same_m} "
            f"({same_m / max(all_m, 1):.2%} of the whole text's)"
        )
        print(
            f"  linked entities: whole text {all_e}, passages {got_e}, same {same_e} "
            f"({same_e / max(all_e, 1):.2%} kept; {1 - same_e / max(got_e, 1):.2%} of the "
            f"passages' links are not among the whole text's)"
        )
        print(f"  three most salient entities per item kept: {top_same / max(top_all, 1):.2%}")
    print(
        f"\nrecogniser CPU per article: whole text {1000 * whole[2] / len(texts):.1f} ms, "
        f"name passages {1000 * passages[2] / len(texts):.1f} ms"
    )


if __name__ == "__main__":
    main()
