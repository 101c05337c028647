"""Syndication detection: the same story text reprinted by several outlets shares one
``article_id`` while each outlet keeps its own content item.

Design. A text is normalised (Unicode NFKC, case-folded, words only) and cut into overlapping
5-word shingles; a 128-permutation MinHash summarises the shingle set. Reprints keep most
shingles even with a different headline, a changed sentence or a local paragraph added, so the
estimated Jaccard similarity stays high, while two reports of the same event written separately
share few 5-word runs. Two refinements from real reprints (ECB+ corpus, tests):

- an outlet that prints only part of a wire story (an excerpt) has a low Jaccard but a high
  containment, estimated from the MinHash and both set sizes; it counts as a reprint too;
- texts under ``MIN_SHINGLES`` shingles (one-paragraph briefs) get no fingerprint: their
  overlap says too little.

Candidates are found with LSH over 42 bands of 3 rows (band keys are plain 64-bit integers an
index can look up), then confirmed with the estimates. Why MinHash and not SimHash: it estimates
set overlap directly (so excerpts can be recognised) and its band keys make an equality lookup
in any SQL database.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
import zlib
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

__all__ = [
    "BANDS",
    "NUM_PERM",
    "ROWS",
    "SyndicationIndex",
    "TextFingerprint",
    "fingerprint",
    "is_syndicated",
]

SHINGLE_WORDS = 5
NUM_PERM = 128
BANDS = 42
ROWS = 3
MIN_SHINGLES = 25
JACCARD_THRESHOLD = 0.5
CONTAINMENT_THRESHOLD = 0.8
MIN_SHINGLES_FOR_CONTAINMENT = 40


def _seeds() -> npt.NDArray[np.uint64]:
    # Derived from SHA-256 so signatures never change with a library's random generator.
    values = [
        int.from_bytes(hashlib.sha256(f"herald-minhash-{i}".encode()).digest()[:8], "big")
        for i in range(NUM_PERM)
    ]
    return np.array(values, dtype=np.uint64).reshape(NUM_PERM, 1)


_SEEDS = _seeds()
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S27, _S30, _S31 = np.uint64(27), np.uint64(30), np.uint64(31)


def _mix(values: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """SplitMix64's finaliser: a bijection on 64-bit words with full avalanche, so seeding it
    with a different XOR mask gives an independent-looking permutation per MinHash row."""
    z = values + _GOLDEN
    z ^= z >> _S30  # in place: fewer temporary arrays (this runs ten times per text)
    z *= _MIX1
    z ^= z >> _S27
    z *= _MIX2
    z ^= z >> _S31
    return z


_WORD = re.compile(r"\w+")


# Bytes that can be part of a word (``\w``): ASCII letters, digits and "_", and every byte of a
# non-ASCII character's UTF-8 form; every other byte becomes a space.
_WORD_BYTES = bytes(b if b >= 0x80 or _WORD.fullmatch(chr(b)) else 0x20 for b in range(256))


def _words(text: str) -> list[bytes]:
    r"""The text's words (``\w+`` of its NFKC, case-folded form) in UTF-8, in order.

    Split at every other ASCII byte first (bytes methods, several times faster than the regular
    expression); only a piece holding non-ASCII characters goes through the expression, which
    also splits it at the non-ASCII characters that are not word characters (dashes, quotes).
    A match of ``\w+`` never spans an ASCII non-word character, so the words are the same."""
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    # "surrogatepass": a lone surrogate (never a word character) must not fail the text.
    data = text.casefold().encode("utf-8", "surrogatepass").translate(_WORD_BYTES)
    pieces = data.split()
    if data.isascii():
        return pieces
    words: list[bytes] = []
    for piece in pieces:
        if piece.isascii():
            words.append(piece)
        else:
            found = _WORD.findall(piece.decode("utf-8", "surrogatepass"))
            words.extend(word.encode("utf-8") for word in found)
    return words


_BAND_SALTS = np.array(
    [
        int.from_bytes(hashlib.sha256(f"herald-band-{b}".encode()).digest()[:8], "big")
        for b in range(BANDS)
    ],
    dtype=np.uint64,
)


@dataclass(frozen=True, slots=True, eq=False)
class TextFingerprint:
    signature: npt.NDArray[np.uint64]  # NUM_PERM minimum hashes
    size: int  # distinct shingles in the text
    words: int = 0  # words in the text (0 when restored from storage)
    _band_keys: tuple[int, ...] = field(default=(), repr=False)

    def band_keys(self) -> list[int]:
        """One signed 64-bit key per band (fits a BIGINT column)."""
        if self._band_keys:
            return list(self._band_keys)
        keys = _band_keys(self.signature)
        object.__setattr__(self, "_band_keys", tuple(keys))
        return keys

    def to_bytes(self) -> bytes:
        return self.size.to_bytes(4, "big") + self.signature.astype(">u8").tobytes()

    @classmethod
    def from_bytes(cls, data: bytes) -> TextFingerprint:
        size = int.from_bytes(data[:4], "big")
        signature = np.frombuffer(data[4:], dtype=">u8").astype(np.uint64)
        return cls(signature=signature, size=size)

    def jaccard(self, other: TextFingerprint) -> float:
        return float(np.count_nonzero(self.signature == other.signature)) / NUM_PERM

    def containment(self, other: TextFingerprint) -> float:
        """Estimated share of the smaller text's shingles found in the other."""
        jaccard = self.jaccard(other)
        intersection = jaccard * (self.size + other.size) / (1.0 + jaccard)
        return min(1.0, intersection / max(1, min(self.size, other.size)))


