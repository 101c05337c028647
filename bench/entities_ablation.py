"""What each of the linker's rules is worth: every rule switched off in turn, on CoNLL-2003.

    .venv/bin/python bench/entities_ablation.py --data DATA/conll2003 --split dev
        [--kinds learned|rules] [--recognizer herald|spacy] [--cache DIR] [--only NAME ...]
        [--markdown FILE] [--ecbplus DATA/ecbplus] [--together]

A rule is a function of the linker's stages that decides something a model does not: a test
(``-> bool``), a repair of the recogniser's spans (``-> list[Mention]``) or a special way to
find an entity (``-> ... | None``). Switching it off makes the test always false, the repair
leave the spans as they were, the special way find nothing. Each switched-off linker runs over
the split's documents with the recogniser's names computed once (``--cache`` keeps them between
runs), and is compared with the whole linker by the paired 95% bootstrap interval of the
difference in document-level micro F1, for all documents, general news and sports, and of the
organisations' F1. ``--ecbplus`` also scores the ECB+ train and dev topics (web news, whose
errors may be read; ``bench/entities_ecbplus_eval.py`` says how): micro and organisations' F1,
paired over their articles. A rule whose interval holds 0 in every column changes nothing
measurable. ``--together`` switches the ``--only`` rules off all at once instead (what deleting
them all would do).

Splits: ``train`` and ``dev`` only (the official test split is held out and refused).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import inspect
import pickle
import pkgutil
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
from numpy.typing import NDArray

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import herald.entities
from bench import bootstrap
from bench import entities_ecbplus_eval as ecbplus
from bench.clusters_data import load_ecbplus
from bench.conll_data import Document, RefusedSplit, read_split
from bench.entities_conll_eval import document_counts, link
from bench.entities_conll_score import DOCUMENT_KINDS
from bench.linker_options import linking_config
from bench.public_data import add_dataset_argument
from bench.recognizers import RECOGNIZERS, recognizer_for
from herald.enrich.ner import MENTION_FORMAT, Mention
from herald.entities.kb import KnowledgeBase
from herald.entities.linking import EntityLinker, document_text

Counts = NDArray[np.float64]
# Modules whose functions are the linker's rules (not storage, search or import).
NOT_RULES = {
    *("calibration", "jsonl", "kinds", "merge", "model", "repository", "search", "service"),
    *("staging", "table_changes", "views", "wikidata", "wordlists"),
}


@dataclass(frozen=True)
class Rule:
    name: str  # module.function or EntityLinker.method
    owner: Any  # the module or class it is defined in
    attribute: str
    off: Callable[..., Any]  # what the rule does when switched off
    kind: str  # test, repair or finder


def _mentions_argument(function: Callable[..., Any]) -> int | None:
    names = list(inspect.signature(function).parameters)
    return names.index("mentions") if "mentions" in names else None


def _switched_off(function: Callable[..., Any]) -> tuple[Callable[..., Any], str] | None:
    returns = str(inspect.signature(function).return_annotation)
    if returns == "bool":
        return (lambda *a, **k: False), "test"
    if returns.startswith("list[Mention]"):
        where = _mentions_argument(function)
        if where is None:
            return None
        return (lambda *a, **k: list(k["mentions"] if "mentions" in k else a[where])), "repair"
    if returns.endswith("| None") and "bool" not in returns:
        return (lambda *a, **k: None), "finder"
    return None


def linker_modules() -> list[ModuleType]:
    found = []
    for info in pkgutil.iter_modules(herald.entities.__path__):
        if info.name not in NOT_RULES:
            found.append(importlib.import_module(f"herald.entities.{info.name}"))
    return found


def rules() -> list[Rule]:
    out: list[Rule] = []
    for module in linker_modules():
        short = module.__name__.rsplit(".", 1)[1]
        for attribute, value in vars(module).items():
            if not (inspect.isfunction(value) and value.__module__ == module.__name__):
                continue
            off = _switched_off(value)
            if off is not None:
                out.append(Rule(f"{short}.{attribute}", module, attribute, *off))
    for attribute, value in vars(EntityLinker).items():
        if inspect.isfunction(value) and attribute.startswith("_") and attribute != "__init__":
            off = _switched_off(value)
            if off is not None:
                function, kind = off
                method = (lambda f: lambda self, *a, **k: f(*a, **k))(function)
                if kind == "repair":
                    where = _mentions_argument(value)
                    method = (lambda w: lambda self, *a, **k: list(k.get("mentions", a[w - 1])))(
                        where
                    )
                out.append(Rule(f"EntityLinker.{attribute}", EntityLinker, attribute, method, kind))
    return out


@contextmanager
def switched_off(rule: Rule) -> Iterator[None]:
    """The rule switched off wherever the linker's modules call it by name."""
    original = getattr(rule.owner, rule.attribute)
    owners = [rule.owner]
    if isinstance(rule.owner, ModuleType):
        owners += [m for m in linker_modules() if getattr(m, rule.attribute, None) is original]
    try:
        for owner in owners:
            setattr(owner, rule.attribute, rule.off)
        yield
    finally:
        for owner in owners:
            setattr(owner, rule.attribute, original)


