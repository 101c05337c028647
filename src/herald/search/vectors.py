"""The dense index: normalised MiniLM vectors by content key, an HNSW graph, and filter columns.

Each item has a row. The rows hold:
- the vectors as int8 with a scale per row (a quarter of float32's memory, cosine within about
  0.001), so the similarities of any set of items are one numpy gather and product (usearch's
  per-key lookup builds one Python object per key: milliseconds per thousand). Products use
  einsum, not BLAS: multi-threaded BLAS on a matrix-vector product this small is several times
  slower on a busy machine;
- the item's publication time and media type, the two filters almost every search has (a date
  window always), so dense candidates are checked against them in numpy, and a per-day count
  tells at once how many items a window holds (which decides how the graph is searched);
- the usearch HNSW graph, keyed by row number (int8: a quarter of float32's memory; candidates
  are rescored with the exact float16 vectors afterwards).

usearch has no multi-process story, so this index is a per-process projection: the database keeps
every vector, and each process keeps its index in step with the database's change sequence. It is
saved as a snapshot directory with the sequence it reflects (the watermark), so a restart only
replays what changed since. Several processes may save into one place: each writes a snapshot of
its own, then atomically replaces the pointer ``vectors.json`` naming that snapshot.
"""

from __future__ import annotations

import json
import os
import shutil
import time
import uuid
import zipfile
from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import numpy as np
import numpy.typing as npt

# onnx and ONNX Runtime (the embedding model's runtime) must be loaded before usearch: loaded
# after it they break (ONNX Runtime rejects valid graphs as invalid, torch stalls once onnx is
# imported, ONNX Runtime >= 1.23 crashes on import), seen with usearch 2.26.6, onnx 1.23.2 and
# onnxruntime 1.22.1-1.32.0. Loading them first changes nothing for usearch (tests/search).
import onnx  # noqa: F401  (load order, see above)
import onnxruntime  # noqa: F401
from usearch.index import Index

from herald.core.files import fsync_path
from herald.search.documents import Vector
from herald.search.rwlock import ReadWriteLock

DIMENSIONS = 384
MEDIA_CODES = {"news": 0, "wire": 1, "podcast": 2}
_POINTER_FILE = "vectors.json"
_KEEP_OLD_SNAPSHOTS_SECONDS = 60.0
_DAY = 86400
_BASE_EXPANSION = 64

Keys = npt.NDArray[np.int64]
Rows = npt.NDArray[np.int64]
Matrix = npt.NDArray[np.float32]
Mask = npt.NDArray[np.bool_]


def _new_graph(ndim: int) -> Index:
    return Index(
        ndim=ndim,
        metric="cos",
        dtype="i8",
        connectivity=16,
        expansion_add=128,
        expansion_search=_BASE_EXPANSION,
    )


