"""Entity extraction and linking on WCEP September 2015 (428 dated event summaries).

    .venv/bin/python bench/entities_wcep_eval.py [--data DATA/wcep-wikitimes-2015-09] [--strict]

WCEP is report-only: its figures are printed (precision, recall and F1 with 95% bootstrap
intervals over the items, ``bench/bootstrap.py``), its errors never (``--show-errors`` is
refused).

Each event summary is run through Herald's recogniser and linker with the bundled seed
knowledge base; entities discovered on the way are added to the knowledge base, as in production.
The entities Herald links to an item are compared with the item's gold entities (Wikipedia URLs).

How a Herald entity is matched to a gold Wikipedia URL: the URL's title (underscores as spaces,
percent-decoded) must have the same normalised key (case, accents and punctuation ignored; see
``herald.entities.names``) as the entity's ``wikipedia`` tag (companies from pytickersymbols,
continents, Herald's curated organisations), its display name or one of its aliases; a US city
also matches Wikipedia's "City, State" title. So "Georgia" the US state does not match
``Georgia_(country)``, a discovered entity "Temple of Bel" matches ``Temple_of_Bel``, and the
organisation "Islamic State" (alias "Islamic State of Iraq and the Levant") matches the 2015 title.
A company's legal-form suffix does not matter on either side ("Pfizer" matches ``Pfizer_Inc.``),
as everywhere in Herald. A city or smaller place also matches Wikipedia's "Place, Region" and
"Place, Country" titles ("Mumbai, India"; a discovered "Lake County" the text placed in Illinois
matches ``Lake_County,_Illinois``).
An entity Herald discovered (it has no Wikipedia link, only a name) also matches a title without
its parenthesised qualifier ("Kim Davis" matches ``Kim_Davis_(county_clerk)``): the qualifier
is Wikipedia's way of telling same-named articles apart, which a bare name cannot do; the
knowledge base's entities do not get that leeway (the state "Georgia" still does not match
``Georgia_(country)``). ``--strict`` scores without these three rules (the rules of the first
published figures).
Each gold entity is matched at most once per item. Scores are micro-averaged over
(item, entity) pairs; the "in KB" line counts the gold entities that the seed could link at all.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections import Counter
from collections.abc import Sequence
from urllib.parse import unquote

import bootstrap
from herald.entities.kb import KnowledgeBase
from herald.entities.linking import EntityLinker, document_text
from herald.entities.model import EntityRecord
from herald.entities.names import alias_key, name_keys, strip_corporate_suffix
from linker_options import LinkerOptions, add_linker_arguments, linking_config
from public_data import add_dataset_argument
from recognizers import RECOGNIZERS, recognizer_for

_QUALIFIER = re.compile(r"\s*\([^)]*\)$")


def title_key(url: str) -> str:
    return alias_key(_title(url))


def _title(url: str) -> str:
    return unquote(url.rsplit("/wiki/", 1)[-1]).replace("_", " ")


def gold_keys(url: str, strict: bool = False) -> dict[str, str]:
    """The keys a gold link is matched by, each mapped to the link's own key: the title's, and
    unless ``strict`` the title's without a legal-form suffix and (``"bare:"`` prefixed, for
    discovered entities only) without its qualifier."""
    title = _title(url)
    key = alias_key(title)
    if strict:
        return {key: key}
    out = dict.fromkeys(name_keys(title), key)
    bare = _QUALIFIER.sub("", title)
    if bare != title:
        out.update({f"bare:{k}": key for k in name_keys(bare)})
    return out


def entity_keys(record: EntityRecord, kb: KnowledgeBase | None = None) -> set[str]:
    """Keys of the Wikipedia titles a record can match (see the module docstring); with ``kb``
    (not strict) also "City, Country", legal-form suffixes dropped and bare names."""
    keys = {alias_key(n) for n in (record.display_name, *record.aliases)}
    wiki = record.first_tag("wikipedia")
    if wiki:
        keys.add(title_key(wiki))
    region = record.first_tag("region")
    if record.first_tag("place_type") == "city" and region:
        # Wikipedia titles US cities "Quincy, Illinois".
        keys.add(alias_key(f"{record.display_name}, {region}"))
    if kb is None:
        return keys
    country = kb.country_of(record)
    local = record.entity_kind == "place" and record.first_tag("place_type") not in (
        "region",
        "country",
        "continent",
    )
    if local and region:
        keys.add(alias_key(f"{record.display_name}, {region}"))  # "Lake County, Illinois"
    if local and country is not None:
        keys.add(alias_key(f"{record.display_name}, {country.display_name}"))
    keys |= {strip_corporate_suffix(k) for k in keys}
    if record.origin == "discovered":
        keys |= {f"bare:{k}" for k in keys}
    return keys


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    add_dataset_argument(parser, "wcep-wikitimes-2015-09")
    parser.add_argument(
        "--show-errors", type=int, default=0, help="refused: WCEP is report-only (see above)"
    )
    parser.add_argument(
        "--strict", action="store_true", help="score by exact title keys only (see above)"
    )
    parser.add_argument("--recognizer", choices=RECOGNIZERS, default="herald")
    parser.add_argument(
        "--kinds",
        choices=("rules", "learned"),
        default="rules",
        help="how the linker decides a name's kind (HERALD_ENTITY_KINDS)",
    )
    add_linker_arguments(parser)
    args = parser.parse_args(argv)
    if args.show_errors:
        parser.error(
            "--show-errors: WCEP is report-only; its figures are printed, its errors never"
        )
    events = json.loads((args.data / "wikitimes_CEP_2015-09.json").read_text(encoding="utf-8"))

    started = time.perf_counter()
    kb = KnowledgeBase.from_seed()
    loaded = time.perf_counter()
    recognizer = recognizer_for(args.recognizer)
    linker = EntityLinker(kb, linking_config(args.kinds, LinkerOptions.of(args)))
    kb_keys: set[str] = set()
    for known in kb.records():
        kb_keys |= entity_keys(known)

    texts = [" ".join(e["description"].split()) for e in events]
    t0 = time.perf_counter()
    mentions = recognizer.recognize([document_text("", t) for t in texts])
    t1 = time.perf_counter()

    counts: dict[str, Counter[str]] = {n: Counter() for n in ("all", "kb", "discovered")}
    gold_total = 0
    gold_in_kb = 0
    by_kind: Counter[str] = Counter()
    correct_by_kind: Counter[str] = Counter()
    per_item: list[list[int]] = []  # right, answers, found, gold (bench/bootstrap.py)
    for event, text, item_mentions in zip(events, texts, mentions, strict=True):
        links = [g["wikiURL"] for g in event.get("entity", []) if g.get("wikiURL")]
        gold = {title_key(url) for url in links}
        # Every key a gold link can be matched by -> the link's own key.
        matchable = {k: v for url in links for k, v in gold_keys(url, args.strict).items()}
        gold_total += len(gold)
        gold_in_kb += len(gold & kb_keys)
        result = linker.link("", text, item_mentions)
        for draft in result.new_entities:
            kb.add(draft.to_record())
        unmatched = set(gold)
        tp = fp = 0
        for linked in result.entities:
            record = kb.get(linked.entity_id)
            assert record is not None
            keys = entity_keys(record, None if args.strict else kb)
            hit = next((matchable[k] for k in sorted(keys) if matchable.get(k) in unmatched), None)
            bucket = "discovered" if record.origin == "discovered" else "kb"
            by_kind[record.entity_kind] += 1
            for name in ("all", bucket):
                counts[name]["tp" if hit else "fp"] += 1
            if hit:
                unmatched.discard(hit)
                correct_by_kind[record.entity_kind] += 1
                tp += 1
            else:
                fp += 1
        counts["all"]["fn"] += len(unmatched)
        per_item.append([tp, tp + fp, tp, tp + len(unmatched)])
    t2 = time.perf_counter()

    print("WCEP Sept 2015: entity linking of 428 event summaries (gold: WikiTimes entity links)")
    print("Machine: 2 cores shared with other engineers' jobs; times are indicative only.")
    print(f"knowledge base: bundled seed, {len(kb_keys):,} name keys; load {loaded - started:.1f}s")
    print(f"gold entities: {gold_total}; with a matching name or link in the seed KB: {gold_in_kb}")
    tp, fp, fn = counts["all"]["tp"], counts["all"]["fp"], counts["all"]["fn"]
    scored = bootstrap.prf(bootstrap.as_counts(per_item))
    print(f"all linked entities, with 95% bootstrap intervals over the {len(per_item)} items:")
    print(f"  P={scored['P']} R={scored['R']} F1={scored['F1']}  (tp={tp} fp={fp} fn={fn})")
    for name in ("kb", "discovered"):
        c = counts[name]
        precision = c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] else 0.0
        print(f"  {name:<10} links: {c['tp'] + c['fp']:4d}, precision {precision:.3f}")
    kinds = ", ".join(f"{k} {correct_by_kind[k]}/{n}" for k, n in by_kind.most_common())
    print(f"correct/linked by kind: {kinds}")
    print(f"time: NER {t1 - t0:.1f}s, linking {t2 - t1:.1f}s for {len(events)} items")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