def _band_keys(signature: npt.NDArray[np.uint64]) -> list[int]:
    rows = signature[: BANDS * ROWS].reshape(BANDS, ROWS)
    key = _BAND_SALTS.copy()
    for column in range(ROWS):
        key = _mix(key ^ rows[:, column])
    keys: list[int] = key.view(np.int64).tolist()
    return keys


# Each word's hash, kept across texts: news vocabulary repeats, and hashing every word of every
# text one by one was a third of fingerprinting. Bounded: replaced by an empty table when it would
# grow past the limit (replaced, not emptied, so a thread reading the old one still finds its
# words; two threads adding the same word add the same value).
_WORD_HASHES: dict[bytes, int] = {}
_WORD_HASHES_MAX = 200_000


def _shingle_hashes(text: str) -> tuple[npt.NDArray[np.uint64], int]:
    """Distinct 64-bit hashes of the text's 5-word shingles, and the number of words."""
    combined, words = _all_shingle_hashes(text)
    return np.unique(combined), words


def _all_shingle_hashes(text: str) -> tuple[npt.NDArray[np.uint64], int]:
    """The 64-bit hash of each 5-word shingle of the text in order, repeats included (words
    hashed once, then combined position by position, vectorised), and the number of words."""
    words = _words(text)
    if len(words) < SHINGLE_WORDS:
        return np.empty(0, dtype=np.uint64), len(words)
    global _WORD_HASHES
    table = _WORD_HASHES  # this text's table, even if another thread starts a new one meanwhile
    try:
        hashed = np.fromiter(map(table.__getitem__, words), dtype=np.uint64, count=len(words))
    except KeyError:
        missing = set(words).difference(table)
        if len(table) + len(missing) > _WORD_HASHES_MAX:
            table = _WORD_HASHES = {}
            missing = set(words)
        for word in missing:
            table[word] = zlib.crc32(word)
        hashed = np.fromiter(map(table.__getitem__, words), dtype=np.uint64, count=len(words))
    count = len(words) - SHINGLE_WORDS + 1
    combined = np.zeros(count, dtype=np.uint64)
    for offset in range(SHINGLE_WORDS):
        combined = _mix(combined ^ hashed[offset : offset + count])
    return combined, len(words)


def shingles(text: str) -> set[int]:
    return {int(h) for h in _shingle_hashes(text)[0]}


