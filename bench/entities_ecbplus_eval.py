"""Distinct named people, organisations and places per article on ECB+ (gold entity coreference).

    .venv/bin/python bench/entities_ecbplus_eval.py [--data DATA/ecbplus]
                                                    [--split test|train|dev|traindev|all]
                                                    [--show-errors 20] [--dump-errors FILE]

The test topics are report-only: their figures are printed, their errors never
(``--show-errors`` and ``--dump-errors`` are refused for ``test`` and ``all``). Precision, recall
and F1 per kind and micro-averaged come with 95% bootstrap intervals over the split's articles
(``bench/bootstrap.py``).

Each of the 982 articles goes through Herald's recogniser and linker (bundled seed knowledge
base, title and body as ``bench/clusters_data.load_ecbplus`` splits them; entities discovered on
the way are added to the knowledge base, as in production). The recogniser's output is cached in
``bench/out`` (keyed by model and text), so re-running after a linking change is fast.

Gold: the XML's entity markables (``HUMAN_PART_PER`` -> person; ``HUMAN_PART_ORG`` -> organisation;
``HUMAN_PART_GPE``, ``LOC_GEO``, ``LOC_FAC`` -> place) grouped by their within-document coreference
relations; a chain counts when one of its mentions is a name (a capitalised word that is not just
the sentence's first word or "I"; in a title-cased or all-capitals line, such as a headline, only
a word the text also capitalises inside an ordinary sentence: "Lohan" but not "Woman" of
"Woman Killed In Queens Hit-And-Run, Driver Charged"; a word of digits and letters continues a
name: "Philadelphia 76ers", and starts one before a capitalised word: "117th Street"; a hyphen
the tokeniser set apart joins two capitalised words: "T - Mobile" is "T-Mobile"; the source
address some files keep as a first line proves nothing);
chains sharing a name are one entity. A capitalised word of a mention not taken for a name (a
headline's, a sentence's first) is not scored either way (a Herald entity matching only such a
word is neither right nor wrong), nor is a name ECB+ annotates as a participant of another
sort (``UNSCORED``: "IBM said", "Hollywood mourns", "on Twitter"). ECB+ annotates entities
only in some sentences
(those listed in ``ECBplus_coreference_sentences.csv`` and those holding a markable), so a
Herald entity is scored only when one of its names occurs in such a sentence, and not when it
matches only a name inside another entity's mention ("Indonesia" in the place "Indonesia's
Aceh", "Texas" in the people "Texas officials"): ECB+ could not annotate it.
A Herald entity matches a gold entity when a name of one (display name, alias or a spelling found
in the article) has the same normalised key
(``herald.entities.names.alias_key``) as a gold mention's name part (its capitalised words, e.g.
"Warren Jeffs" in "polygamist prophet Warren Jeffs"). Precision of kind k: Herald entities of kind
k
that match a gold entity of kind k, over Herald entities of kind k; recall: gold entities of kind k
matched by a Herald entity of kind k. Dev topics {2,5,12,18,21,23,34,35}, test 36-45, train the
rest.

``--dump-errors FILE`` writes every error of the chosen split (train, dev or traindev) as JSON
Lines (``type`` spurious, kind or missed; the document, the name(s), the kinds, the recogniser's
labels for the name and the annotated sentence it occurs in) for reading by hand; the audit of a
sample is in ``bench/entities_ecbplus_audit.jsonl`` (train/dev;
``bench/entities_ecbplus_audit_test.jsonl`` is an audit of test errors made before the test
topics became report-only, kept as a record; see ``docs/dev/benchmark-log.md``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import re
import sys
import tarfile
import time
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import bootstrap
from bench.clusters_data import load_ecbplus
from bench.linker_options import LinkerOptions, add_linker_arguments, linking_config
from bench.public_data import add_dataset_argument
from bench.recognizers import RECOGNIZERS, recognizer_for
from herald.enrich.ner import MENTION_FORMAT, Mention
from herald.entities.kb import KnowledgeBase
from herald.entities.linking import EntityLinker, document_text, title_cased
from herald.entities.names import alias_key

CACHE = Path(__file__).resolve().parent / "out"
SPLITS = {
    "train": {"train"},
    "dev": {"dev"},
    "test": {"test"},
    "traindev": {"train", "dev"},
    "all": {"train", "dev", "test"},
}
KINDS = ("person", "org", "place")
GOLD_KIND = {
    "HUMAN_PART_PER": "person",
    "HUMAN_PART_ORG": "org",
    "HUMAN_PART_GPE": "place",
    "LOC_GEO": "place",
    "LOC_FAC": "place",
}
# Names ECB+ annotates as participants of another sort: an organisation or a place standing for
# the people of it ("IBM said", "Hollywood mourns": HUMAN_PART_MET) or a location that is not a
# place ("on Twitter", "on BBC One": LOC_OTHER). A Herald entity of that name is neither right nor
# wrong.
UNSCORED = frozenset({"HUMAN_PART_MET", "LOC_OTHER"})
HERALD_KIND = {"person": "person", "company": "org", "organization": "org", "place": "place"}
_CONNECT = frozenset({"of", "the", "and", "for", "de", "du", "la", "le", "von", "van", "al", "bin"})
_PRONOUNS = frozenset(
    {"i", "he", "she", "it", "its", "they", "we", "you", "his", "her", "their", "'s", "’s"}
)


@dataclass(slots=True)
class Gold:
    kind: str
    names: set[str] = field(default_factory=set)  # alias keys of the head names
    inner: set[str] = field(default_factory=set)  # names inside a mention, not its head


@dataclass(slots=True)
class GoldDoc:
    doc_id: str
    entities: list[Gold]
    annotated_text: str  # the annotated sentences, one per line
    inner: set[str]  # names only seen inside another entity's mention ("Indonesia's Aceh")


def name_parts(
    tokens: list[str],
    first_in_sentence: list[bool],
    mid_capitals: frozenset[str] = frozenset(),
    in_title_case: list[bool] | None = None,
) -> tuple[list[str], list[str]]:
    """The head name of a mention and its other names: "polygamist prophet Warren Jeffs" ->
    (["Warren Jeffs"], []); "Indonesia 's Aceh" -> (["Aceh"], ["Indonesia"]); "Texas officials"
    -> ([], ["Texas"]). The head is the capitalised run that ends the mention, else the first run
    when a comma or preposition follows it ("Bountiful in the BC interior")."""
    runs: list[tuple[int, int]] = []  # token ranges
    start = None
    titled = in_title_case or [False] * len(tokens)
    for i, token in enumerate(tokens):
        capital = token[:1].isupper() and token.lower() not in _PRONOUNS
        if capital and titled[i] and token not in mid_capitals:
            # a title-cased or all-capitals line capitalises every word: only a word also
            # capitalised inside a sentence of the text's own is a name ("Lohan", not "Woman")
            capital = False
        # "76ers" continues a name ("Philadelphia 76ers"), as a capitalised word would, and
        # "117th" starts one before a capitalised word ("117th Street").
        numbered = _DIGITS_AND_LETTERS.fullmatch(token) is not None
        before_capital = i + 1 < len(tokens) and tokens[i + 1][:1].isupper()
        capital = capital or (numbered and (start is not None or before_capital))
        # a hyphen the tokeniser set apart joins two capitalised words ("T - Mobile")
        hyphen = token == "-" and before_capital
        joins = start is not None and (
            token.lower() in _CONNECT or (token == "." and len(tokens[i - 1]) == 1) or hyphen
        )
        if capital or joins:
            start = i if start is None else start
            continue
        if start is not None:
            runs.append((start, i))
        start = None
    if start is not None:
        runs.append((start, len(tokens)))
    texts = []
    for a, b in runs:
        while b > a and tokens[b - 1].lower() in _CONNECT:
            b -= 1
        if b == a or (b - a == 1 and first_in_sentence[a] and tokens[a] not in mid_capitals):
            # a sentence's first word is capitalised anyway: a name if capitalised elsewhere
            texts.append(("", a, b))
            continue
        text = "".join(t if t == "." else " " + t for t in tokens[a:b]).strip()
        text = text.replace(" - ", "-")
        texts.append((re.sub(r"\b([A-Z])\. (?=[A-Z]\.)", r"\1.", text), a, b))
    head: list[str] = []
    if texts and texts[-1][2] == len(tokens) and texts[-1][0]:
        head = [texts[-1][0]]
    elif texts and texts[0][0] and tokens[texts[0][2]].lower() in _HEAD_ENDS:
        head = [texts[0][0]]
    others = [t for t, _, _ in texts if t and t not in head]
    return head, others


_POSSESSIVE = re.compile(r"(?<=\w)['’]s$")
_DIGITS_AND_LETTERS = re.compile(r"\d+[A-Za-z]{2,}")
_HEAD_ENDS = frozenset({",", "in", "of", "at", "on", "near", "(", "-", "--"})


def _title_cased(words: list[str]) -> bool:
    """Whether a line of three words or more capitalises every word but the small ones
    ("Woman Killed In Queens Hit-And-Run, Driver Charged"), or every letter, rather than only
    its names: as Herald reads a title (:func:`herald.entities.linking.title_cased`)."""
    long_words = sum(1 for w in words[1:] if w[:1].isalpha() and len(w) > 1)
    return long_words >= 3 and title_cased(" ".join(words))


def read_gold(data: Path) -> dict[str, GoldDoc]:
    annotated: dict[str, set[int]] = defaultdict(set)
    for line in (data / "ECBplus_coreference_sentences.csv").read_text().splitlines()[1:]:
        topic, name, sentence = line.split(",")
        annotated[f"{topic}_{name}"].add(int(sentence))
    out: dict[str, GoldDoc] = {}
    with tarfile.open(data / "ECBplus_xml.tar.gz") as tar:
        for member in tar:
            if not member.name.endswith(".xml"):
                continue
            handle = tar.extractfile(member)
            assert handle is not None
            root = ET.parse(handle).getroot()
            doc_id = Path(member.name).stem
            out[doc_id] = _gold_doc(doc_id, root, annotated[doc_id])
    return out


def _gold_doc(doc_id: str, root: ET.Element, sentences: set[int]) -> GoldDoc:
    tokens = {t.get("t_id", ""): t for t in root.iter("token")}
    first: dict[str, bool] = {}
    previous_sentence = None
    for t_id, token in tokens.items():
        first[t_id] = token.get("sentence") != previous_sentence
        previous_sentence = token.get("sentence")
    by_sentence: dict[str, list[str]] = defaultdict(list)
    for token in tokens.values():
        by_sentence[token.get("sentence", "")].append(token.text or "")
    # a title-cased line, or the source address ECB+ keeps as the first line of its newer files
    # ("http : / / www ... / Woman - Killed - In - Queens ..."): capitals there prove nothing
    titled = {
        n
        for n, words in by_sentence.items()
        if _title_cased(words) or (words and words[0].lower() in ("http", "https"))
    }
    in_title = {t_id: tok.get("sentence", "") in titled for t_id, tok in tokens.items()}
    mid_capitals = frozenset(
        (tok.text or "")
        for t_id, tok in tokens.items()
        if not first[t_id] and not in_title[t_id] and (tok.text or "")[:1].isupper()
    )
    kinds: dict[str, str] = {}
    names: dict[str, tuple[list[str], list[str]]] = {}
    unsure: dict[str, set[str]] = {}
    unscored: set[str] = set()
    markables = root.find("Markables")
    sentences = set(sentences)
    for markable in markables if markables is not None else []:
        for anchor in markable.findall("token_anchor"):  # an annotated sentence
            sentences.add(int(tokens[anchor.get("t_id", "")].get("sentence", "-1")))
        kind = GOLD_KIND.get(markable.tag)
        anchors = [a.get("t_id", "") for a in markable.findall("token_anchor")]
        if markable.tag in UNSCORED and anchors:
            words = [tokens[a].text or "" for a in anchors]
            found = name_parts(words, [first[a] for a in anchors], mid_capitals)
            unscored.update(alias_key(n) for n in (*found[0], *found[1]))
        if kind is None or not anchors:
            continue
        m_id = markable.get("m_id", "")
        kinds[m_id] = kind
        # A possessive left in a token ("Newton's" in "Cam Newton's") is not part of the name.
        words = [
            _POSSESSIVE.sub("", tokens[a].text or "") or (tokens[a].text or "") for a in anchors
        ]
        starts = [first[a] for a in anchors]
        names[m_id] = name_parts(words, starts, mid_capitals, [in_title[a] for a in anchors])
        # Capitalised words the reading above does not take for names (a headline's "Woman",
        # but also "Lindsay Lohan" in a headline when the text calls her "LiLo"; a sentence's
        # first word) cannot be told from words: not scored.
        loose_head, loose_others = name_parts(words, [False] * len(words))
        unsure[m_id] = {*loose_head, *loose_others} - {*names[m_id][0], *names[m_id][1]}
    # Chains: mentions pointing at the same target; the rest are singletons.
    chain_of = {m: m for m in kinds}
    relations = root.find("Relations")
    for relation in relations if relations is not None else []:
        target = relation.find("target")
        if target is None:
            continue
        for source in relation.findall("source"):
            m = source.get("m_id", "")
            if m in chain_of:
                chain_of[m] = "t" + target.get("m_id", "")
    chains: dict[str, Gold] = {}
    for m, chain in chain_of.items():
        gold = chains.setdefault(chain, Gold(kinds[m]))
        head, others = names[m]
        for name in head:
            words = alias_key(name).split()
            gold.names.add(" ".join(words))
            if gold.kind == "person":  # "Sgt Tim Shields" is also "Tim Shields" and "Shields"
                gold.names.update(" ".join(words[i:]) for i in range(1, len(words)))
        gold.inner.update(alias_key(n) for n in (*others, *unsure[m]))
    entities: list[Gold] = []
    inner: set[str] = set(unscored)
    for gold in chains.values():  # chains sharing a name are one entity
        inner |= gold.inner
        if not gold.names:
            continue
        same = next((e for e in entities if e.kind == gold.kind and e.names & gold.names), None)
        if same is None:
            entities.append(gold)
        else:
            same.names |= gold.names
    lines: dict[str, list[str]] = defaultdict(list)
    for token in tokens.values():
        if int(token.get("sentence", "-1")) in sentences:
            lines[token.get("sentence", "")].append(token.text or "")
    inner -= {n for e in entities for n in e.names}
    return GoldDoc(doc_id, entities, "\n".join(" ".join(w) for w in lines.values()), inner)


def recognise(texts: list[str], name: str = "herald") -> list[list[Mention]]:
    digest = hashlib.sha256("\x00".join(texts).encode()).hexdigest()[:16]
    recognizer = recognizer_for(name)
    path = CACHE / f"ecbplus-ner-{recognizer.model_name}-v{MENTION_FORMAT}-{digest}.pkl"
    if path.exists():
        cached: list[list[Mention]] = pickle.loads(path.read_bytes())
        return cached
    found = recognizer.recognize(texts)
    CACHE.mkdir(exist_ok=True)
    path.write_bytes(pickle.dumps(found))
    return found


def occurs(name: str, text: str) -> bool:
    spaced = " ".join(re.findall(r"\w+|[^\w\s]", name))  # the XML text is tokenised
    return any(
        re.search(rf"(?<!\w){re.escape(n)}(?!\w)", text) for n in {name, spaced} if len(n) > 1
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    add_dataset_argument(
        parser, "ecbplus", "ECBplus_xml.tar.gz", "ECBplus_coreference_sentences.csv"
    )
    parser.add_argument("--split", default="test", choices=SPLITS, help="which topics to score")
    parser.add_argument("--show-errors", type=int, default=0, help="train, dev, traindev only")
    parser.add_argument("--recognizer", choices=RECOGNIZERS, default="herald")
    parser.add_argument(
        "--kinds",
        choices=("rules", "learned"),
        default="rules",
        help="how the linker decides a name's kind (HERALD_ENTITY_KINDS)",
    )
    parser.add_argument(
        "--dump-errors", type=Path, help="write the split's errors (JSON Lines; train/dev only)"
    )
    add_linker_arguments(parser)
    args = parser.parse_args(argv)
    wanted = SPLITS[args.split]
    if (args.show_errors or args.dump_errors) and "test" in wanted:
        parser.error(
            f"--split {args.split}: the test topics are report-only; their errors are not shown"
            " (--show-errors and --dump-errors take train, dev or traindev)"
        )
    gold = read_gold(args.data)
    docs = load_ecbplus(args.data / "docs.jsonl")
    texts = [document_text(d.title, d.body) for d in docs]
    mentions = recognise(texts, args.recognizer)
    kb = KnowledgeBase.from_seed()
    linker = EntityLinker(kb, linking_config(args.kinds, LinkerOptions.of(args)))
    scored = score(docs, mentions, gold, linker, kb, wanted, args.show_errors)
    per_document, errors, dumped, link_seconds = (
        scored.per_document,
        scored.errors,
        scored.dumped,
        scored.link_seconds,
    )
    for line in scored.shown:
        print(line)
    print(f"ECB+ {args.split}: distinct named entities per article (gold: ECB+ entity chains)")
    print(f"  95% bootstrap intervals over the {len(per_document)} articles")
    for kind in [*KINDS, "micro"]:
        kinds = KINDS if kind == "micro" else (kind,)
        counts = bootstrap.as_counts([np.sum([r[k] for k in kinds], axis=0) for r in per_document])
        scored = bootstrap.prf(counts)
        total = counts.sum(axis=0).astype(int)
        print(
            f"  {kind:<7} P={scored['P']} R={scored['R']} F1={scored['F1']}"
            f"  (herald {total[1]}, correct {total[0]}; gold {total[3]}, found {total[2]})"
        )
    print(f"errors: {dict(errors['fp'])} spurious, {dict(errors['fn'])} missed,")
    print(f"        kind confusions (gold->herald) {dict(errors['kind'])}")
    print(f"linking CPU {1000 * link_seconds / len(docs):.2f} ms per article (all {len(docs)})")
    if args.dump_errors:
        with args.dump_errors.open("w", encoding="utf-8") as out:
            for error in dumped:
                out.write(json.dumps(error, ensure_ascii=False) + "\n")
        print(f"{len(dumped)} errors written to {args.dump_errors}")
    return 0


@dataclass(slots=True)
class Scored:
    """The per-article counts of the chosen topics and their errors."""

    per_document: list[dict[str, list[int]]]  # kind -> [right, answers, found, gold]
    errors: dict[str, Counter[str]]
    dumped: list[dict[str, object]]
    shown: list[str]
    link_seconds: float

    def counts(self) -> np.ndarray:
        """(articles, kinds, 4) counts, for paired comparisons."""
        return np.asarray(
            [[r[k] for k in KINDS] for r in self.per_document], dtype=np.float64
        ).reshape(len(self.per_document), len(KINDS), 4)


def score(
    docs: Sequence[Any],
    mentions: Sequence[list[Mention]],
    gold: dict[str, GoldDoc],
    linker: EntityLinker,
    kb: KnowledgeBase,
    wanted: set[str],
    show: int = 0,
) -> Scored:
    """Link every article in order (new entities join ``kb`` as they are found) and score the
    articles of the ``wanted`` splits; ``show``: how many articles' errors to keep as text."""
    errors: dict[str, Counter[str]] = {k: Counter() for k in ("fp", "fn", "kind")}
    link_seconds = 0.0
    shown = 0
    shown_lines: list[str] = []
    dumped: list[dict[str, object]] = []
    per_document: list[dict[str, list[int]]] = []
    for doc, found in zip(docs, mentions, strict=True):
        started = time.process_time()
        result = linker.link(doc.title, doc.body, found)
        link_seconds += time.process_time() - started
        for draft in result.new_entities:
            kb.add(draft.to_record())
        if doc.split not in wanted:
            continue
        g = gold[doc.doc_id]
        row = {kind: [0, 0, 0, 0] for kind in KINDS}  # right, answers, found, gold
        per_document.append(row)
        matched: set[int] = set()
        wrong, missed = [], []
        for entity in result.entities:
            kind = HERALD_KIND.get(entity.entity_kind)
            record = kb.get(entity.entity_id)
            names = {entity.display_name, *getattr(entity, "surfaces", ())}
            if record is not None:
                names.update(record.aliases)
            if not any(occurs(n, g.annotated_text) for n in names):
                continue  # ECB+ did not annotate the sentences it is in
            keys = {alias_key(n) for n in names}
            hits = [i for i, e in enumerate(g.entities) if e.names & keys]
            same = [i for i in hits if g.entities[i].kind == kind]
            if not hits and keys & g.inner:
                continue  # named only inside another mention: ECB+ could not annotate it
            if kind is None:
                if hits:
                    errors["kind"][f"{g.entities[hits[0]].kind}->{entity.entity_kind}"] += 1
                continue
            row[kind][1] += 1
            if same:
                row[kind][0] += 1
                matched.update(same)
            else:
                if hits:
                    errors["kind"][f"{g.entities[hits[0]].kind}->{kind}"] += 1
                else:
                    errors["fp"][kind] += 1
                wrong.append(f"{entity.display_name} ({kind})")
                dumped.append(
                    {
                        "type": "kind" if hits else "spurious",
                        "doc": doc.doc_id,
                        "split": doc.split,
                        "name": entity.display_name,
                        "kind": kind,
                        "gold_kind": g.entities[hits[0]].kind if hits else None,
                        "surfaces": sorted(names),
                        "labels": _labels(found, keys),
                        "context": _context(names, g.annotated_text),
                    }
                )
        for i, e in enumerate(g.entities):
            row[e.kind][3] += 1
            if i in matched:
                row[e.kind][2] += 1
            else:
                errors["fn"][e.kind] += 1
                missed.append(f"{sorted(e.names)} ({e.kind})")
                as_other = [
                    f"{x.display_name} ({x.entity_kind})"
                    for x in result.entities
                    if e.names & {alias_key(n) for n in (x.display_name, *x.surfaces)}
                ]
                dumped.append(
                    {
                        "type": "missed",
                        "doc": doc.doc_id,
                        "split": doc.split,
                        "names": sorted(e.names),
                        "gold_kind": e.kind,
                        "linked_as": as_other,
                        "labels": _labels(found, e.names),
                        "context": _context(e.names, g.annotated_text, keys=True),
                    }
                )
        if show and shown < show and (wrong or missed):
            shown += 1
            shown_lines.append(f"- {doc.doc_id}: wrong {wrong}\n    missed {missed}")
    return Scored(per_document, errors, dumped, shown_lines, link_seconds)


def _labels(found: list[Mention], keys: set[str]) -> list[str]:
    """The recogniser's labels for mentions with one of these name keys ("ORG 2", "GPE 1")."""
    labels = Counter(m.label for m in found if alias_key(m.text) in keys)
    return [f"{label} {n}" for label, n in labels.most_common()]


def _context(names: set[str], annotated: str, keys: bool = False) -> str:
    """The first annotated sentence holding one of the names (or name keys)."""
    for line in annotated.splitlines():
        if keys:
            words = alias_key(line)
            if any(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", words) for n in names):
                return line
        elif any(occurs(n, line) for n in names):
            return line
    return ""


if __name__ == "__main__":
    raise SystemExit(main())
