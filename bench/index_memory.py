"""Memory of the local search indexes in one process: the vector index (private to the process)
and the Tantivy index (memory-mapped files, shared by every process on the machine).

    .venv/bin/python bench/index_memory.py --home HERALD_HOME [--queries 200]

``HERALD_HOME`` is a home whose index was built (``bench/search_latency.py --work DIR`` leaves
one per backend under ``DIR/<backend>``). Printed: resident memory (VmRSS) and its private and
file-backed parts (``/proc/self/smaps_rollup``) before and after loading the vector snapshot, and
after searching the Tantivy index with the benchmark's queries; per item, the growth divided by
the items in the index. Sizes do not depend on the machine's load.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from pathlib import Path

import numpy as np

from herald.search.filters import IndexFilter
from herald.search.lexical import FieldBoosts, LexicalIndex
from herald.search.lexical_view import TantivyScope
from herald.search.query_syntax import parse_query
from herald.search.vectors import VectorIndex

sys.path.insert(0, str(Path(__file__).parent))


def memory() -> dict[str, int]:
    """Resident, anonymous (private heap) and file-backed resident bytes of this process."""
    out: dict[str, int] = {}
    for line in Path("/proc/self/smaps_rollup").read_text().splitlines():
        name, _, rest = line.partition(":")
        if name in ("Rss", "Anonymous", "Shared_Clean", "Private_Clean"):
            out[name] = int(rest.split()[0]) * 1024
    out["File"] = out.get("Shared_Clean", 0) + out.get("Private_Clean", 0)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--data", type=Path, default=Path(os.environ.get("HERALD_SHARED_DATA", "."))
    )
    args = parser.parse_args()
    import search_latency  # (its imports are not the indexes' memory)

    texts = [q["query"] for q in search_latency.make_queries(args.queries, args.data)]
    parse_query(texts[0])
    gc.collect()
    start = memory()
    vectors = VectorIndex(args.home / "index" / "vectors")
    items = len(vectors)
    gc.collect()
    loaded = memory()
    lexical = LexicalIndex(args.home / "index" / "lexical")
    for text in texts:
        parsed = parse_query(text)
        scope = TantivyScope(lexical, FieldBoosts(), parsed, IndexFilter())
        top = scope.top(list(parsed.terms), 100)
        scope.evidence(list(parsed.terms), np.unique(top.keys), top)
    searched = memory()
    print(f"index memory: {items:,} items in {args.home}; machine {os.cpu_count()} cores")
    rows = [
        ("vector index (private)", loaded["Anonymous"] - start["Anonymous"]),
        ("vector index (snapshot files mapped)", loaded["File"] - start["File"]),
        ("Tantivy after searches (private)", searched["Anonymous"] - loaded["Anonymous"]),
        ("Tantivy after searches (files mapped)", searched["File"] - loaded["File"]),
    ]
    for name, grown in rows:
        print(f"  {name:40s} {grown / 2**20:8.1f} MiB  {grown / max(items, 1):8.0f} B/item")
    print(f"  resident at the end: {searched['Rss'] / 2**20:.0f} MiB")


if __name__ == "__main__":
    main()