class VectorIndex:
    def __init__(self, path: Path | None = None, *, ndim: int = DIMENSIONS) -> None:
        self.path = path
        self.ndim = ndim
        self._lock = ReadWriteLock()
        self.database: str | None = None  # identity of the database it was built from
        self._reset()
        if path is not None:
            self._load(path)

    # -- state ----------------------------------------------------------------------------------

    def _reset(self) -> None:
        self._graph = _new_graph(self.ndim)
        self._matrix = np.zeros((0, self.ndim), dtype=np.int8)
        self._scale = np.zeros(0, dtype=np.float32)  # vector = matrix row / scale
        self._row_keys = np.zeros(0, dtype=np.int64)  # -1: a free row
        self._published = np.zeros(0, dtype=np.int64)  # epoch seconds
        self._media = np.zeros(0, dtype=np.int8)  # -1: a free row
        self._rows: dict[int, int] = {}
        self._free: list[int] = []
        self._used = 0  # rows [0, _used) have been handed out
        self._per_day: Counter[tuple[int, int]] = Counter()  # (day, media code) -> items
        self.watermark = 0

    def _grow(self, needed: int) -> None:
        size = len(self._row_keys)
        if needed <= size:
            return
        grown = max(1024, 2 * size, needed)

        def extend(array: np.ndarray, fill: int) -> np.ndarray:
            out = np.full((grown, *array.shape[1:]), fill, dtype=array.dtype)
            out[:size] = array
            return out

        self._matrix = extend(self._matrix, 0)
        self._scale = extend(self._scale, 1)
        self._row_keys = extend(self._row_keys, -1)
        self._published = extend(self._published, 0)
        self._media = extend(self._media, -1)

    def _load(self, path: Path) -> None:
        try:
            meta = json.loads((path / _POINTER_FILE).read_text())
            if int(meta["ndim"]) != self.ndim:
                return  # another embedding model: start empty, the database has every vector
            snapshot = path / meta["snapshot"]
            self._graph.load(str(snapshot / "graph.usearch"))
            with (snapshot / "rows.npz").open("rb") as file, np.load(file) as arrays:
                matrix, scale, row_keys = arrays["matrix"], arrays["scale"], arrays["keys"]
                published, media = arrays["published"], arrays["media"]
        except (ValueError, KeyError, RuntimeError, OSError, EOFError, zipfile.BadZipFile):
            # Missing, replaced while we read it, or unreadable (a file left empty or cut short
            # when the machine stopped while it was written): start empty and catch up.
            self._reset()
            return
        self._matrix, self._scale, self._row_keys = matrix, scale, row_keys
        self._published, self._media = published, media
        self._used = len(row_keys)
        live = np.flatnonzero(row_keys >= 0)
        self._rows = dict(zip(row_keys[live].tolist(), live.tolist(), strict=True))
        self._free = np.flatnonzero(row_keys < 0).tolist()
        days = published[live] // _DAY
        self._per_day = Counter(zip(days.tolist(), media[live].tolist(), strict=True))
        self.watermark = int(meta["watermark"])
        self.database = meta.get("database")  # None: saved before identities

    def __len__(self) -> int:
        return len(self._rows)

    # -- writes ---------------------------------------------------------------------------------

    def _take_row(self, key: int) -> int:
        row = self._rows.get(key)
        if row is not None:
            return row
        if self._free:
            row = self._free.pop()
        else:
            self._grow(self._used + 1)
            row = self._used
            self._used += 1
        self._rows[key] = row
        self._row_keys[row] = key
        return row

    def _forget_row(self, row: int) -> None:
        if self._media[row] >= 0:
            self._per_day[(int(self._published[row]) // _DAY, int(self._media[row]))] -= 1

    def upsert(
        self,
        keys: Keys,
        vectors: Matrix,
        published: Sequence[datetime],
        media_types: Sequence[str],
    ) -> None:
        if len(keys) == 0:
            return
        with self._lock.writing():
            existing = [self._rows.get(k) for k in keys.tolist()]
            old = np.array([r for r in existing if r is not None], dtype=np.uint64)
            if len(old):
                self._graph.remove(old)
            rows = np.array([self._take_row(k) for k in keys.tolist()], dtype=np.int64)
            for row, was in zip(rows.tolist(), existing, strict=True):
                if was is not None:
                    self._forget_row(row)
            seconds = np.array([int(p.timestamp()) for p in published], dtype=np.int64)
            codes = np.array([MEDIA_CODES.get(m, 0) for m in media_types], dtype=np.int8)
            peak = np.maximum(np.abs(vectors).max(axis=1), 1e-12).astype(np.float32)
            scale = 127.0 / peak
            self._matrix[rows] = np.rint(vectors * scale[:, None]).astype(np.int8)
            self._scale[rows] = scale
            self._published[rows] = seconds
            self._media[rows] = codes
            self._per_day.update(zip((seconds // _DAY).tolist(), codes.tolist(), strict=True))
            # Large batches (a rebuild) use every core; small ones stay on the calling thread.
            threads = 0 if len(keys) >= 1000 else 1
            self._graph.add(
                rows.astype(np.uint64),
                np.ascontiguousarray(vectors, dtype=np.float32),
                threads=threads,
            )

    def delete(self, keys: Keys) -> None:
        if len(keys) == 0:
            return
        with self._lock.writing():
            rows = [self._rows.pop(k) for k in keys.tolist() if k in self._rows]
            if not rows:
                return
            self._graph.remove(np.array(rows, dtype=np.uint64))
            for row in rows:
                self._forget_row(row)
                self._row_keys[row] = -1
                self._media[row] = -1
                self._free.append(row)

    def clear(self) -> None:
        with self._lock.writing():
            self._reset()

    # -- reads ----------------------------------------------------------------------------------

    def rows_of(self, keys: Keys) -> Rows:
        """The row of each key (-1 where a key has no vector)."""
        get = self._rows.get
        return np.fromiter((get(k, -1) for k in keys.tolist()), np.int64, len(keys))

    def _live(self, rows: Rows) -> Mask:
        """Which of ``rows`` hold an item now. Rows come from an earlier call (the graph, a
        mask): a delete or a clear (``herald index rebuild``) in between may have freed them or
        emptied the arrays, so every read checks its rows instead of indexing blindly."""
        live: Mask = (rows >= 0) & (rows < self._used)
        if live.any():
            live[live] = self._row_keys[rows[live]] >= 0
        return live

    def keys_of(self, rows: Rows) -> Keys:
        """The key of each row, in order; rows no longer live are left out."""
        with self._lock.reading():
            rows = rows[self._live(rows)]
            keys: Keys = self._row_keys[rows]
        return keys

    def vectors(self, keys: Keys) -> tuple[Matrix, Mask]:
        """Stored vectors of ``keys`` (zero rows where a key has none) and which were found."""
        out = np.zeros((len(keys), self.ndim), dtype=np.float32)
        with self._lock.reading():
            rows = self.rows_of(keys)
            found = rows >= 0
            if found.any():
                rows = rows[found]
                out[found] = self._matrix[rows].astype(np.float32) / self._scale[rows][:, None]
        return out, found

    def _similarities(self, rows: Rows, query: Vector) -> npt.NDArray[np.float64]:
        """Cosine similarities of live ``rows`` (the caller holds the read lock)."""
        raw = np.einsum("ij,j->i", self._matrix[rows].astype(np.float32), query)
        sims: npt.NDArray[np.float64] = (raw / self._scale[rows]).astype(np.float64)
        return sims

    def similarities(self, rows: Rows, query: Vector) -> npt.NDArray[np.float64]:
        """Cosine similarity of ``query`` with the vector of each row (0 for a row not live)."""
        sims = np.zeros(len(rows), dtype=np.float64)
        with self._lock.reading():
            live = self._live(rows)
            if live.any():
                sims[live] = self._similarities(rows[live], query)
        return sims

    def key_similarities(self, keys: Keys, query: Vector) -> tuple[npt.NDArray[np.float64], Mask]:
        """Cosine similarity of ``query`` with each key's vector (0 where none), and which had
        one."""
        sims = np.zeros(len(keys), dtype=np.float64)
        with self._lock.reading():
            rows = self.rows_of(keys)
            found = rows >= 0
            if found.any():
                sims[found] = self._similarities(rows[found], query)
        return sims, found

    def neighbours(self, query: Vector, count: int) -> Rows:
        """Rows of the approximate nearest neighbours, best first."""
        if count <= 0:
            return np.zeros(0, dtype=np.int64)
        with self._lock.reading():
            if not self._rows:
                return np.zeros(0, dtype=np.int64)
            # Per search: a wide fetch must not leave the graph searching widely for everyone.
            self._graph.expansion_search = max(count, _BASE_EXPANSION)  # type: ignore[misc]
            matches = self._graph.search(query, count, threads=1)
        rows: Rows = np.asarray(matches.keys, dtype=np.uint64).astype(np.int64)
        return rows

    def search(self, query: Vector, count: int) -> tuple[Keys, npt.NDArray[np.float64]]:
        """Approximate nearest neighbours: keys and cosine similarities, best first."""
        with self._lock.reading():
            rows = self.neighbours(query, count)
            rows = rows[self._live(rows)]
            return self._row_keys[rows], self._similarities(rows, query)

    def window_count(self, start: datetime, end: datetime, media: frozenset[str] | None) -> int:
        """About how many items fall in ``[start, end)`` with one of ``media`` (whole days)."""
        first, last = int(start.timestamp()) // _DAY, (int(end.timestamp()) - 1) // _DAY
        codes = None if media is None else {MEDIA_CODES[m] for m in media if m in MEDIA_CODES}
        with self._lock.reading():
            return sum(
                n
                for (day, code), n in self._per_day.items()
                if first <= day <= last and (codes is None or code in codes)
            )

    def filter_mask(
        self, rows: Rows | None, start: datetime, end: datetime, media: frozenset[str] | None
    ) -> Mask:
        """Which of ``rows`` (None: every row) are live, in the window and of the media types."""
        with self._lock.reading():
            if rows is None:
                published, codes = self._published[: self._used], self._media[: self._used]
                mask = codes >= 0
            else:
                mask = self._live(rows)
                if not mask.any():
                    return mask
                safe = np.where(mask, rows, 0)  # row 0 exists: some row is live
                published, codes = self._published[safe], self._media[safe]
            mask &= (published >= int(start.timestamp())) & (published < int(end.timestamp()))
            if media is not None:
                allowed = np.zeros(len(codes), dtype=bool)
                for name in media:
                    allowed |= codes == MEDIA_CODES.get(name, -2)
                mask &= allowed
        return mask

    # -- persistence ----------------------------------------------------------------------------

    def save(self) -> None:
        """Persist a snapshot with its watermark; the snapshot may be newer, never older."""
        database = self.database  # before the watermark: a graph emptied for another database
        watermark = self.watermark  # is emptied first. Changes applied meanwhile: only newer
        if self.path is None:
            return
        self.path.mkdir(parents=True, exist_ok=True)
        name = f"snapshot-{uuid.uuid4().hex[:12]}"
        snapshot = self.path / name
        snapshot.mkdir()
        with self._lock.reading():
            self._graph.save(str(snapshot / "graph.usearch"))
            used = self._used
            np.savez(
                snapshot / "rows.npz",
                matrix=self._matrix[:used],
                scale=self._scale[:used],
                keys=self._row_keys[:used],
                published=self._published[:used],
                media=self._media[:used],
            )
            count = len(self._rows)
        meta = {"snapshot": name, "watermark": watermark, "count": count, "ndim": self.ndim}
        meta["database"] = database
        tmp = self.path / f"{_POINTER_FILE}.{uuid.uuid4().hex[:8]}.tmp"
        tmp.write_text(json.dumps(meta))
        # On disk before the pointer names it: after a power loss the pointer names a whole
        # snapshot, this one or the one before.
        for written in (*sorted(snapshot.iterdir()), snapshot, tmp, self.path):
            fsync_path(written)
        os.replace(tmp, self.path / _POINTER_FILE)
        fsync_path(self.path)
        cutoff = time.time() - _KEEP_OLD_SNAPSHOTS_SECONDS
        for old in self.path.glob("snapshot-*"):
            # Older snapshots, left a minute for a process that is still opening one.
            if old.name != name and old.stat().st_mtime < cutoff:
                shutil.rmtree(old, ignore_errors=True)