def cached_mentions(
    documents: list[Document], split: str, cache: Path | None, name: str = "herald"
) -> list[list[Mention]]:
    recognizer = recognizer_for(name)
    texts = [d.text for d in documents]
    key = hashlib.sha256(
        "\n\x00".join([recognizer.model_name, str(MENTION_FORMAT), *texts]).encode()
    ).hexdigest()[:16]
    path = cache / f"mentions-{split}-{key}.pickle" if cache is not None else None
    if path is not None and path.exists():
        with path.open("rb") as handle:
            return pickle.load(handle)
    mentions = recognizer.recognize(texts)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as handle:
            pickle.dump(mentions, handle)
    return mentions


def columns(documents: list[Document]) -> dict[str, tuple[NDArray[np.bool_], int | None]]:
    general = np.array([d.kind == "general" for d in documents])
    organisation = list(DOCUMENT_KINDS).index("ORG") if "ORG" in DOCUMENT_KINDS else None
    return {
        "all F1": (np.ones(len(documents), dtype=bool), None),
        "general F1": (general, None),
        "sports F1": (~general, None),
        "ORG F1": (np.ones(len(documents), dtype=bool), organisation),
    }


def effects(
    documents: list[Document],
    base: tuple[Counts, Counts | None],
    ablated: tuple[Counts, Counts | None],
) -> dict[str, bootstrap.Interval]:
    out = {}
    for name, (keep, kind) in columns(documents).items():
        a = ablated[0][keep].sum(axis=1) if kind is None else ablated[0][keep][:, kind, :]
        b = base[0][keep].sum(axis=1) if kind is None else base[0][keep][:, kind, :]
        out[name] = bootstrap.paired_difference(a, b, bootstrap.f1)
    web_base, web_ablated = base[1], ablated[1]
    if web_base is not None and web_ablated is not None:
        org = WebNews.KINDS.index("org")
        out["ECB+ F1"] = bootstrap.paired_difference(
            web_ablated.sum(axis=1), web_base.sum(axis=1), bootstrap.f1
        )
        out["ECB+ org F1"] = bootstrap.paired_difference(
            web_ablated[:, org, :], web_base[:, org, :], bootstrap.f1
        )
    return out


