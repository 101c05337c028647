"""Build the ``ecbplus`` dataset folder the benchmarks read, from the public ECB+ release.

    git clone https://github.com/cltl/ecbPlus
    .venv/bin/python bench/ecbplus_prepare.py ecbPlus --data DATA

RELEASE (``ecbPlus`` above): a folder holding the ECB+ corpus (Cybulska and Vossen, LREC 2014) as
the ``cltl/ecbPlus`` repository publishes it: the 982 XML files, in ``ECB+.zip`` (or in any
``.zip`` or ``.tar.gz``, or unpacked, e.g. the ``ECB+`` folder of ``cltl/ECB-parser``), and
``ECBplus_coreference_sentences.csv``. Written into ``DATA/ecbplus``:

- ``docs.jsonl``: one line per article, in topic order: ``doc_id`` (the file name),
  ``topic``, ``subtopic`` (``<topic>_ecb`` or ``<topic>_ecbplus``: the gold story), ``split``
  (dev topics 2, 5, 12, 18, 21, 23, 34, 35; test topics 36-45; train the rest), ``source_url``
  and ``source_domain`` (the ECB+ part's sentence 0 is its source URL, taken out of the text),
  ``n_tokens`` and ``text``: the tokens of each sentence joined with spaces except before
  closing punctuation and contractions and after opening brackets and quotes, one sentence a
  line;
- ``ECBplus_xml.tar.gz``: the XML files as ``ECB+/<topic>/<file>`` (for the gold entities of
  ``entities_ecbplus_eval``);
- ``ECBplus_coreference_sentences.csv``, copied.
"""

from __future__ import annotations

import argparse
import io
import json
import re
import shutil
import sys
import tarfile
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

from public_data import DEFAULT

DOC_NAME = re.compile(r"(?:^|/)((\d+)_\d+ecb(?:plus)?)\.xml$")
DEV_TOPICS = frozenset({2, 5, 12, 18, 21, 23, 34, 35})
FIRST_TEST_TOPIC = 36
NO_SPACE_BEFORE = frozenset(
    {".", ",", ";", ":", "!", "?", "%", ")", "]", "}", "''", "’", "”", "n't"}
    | {"'s", "'re", "'ve", "'ll", "'d", "'m"}
)
NO_SPACE_AFTER = frozenset({"(", "[", "{", "$", "``", "“", "‘"})
SENTENCES = "ECBplus_coreference_sentences.csv"


def release_files(release: Path) -> Iterator[tuple[str, bytes]]:
    """(path, content) of every ECB+ XML file in ``release``: loose, zipped or in a tarball."""
    for path in sorted(release.rglob("*")):
        if path.suffix == ".zip":
            with zipfile.ZipFile(path) as archive:
                for name in sorted(archive.namelist()):
                    yield name, archive.read(name)
        elif path.name.endswith(".tar.gz"):
            with tarfile.open(path) as archive:
                for member in archive:
                    handle = archive.extractfile(member) if member.isfile() else None
                    if handle is not None:
                        yield member.name, handle.read()
        elif path.suffix == ".xml":
            yield str(path.relative_to(release)), path.read_bytes()


def corpus_files(release: Path) -> dict[str, bytes]:
    """The 982 articles' XML by document id (macOS resource forks and other files left out)."""
    found: dict[str, bytes] = {}
    for name, content in release_files(release):
        match = DOC_NAME.search(name)
        if match is None or "__MACOSX" in name or Path(name).name.startswith("._"):
            continue
        found.setdefault(match.group(1), content)
    return found


def detokenize(tokens: list[str]) -> str:
    text = ""
    previous = None
    for token in tokens:
        if text and token not in NO_SPACE_BEFORE and previous not in NO_SPACE_AFTER:
            text += " "
        text += token
        previous = token
    return text


def document(doc_id: str, content: bytes) -> dict[str, object]:
    root = ET.fromstring(content)
    sentences: dict[int, list[str]] = {}
    for token in root.iter("token"):
        sentences.setdefault(int(token.get("sentence", "0")), []).append(token.text or "")
    topic = int(doc_id.split("_")[0])
    part = "ecbplus" if doc_id.endswith("ecbplus") else "ecb"
    n_tokens = sum(len(tokens) for tokens in sentences.values())
    url = "".join(sentences.pop(0)) if part == "ecbplus" and 0 in sentences else None
    split = "dev" if topic in DEV_TOPICS else "test" if topic >= FIRST_TEST_TOPIC else "train"
    return {
        "doc_id": doc_id,
        "topic": topic,
        "subtopic": f"{topic}_{part}",
        "split": split,
        "source_url": url,
        "source_domain": urlparse(url).netloc if url else None,
        "n_tokens": n_tokens,
        "text": "\n".join(detokenize(sentences[n]) for n in sorted(sentences)),
    }


def write(files: dict[str, bytes], sentences: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    order = sorted(files, key=lambda doc_id: (int(doc_id.split("_")[0]), doc_id))
    with (out / "docs.jsonl").open("w", encoding="utf-8") as handle:
        for doc_id in order:
            handle.write(json.dumps(document(doc_id, files[doc_id]), ensure_ascii=False) + "\n")
    with tarfile.open(out / "ECBplus_xml.tar.gz", "w:gz") as archive:
        for doc_id in order:
            member = tarfile.TarInfo(f"ECB+/{doc_id.split('_')[0]}/{doc_id}.xml")
            member.size = len(files[doc_id])
            archive.addfile(member, io.BytesIO(files[doc_id]))
    shutil.copyfile(sentences, out / SENTENCES)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("release", type=Path, help="the folder holding the ECB+ release")
    parser.add_argument(
        "--data",
        metavar="DIR",
        type=Path,
        default=DEFAULT,
        help="the folder holding the public datasets: DIR/ecbplus is written "
        "(default: HERALD_SHARED_DATA)",
    )
    args = parser.parse_args()
    files = corpus_files(args.release)
    sentences = next(iter(sorted(args.release.rglob(SENTENCES))), None)
    if len(files) != 982 or sentences is None:
        what = f"{len(files)} of the 982 XML files" + ("" if sentences else f", no {SENTENCES}")
        sys.exit(f"{parser.prog}: error: {args.release} holds {what}")
    write(files, sentences, args.data / "ecbplus")
    print(f"{len(files)} articles written to {args.data / 'ecbplus'}")


if __name__ == "__main__":
    main()
