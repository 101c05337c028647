import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from herald.search.vectors import DIMENSIONS, VectorIndex

DAY0 = datetime(2026, 11, 1, tzinfo=UTC)


def unit(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=DIMENSIONS).astype(np.float32)
    return v / np.linalg.norm(v)


def add(index: VectorIndex, keys: np.ndarray, matrix: np.ndarray, day: int = 0) -> None:
    media = ["news", "wire", "podcast"]
    index.upsert(
        keys,
        matrix,
        [DAY0 + timedelta(days=day + i % 10) for i in range(len(keys))],
        [media[i % 3] for i in range(len(keys))],
    )


def test_search_update_delete_and_persistence(tmp_path: Path) -> None:
    index = VectorIndex(tmp_path / "vectors")
    keys = np.arange(1, 51, dtype=np.int64) * 7919
    matrix = np.stack([unit(i) for i in range(50)])
    add(index, keys, matrix)
    found, sims = index.search(matrix[3], 3)
    assert found[0] == keys[3]
    assert sims[0] > 0.99

    add(index, keys[3:4], unit(999)[None, :])  # update: the old vector is gone
    assert keys[3] not in index.search(matrix[3], 3)[0][:1]
    assert index.search(unit(999), 1)[0][0] == keys[3]
    index.delete(keys[4:5])
    assert len(index) == 49
    assert keys[4] not in index.search(matrix[4], 5)[0]

    index.watermark = 42
    index.save()
    reopened = VectorIndex(tmp_path / "vectors")
    assert reopened.watermark == 42
    assert len(reopened) == 49
    vectors, present = reopened.vectors(np.array([keys[0], keys[4], 12345], dtype=np.int64))
    assert present.tolist() == [True, False, False]
    assert float(vectors[0] @ matrix[0]) > 0.99
    assert reopened.search(matrix[7], 1)[0][0] == keys[7]