@dataclass(frozen=True)
class WebNews:
    """The ECB+ train and dev topics, their gold and the recogniser's names."""

    KINDS = ecbplus.KINDS
    docs: list[Any]
    mentions: list[list[Mention]]
    gold: dict[str, ecbplus.GoldDoc]

    @staticmethod
    def read(folder: Path, recognizer: str = "herald") -> WebNews:
        docs = load_ecbplus(folder / "docs.jsonl")
        texts = [document_text(d.title, d.body) for d in docs]
        return WebNews(docs, ecbplus.recognise(texts, recognizer), ecbplus.read_gold(folder))

    def counts(self, kinds: str, kb: KnowledgeBase) -> Counts:
        linker = EntityLinker(kb, linking_config(kinds))
        wanted = ecbplus.SPLITS["traindev"]
        return ecbplus.score(self.docs, self.mentions, self.gold, linker, kb, wanted).counts()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    add_dataset_argument(parser, "conll2003")
    parser.add_argument("--split", default="dev", help="train or dev (the test split is held out)")
    parser.add_argument("--kinds", choices=("learned", "rules"), default="rules")
    parser.add_argument(
        "--recognizer",
        choices=RECOGNIZERS,
        default="herald",
        help="whose names the linker reads (Herald's default recogniser, or spaCy's)",
    )
    parser.add_argument("--cache", type=Path, help="keep the recogniser's names here")
    parser.add_argument("--only", nargs="*", default=(), help="rules by name (module.function)")
    parser.add_argument("--markdown", type=Path, help="write the table here as well")
    parser.add_argument(
        "--ecbplus", type=Path, metavar="DIR", help="also score ECB+ train and dev topics"
    )
    parser.add_argument(
        "--together", action="store_true", help="switch the --only rules off all at once"
    )
    args = parser.parse_args(argv)
    if args.together and not args.only:
        parser.error("--together needs the rules to switch off (--only NAME ...)")
    try:
        documents = read_split(args.data, args.split)
    except (RefusedSplit, ValueError) as refused:
        parser.error(str(refused))
    mentions = cached_mentions(documents, args.split, args.cache, args.recognizer)
    seed = pickle.dumps(KnowledgeBase.from_seed())  # each run starts from the same seed

    web = WebNews.read(args.ecbplus, args.recognizer) if args.ecbplus is not None else None

    def linked() -> tuple[Counts, Counts | None]:
        conll = document_counts(
            documents, link(documents, mentions, args.kinds, pickle.loads(seed))
        )
        return conll, web.counts(args.kinds, pickle.loads(seed)) if web is not None else None

    base = linked()
    print(f"CoNLL-2003 {args.split}: {len(documents)} documents, kinds by {args.kinds}")
    print("whole linker: " + ", ".join(f"{k} {v}" for k, v in _figures(documents, base).items()))
    if args.together:
        chosen = [r for r in rules() if r.name in args.only]
        with ExitStack() as stack:
            for rule in chosen:
                stack.enter_context(switched_off(rule))
            found = effects(documents, base, linked())
        print(
            f"{len(chosen)} rules switched off together: "
            + "; ".join(f"{k} {v}" for k, v in found.items())
        )
        return 0
    rows = []
    for rule in rules():
        if args.only and rule.name not in args.only:
            continue
        with switched_off(rule):
            try:
                ablated = linked()
            except Exception as failed:
                print(f"{rule.name}: the linker fails without it ({type(failed).__name__})")
                continue
        found = effects(documents, base, ablated)
        significant = any(not i.contains(0.0) for i in found.values())
        rows.append((rule, found, significant))
        cells = "; ".join(f"{k} {v}" for k, v in found.items())
        print(f"{rule.name} ({rule.kind}){' *' if significant else ''}: {cells}", flush=True)
    rows.sort(key=lambda r: r[1]["all F1"].point)
    names = list(rows[0][1]) if rows else list(columns(documents))
    lines = [f"| rule | kind | {' | '.join(names)} |", "|---|---|" + "---|" * len(names)]
    for rule, found, significant in rows:
        mark = "" if significant else " (none)"
        cells = " | ".join(f"{v.point:+.3f} [{v.low:+.3f}, {v.high:+.3f}]" for v in found.values())
        lines.append(f"| `{rule.name}`{mark} | {rule.kind} | {cells} |")
    quiet = sum(1 for *_, s in rows if not s)
    summary = f"{len(rows)} rules switched off one at a time; {quiet} change nothing measurable"
    print("\n" + summary)
    if args.markdown is not None:
        args.markdown.write_text(summary + "\n\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return 0


def _figures(documents: list[Document], counts: tuple[Counts, Counts | None]) -> dict[str, str]:
    out = {
        name: str(bootstrap.interval(counts[0][keep].sum(axis=1), bootstrap.f1))
        for name, (keep, kind) in columns(documents).items()
        if kind is None
    }
    if counts[1] is not None:
        out["ECB+ F1"] = str(bootstrap.interval(counts[1].sum(axis=1), bootstrap.f1))
    return out


if __name__ == "__main__":
    raise SystemExit(main())