_BIN_BITS = 7  # 2**7 = NUM_PERM bins
_VALUE_MASK = np.uint64((1 << (64 - _BIN_BITS)) - 1)
_EMPTY = np.uint64(np.iinfo(np.uint64).max)
_ONE_PERMUTATION_SEED = _SEEDS[0, 0]
_BIN_STARTS = np.arange(NUM_PERM, dtype=np.uint64) << np.uint64(64 - _BIN_BITS)


def fingerprint(text: str) -> TextFingerprint | None:
    """The MinHash fingerprint of a story text, or ``None`` when the text is too short.

    One-permutation MinHash (Li, Owen & Zhang 2012): each shingle is hashed once; the hash's top
    bits pick one of ``NUM_PERM`` bins and the bin keeps its smallest value. Empty bins borrow
    from the next non-empty bin, shifted by the distance (rotation densification, Shrivastava
    2017), so the signature estimates Jaccard similarity like 128 independent permutations at a
    hundredth of the cost.
    """
    combined, words = _all_shingle_hashes(text)
    if len(combined) < MIN_SHINGLES:
        return None
    # Sorted, the mixed hashes run bin by bin (the bin is their top bits), so each bin's smallest
    # value is the first of its run, and the distinct shingles are the distinct mixed hashes (the
    # mixing is a bijection): one sort instead of a deduplication and a scatter-minimum.
    mixed = _mix(combined ^ _ONE_PERMUTATION_SEED)
    mixed.sort()
    size = 1 + int(np.count_nonzero(mixed[1:] != mixed[:-1]))
    if size < MIN_SHINGLES:
        return None
    starts = np.searchsorted(mixed, _BIN_STARTS)
    empty = starts == np.append(starts[1:], len(mixed))
    signature = mixed[np.minimum(starts, len(mixed) - 1)] & _VALUE_MASK
    if empty.any():
        signature[empty] = _EMPTY
        signature = _densify(signature, empty)
    fp = TextFingerprint(signature=signature, size=size, words=words)
    fp.band_keys()
    return fp


def _densify(
    signature: npt.NDArray[np.uint64], empty: npt.NDArray[np.bool_]
) -> npt.NDArray[np.uint64]:
    filled = np.flatnonzero(~empty)
    holes = np.flatnonzero(empty)
    # For each empty bin: the next non-empty bin to the right (circular), offset by distance.
    sources = filled[np.searchsorted(filled, holes) % len(filled)]
    distance = ((sources - holes) % NUM_PERM).astype(np.uint64)
    out = signature.copy()
    out[holes] = signature[sources] + distance * (_VALUE_MASK + np.uint64(1))
    return out


def is_syndicated(a: TextFingerprint, b: TextFingerprint) -> bool:
    """Whether two texts are copies of one story (a reprint, an edited or partial copy)."""
    if a.jaccard(b) >= JACCARD_THRESHOLD:
        return True
    smaller = min(a.size, b.size)
    return smaller >= MIN_SHINGLES_FOR_CONTAINMENT and a.containment(b) >= CONTAINMENT_THRESHOLD


class SyndicationIndex:
    """An in-memory index of fingerprints by article id (the database keeps the same band keys;
    this one serves tests, benchmarks and single-batch deduplication)."""

    def __init__(self) -> None:
        self._by_band: dict[int, set[str]] = defaultdict(set)
        self._members: dict[str, list[TextFingerprint]] = defaultdict(list)

    def find(self, fp: TextFingerprint) -> str | None:
        """The article id of the best-matching earlier story, if any copy matches."""
        candidates: set[str] = set()
        for key in fp.band_keys():
            candidates |= self._by_band.get(key, set())
        best: tuple[float, str] | None = None
        for article_id in sorted(candidates):
            for other in self._members[article_id]:
                if is_syndicated(fp, other):
                    score = max(fp.jaccard(other), fp.containment(other))
                    if best is None or score > best[0]:
                        best = (score, article_id)
        return best[1] if best else None

    def add(self, article_id: str, fp: TextFingerprint) -> None:
        self._members[article_id].append(fp)
        for key in fp.band_keys():
            self._by_band[key].add(article_id)