@pytest.mark.parametrize("damage", ["empty", "cut in half"])
@pytest.mark.parametrize("part", ["rows.npz", "graph.usearch"])
def test_a_snapshot_damaged_on_disk_starts_empty(tmp_path: Path, part: str, damage: str) -> None:
    """A snapshot file left empty or cut short (the machine lost power while it was written):
    the index starts empty with watermark 0, so the next catch-up rebuilds it from the database,
    instead of failing every search of the process."""
    index = VectorIndex(tmp_path / "vectors")
    keys = np.arange(1, 11, dtype=np.int64)
    add(index, keys, np.stack([unit(i) for i in range(10)]))
    index.watermark = 7
    index.save()
    (snapshot,) = (tmp_path / "vectors").glob("snapshot-*")
    written = (snapshot / part).read_bytes()
    (snapshot / part).write_bytes(b"" if damage == "empty" else written[: len(written) // 2])
    reopened = VectorIndex(tmp_path / "vectors")
    assert (reopened.watermark, len(reopened)) == (0, 0)


def test_a_snapshot_is_on_disk_before_the_pointer_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a power loss the pointer must name a snapshot whose bytes reached the disk: every
    snapshot file, its directory and the new pointer are flushed before the pointer is replaced,
    and the directory holding the pointer after."""
    index = VectorIndex(tmp_path / "vectors")
    add(index, np.arange(1, 11, dtype=np.int64), np.stack([unit(i) for i in range(10)]))
    events: list[tuple[str, Path]] = []
    opened: dict[int, Path] = {}
    real_open, real_fsync, real_replace = os.open, os.fsync, os.replace

    def record_open(path: str | os.PathLike[str], flags: int, *args: int, **kw: int) -> int:
        descriptor = real_open(path, flags, *args, **kw)
        opened[descriptor] = Path(path)
        return descriptor

    def record_fsync(descriptor: int) -> None:
        real_fsync(descriptor)
        events.append(("fsync", opened[descriptor]))

    def record_replace(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
        real_replace(source, target)
        events.append(("replace", Path(target)))

    monkeypatch.setattr(os, "open", record_open)
    monkeypatch.setattr(os, "fsync", record_fsync)
    monkeypatch.setattr(os, "replace", record_replace)
    index.save()

    root = tmp_path / "vectors"
    (snapshot,) = root.glob("snapshot-*")
    pointer = root / "vectors.json"
    swap = events.index(("replace", pointer))
    before = {path for kind, path in events[:swap] if kind == "fsync"}
    files = set(snapshot.iterdir())
    assert {p.name for p in files} >= {"graph.usearch", "rows.npz"}
    assert files | {snapshot, root} <= before
    assert any(p.name.startswith("vectors.json.") and p.suffix == ".tmp" for p in before)
    assert ("fsync", root) in events[swap + 1 :]


def test_window_counts_and_filter_masks_follow_updates_and_deletes() -> None:
    index = VectorIndex(None)
    keys = np.arange(1, 31, dtype=np.int64)
    add(index, keys, np.stack([unit(i) for i in range(30)]))  # days 0-9, media cycling
    start, end = DAY0 + timedelta(days=2), DAY0 + timedelta(days=4)
    assert index.window_count(start, end, None) == 6  # days 2 and 3, three items each
    assert index.window_count(start, end, frozenset({"news"})) == 2
    rows = index.rows_of(keys)
    mask = index.filter_mask(rows, start, end, frozenset({"news"}))
    assert set(keys[mask].tolist()) == {
        k for i, k in enumerate(keys.tolist()) if i % 10 in (2, 3) and i % 3 == 0
    }
    index.delete(keys[2:3])  # day 2, news
    add(index, keys[3:4], unit(50)[None, :], day=30)  # moved out of the window
    assert index.window_count(start, end, None) == 4
    full = index.filter_mask(None, start, end, None)
    assert set(index.keys_of(np.flatnonzero(full)).tolist()) == {
        k for i, k in enumerate(keys.tolist()) if i % 10 in (2, 3) and i not in (2, 3)
    }


def test_reads_of_an_empty_index_find_nothing_and_never_fail() -> None:
    index = VectorIndex(None)
    keys = np.array([11, 12], dtype=np.int64)
    vectors, found = index.vectors(keys)  # used to index an empty matrix: IndexError
    assert vectors.shape == (2, DIMENSIONS)
    assert not found.any()
    assert not vectors.any()
    sims, found = index.key_similarities(keys, unit(1))
    assert sims.tolist() == [0.0, 0.0]
    assert not found.any()
    assert index.search(unit(1), 5)[0].size == 0
    assert index.neighbours(unit(1), 5).size == 0
    assert index.keys_of(np.array([0, 3], dtype=np.int64)).size == 0
    assert not index.filter_mask(np.array([0, 3], dtype=np.int64), DAY0, DAY0, None).any()
    assert index.similarities(np.array([0], dtype=np.int64), unit(1)).tolist() == [0.0]
    assert index.window_count(DAY0, DAY0 + timedelta(days=30), None) == 0


def test_rows_found_before_a_clear_or_delete_are_skipped_after_it() -> None:
    # A search holds graph rows between calls; a rebuild (clear) or a delete may land between.
    index = VectorIndex(None)
    keys = np.arange(1, 21, dtype=np.int64)
    matrix = np.stack([unit(i) for i in range(20)])
    add(index, keys, matrix)
    rows = index.neighbours(matrix[0], 5)
    start, end = DAY0 - timedelta(days=1), DAY0 + timedelta(days=30)
    assert index.keys_of(rows)[0] == keys[0]
    index.delete(index.keys_of(rows[:1]))
    assert keys[0] not in index.keys_of(rows).tolist()
    assert len(index.keys_of(rows)) == 4
    assert index.filter_mask(rows, start, end, None).tolist() == [False, True, True, True, True]
    assert index.similarities(rows, matrix[0])[0] == 0.0
    index.clear()
    assert index.keys_of(rows).size == 0
    assert not index.filter_mask(rows, start, end, None).any()
    assert not index.similarities(rows, matrix[0]).any()
    assert index.vectors(keys)[1].sum() == 0
