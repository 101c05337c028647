"""People, organisations and places on CoNLL-2003 news, as Herald recognises and links them.

    .venv/bin/python bench/entities_conll_eval.py --data DATA/conll2003 --split dev
        [--recognizer spacy|herald|both] [--level mention|document|both] [--show-errors N]
        [--discovery staged|immediate|both] [--confirm-items N] [--confirm-sources N]

Splits: ``train`` (tune) and ``dev`` (choose); the official test split is held out and refused.
Each document (``bench/conll_data.py``: title, body, gold names) goes through the recogniser
Herald runs; mention level scores the recogniser alone against the gold spans; document level
scores the distinct names per document, for the recogniser alone and for the whole pipeline
(recogniser and linker, with the bundled seed knowledge base; a name it lacks is staged as in
production: linked by the documents naming it, and added to the knowledge base once confirmed
by enough documents from enough sources, see ``link``), the entities Herald stores for an item
(``bench/entities_conll_score.py`` says how each is scored). Every figure is printed with its
95% bootstrap interval over documents (``bench/bootstrap.py``), separately for general news and
sports (``conll_data.SPORTS_RULE``), and for two systems with the paired interval of their
difference: a difference inside it is no gain.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import bootstrap
from bench.conll_data import SPORTS_RULE, Document, RefusedSplit, class_counts, read_split
from bench.entities_conll_score import (
    DOCUMENT_KINDS,
    HERALD_KINDS,
    LABEL_NOTE,
    LABELS,
    MENTION_TYPES,
    Named,
    errors,
    gold_entities,
    mention_counts,
    normalise,
    score_document,
)
from bench.linker_options import HERALDS, LinkerOptions, add_linker_arguments, linking_config
from bench.public_data import add_dataset_argument
from bench.recognizers import RECOGNIZERS, Unavailable, every_name, recognizer_for
from herald.enrich.ner import Mention
from herald.entities.kb import KnowledgeBase
from herald.entities.linking import EntityLinker
from herald.entities.model import EntityDraft
from herald.entities.staging import ConfirmRule

CLASSES = ("general", "sports", "all")
CONFIRM = ConfirmRule()  # Herald's defaults (HERALD_ENTITY_CONFIRM_ITEMS, ..._SOURCES)
CONLL_SOURCE = "Reuters"  # every CoNLL-2003 document is a Reuters story


def link(
    documents: list[Document],
    mentions: list[list[Mention]],
    kinds: str = "learned",
    kb: KnowledgeBase | None = None,
    *,
    discovery: str = "staged",
    confirm: ConfirmRule = CONFIRM,
    options: LinkerOptions = HERALDS,
) -> list[list[Named]]:
    """The entities Herald stores for each document, as scored names (person, organisation and
    place; display name and aliases), with the kind of each name decided by the trained model
    (``kinds="learned"``) or by the hand-set votes (``"rules"``). ``kb`` (the bundled seed when
    not given) gains the entities confirmed on the way. ``options``: the admission threshold and
    whether nationalities link to their country (Herald's defaults when not given).

    ``discovery="staged"`` follows Herald's rule for names the knowledge base lacks: each
    document links them as candidates of its own; a candidate named by ``confirm.items``
    documents from ``confirm.sources`` sources joins the knowledge base and every document is
    linked again, until nothing more is confirmed (the result does not depend on the documents'
    order). Every CoNLL-2003 document is a Reuters story: one source. ``"immediate"`` is the
    earlier rule: a new name joins the knowledge base as soon as a document names it, so later
    documents link to it."""
    kb = KnowledgeBase.from_seed() if kb is None else kb
    linker = EntityLinker(kb, linking_config(kinds, options))
    results = []
    if discovery == "immediate":
        for document, found in zip(documents, mentions, strict=True):
            result = linker.link(document.title, document.body, found)
            for draft in result.new_entities:
                if draft.id not in kb:
                    kb.add(draft.to_record())
            results.append(result)
    else:
        while True:
            results = [
                linker.link(d.title, d.body, found)
                for d, found in zip(documents, mentions, strict=True)
            ]
            named: dict[str, tuple[EntityDraft, set[str], set[str]]] = {}
            for document, result in zip(documents, results, strict=True):
                for draft in result.new_entities:
                    _, items, sources = named.setdefault(draft.id, (draft, set(), set()))
                    items.add(document.doc_id)
                    sources.add(CONLL_SOURCE)
            confirmed = [
                d for d, items, sources in named.values() if confirm.met(len(items), len(sources))
            ]
            if not confirmed:
                break
            for draft in confirmed:
                kb.add(replace(draft.to_record(), status="active"))
    out = []
    for result in results:
        drafts = {d.id: d for d in result.new_entities}
        entities = []
        for entity in result.entities:
            kind = HERALD_KINDS.get(entity.entity_kind)
            record = kb.get(entity.entity_id)
            if kind is None:
                continue
            draft = drafts.get(entity.entity_id)
            aliases = record.aliases if record is not None else draft.aliases if draft else ()
            entities.append(Named.of(kind, [entity.display_name, *aliases], entity.display_name))
        out.append(entities)
    return out


def alone(mentions: list[Mention]) -> list[Named]:
    """The recogniser's distinct names, label-mapped, as if each were an entity."""
    seen: dict[tuple[str, str], str] = {}
    for m in mentions:
        kind = LABELS.get(m.label, "")
        if kind in DOCUMENT_KINDS:
            seen.setdefault((kind, normalise(m.text)), m.text)
    return [Named.of(kind, [text], text) for (kind, _), text in seen.items()]


def document_counts(documents: list[Document], systems: list[list[Named]]) -> NDArray[np.float64]:
    """(documents, kinds, 4) counts."""
    rows = []
    for document, system in zip(documents, systems, strict=True):
        gold = gold_entities((m.text, m.label) for m in document.mentions)
        scored = score_document(gold, system)
        rows.append([scored[k] for k in DOCUMENT_KINDS])
    return np.asarray(rows, dtype=np.float64).reshape(len(documents), len(DOCUMENT_KINDS), 4)


def mention_level(documents: list[Document], mentions: list[list[Mention]]) -> NDArray[np.float64]:
    rows = []
    for document, found in zip(documents, mentions, strict=True):
        counts = mention_counts(
            ((m.start, m.end, m.label) for m in document.mentions),
            ((m.start, m.end, m.label) for m in found),
        )
        rows.append([counts[k] for k in MENTION_TYPES])
    return np.asarray(rows, dtype=np.float64).reshape(len(documents), len(MENTION_TYPES), 4)


def table(title: str, counts: NDArray[np.float64], kinds: Sequence[str]) -> None:
    print(f"  {title}")
    print(f"    {'':<6} {'P [95% CI]':<22} {'R [95% CI]':<22} {'F1 [95% CI]':<22} answers  gold")
    rows = [(k, counts[:, i, :]) for i, k in enumerate(kinds)] + [("micro", counts.sum(axis=1))]
    for name, c in rows:
        prf = bootstrap.prf(c)
        total = c.sum(axis=0)
        print(
            f"    {name:<6} {prf['P']!s:<22} {prf['R']!s:<22} {prf['F1']!s:<22}"
            f" {int(total[1]):>7} {int(total[3]):>5}"
        )


def difference(
    title: str, a: NDArray[np.float64], b: NDArray[np.float64], kinds: Sequence[str]
) -> None:
    parts = []
    for name, i in [("micro F1", None), *[(f"{k} F1", n) for n, k in enumerate(kinds)]]:
        ca = a.sum(axis=1) if i is None else a[:, i, :]
        cb = b.sum(axis=1) if i is None else b[:, i, :]
        parts.append(f"{name} {bootstrap.paired_difference(ca, cb, bootstrap.f1)}")
    print(f"  {title}: " + "; ".join(parts))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    add_dataset_argument(parser, "conll2003")
    parser.add_argument("--split", default="dev", help="train or dev (the test split is held out)")
    parser.add_argument("--recognizer", choices=(*RECOGNIZERS, "both"), default="spacy")
    parser.add_argument("--level", choices=("mention", "document", "both"), default="both")
    parser.add_argument("--show-errors", type=int, default=0, metavar="N")
    parser.add_argument(
        "--kinds",
        choices=("learned", "rules", "both"),
        default="learned",
        help="how the linker decides a name's kind: the trained model, the hand-set votes, or"
        " both side by side (with their paired difference)",
    )
    parser.add_argument(
        "--discovery",
        choices=("staged", "immediate", "both"),
        default="staged",
        help="new names: staged until confirmed (Herald's rule), or added to the knowledge base"
        " at once (the earlier rule), or both side by side (with their paired difference)",
    )
    add_linker_arguments(parser)
    parser.add_argument("--confirm-items", type=int, default=CONFIRM.items, metavar="N")
    parser.add_argument("--confirm-sources", type=int, default=CONFIRM.sources, metavar="N")
    args = parser.parse_args(argv)
    rule = ConfirmRule(args.confirm_items, args.confirm_sources)
    try:
        documents = read_split(args.data, args.split)
    except (RefusedSplit, ValueError) as refused:
        parser.error(str(refused))
    names = RECOGNIZERS if args.recognizer == "both" else (args.recognizer,)
    try:
        recognizers = {name: recognizer_for(name) for name in names}
    except Unavailable as missing:
        parser.error(str(missing))
    classes = {c: np.array([c == "all" or d.kind == c for d in documents]) for c in CLASSES}
    counts = class_counts(documents)
    print(f"CoNLL-2003 {args.split}: {len(documents)} documents, {dict(counts)}")
    print(f"classes: {SPORTS_RULE}")
    print(f"{LABEL_NOTE}; 95% bootstrap intervals over documents, {bootstrap.RESAMPLES} resamples")
    print(
        f"new names: {args.discovery}; confirmed by {rule.items} documents from {rule.sources}"
        f" sources (every document: {CONLL_SOURCE})"
    )
    mention_rows, document_rows = {}, {}
    rules_rows: dict[str, NDArray[np.float64]] = {}
    immediate_rows: dict[str, NDArray[np.float64]] = {}
    for name, recognizer in recognizers.items():
        started = time.process_time()
        mentions = recognizer.recognize([d.text for d in documents])
        ner = time.process_time() - started
        started = time.process_time()
        ways = ("learned", "rules") if args.kinds == "both" else (args.kinds,)
        discovery = "staged" if args.discovery == "both" else args.discovery
        linked_by = (
            {
                w: link(
                    documents,
                    mentions,
                    w,
                    discovery=discovery,
                    confirm=rule,
                    options=LinkerOptions.of(args),
                )
                for w in ways
            }
            if args.level != "mention"
            else {}
        )
        linked = linked_by.get(ways[0], [])
        if args.discovery == "both" and args.level != "mention":
            immediate_rows[name] = document_counts(
                documents,
                link(
                    documents,
                    mentions,
                    ways[0],
                    discovery="immediate",
                    options=LinkerOptions.of(args),
                ),
            )
        linking = time.process_time() - started
        print(
            f"\n{name} ({recognizer.model_name}): recogniser {1000 * ner / len(documents):.1f} ms,"
            f" linker {1000 * linking / len(documents):.1f} ms CPU per document"
        )
        if args.level != "document":
            every = every_name(recognizer, [d.text for d in documents])
            mention_rows[name] = mention_level(documents, every)
        if args.level != "mention":
            document_rows[name] = (
                document_counts(documents, [alone(m) for m in mentions]),
                document_counts(documents, linked),
            )
            if "rules" in linked_by and len(linked_by) == 2:
                rules_rows[name] = document_counts(documents, linked_by["rules"])
        for cls, keep in classes.items():
            print(f"\n  == {cls} ({int(keep.sum())} documents) ==")
            if name in mention_rows:
                exact = mention_rows[name][keep]
                table("mention level (exact span and type)", exact, MENTION_TYPES)
            if name in document_rows:
                by_itself, pipeline = (c[keep] for c in document_rows[name])
                table("document level, recogniser alone", by_itself, DOCUMENT_KINDS)
                table("document level, recogniser + Herald linker", pipeline, DOCUMENT_KINDS)
                difference("linker - alone", pipeline, by_itself, DOCUMENT_KINDS)
            if name in immediate_rows:
                immediate = immediate_rows[name][keep]
                table(
                    "document level, new names added at once (earlier rule)",
                    immediate,
                    DOCUMENT_KINDS,
                )
                difference("staged - at once", pipeline, immediate, DOCUMENT_KINDS)
            if name in rules_rows:
                rules = rules_rows[name][keep]
                table("document level, linker with hand-set kind votes", rules, DOCUMENT_KINDS)
                difference("learned - hand-set kinds", pipeline, rules, DOCUMENT_KINDS)
        if args.show_errors and linked:
            show_errors(documents, linked, args.show_errors)
    if len(recognizers) == 2:
        print("\nherald - spacy, paired over documents:")
        for cls, keep in classes.items():
            if mention_rows:
                b, a = (mention_rows[n][keep] for n in RECOGNIZERS)
                difference(f"{cls}, mention level", a, b, MENTION_TYPES)
            if document_rows:
                b, a = (document_rows[n][1][keep] for n in RECOGNIZERS)
                difference(f"{cls}, document level (pipeline)", a, b, DOCUMENT_KINDS)
    return 0


def show_errors(documents: list[Document], linked: list[list[Named]], limit: int) -> None:
    """The first ``limit`` documents with a document-level error of the pipeline (train or dev
    only: the split is one of those)."""
    shown = 0
    for document, system in zip(documents, linked, strict=True):
        gold = gold_entities((m.text, m.label) for m in document.mentions)
        wrong, missed = errors(gold, system)
        if (wrong or missed) and shown < limit:
            shown += 1
            headline = (document.title or document.body).split("\n", 1)[0][:90]
            print(f"- {document.doc_id} [{document.kind}] {headline}")
            print(f"    wrong {wrong}\n    missed {missed}")


if __name__ == "__main__":
    raise SystemExit(main())
