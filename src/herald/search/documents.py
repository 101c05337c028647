"""What the search indexes hold about one content item, and the numeric key that names it.

Both indexes (lexical and vector) name an item by a 63-bit key derived from its content id, so
every process computes the same key without a shared counter, and a key fits a signed 64-bit
database column. At a million items the chance that two ids share a key is about 5e-8; the lexical
index stores the content id too, and results always come back as content ids.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
import numpy.typing as npt

_KEY_MASK = (1 << 63) - 1

Vector = npt.NDArray[np.float32]


def content_key(content_id: str) -> int:
    digest = hashlib.blake2b(content_id.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") & _KEY_MASK


@dataclass(frozen=True, slots=True)
class IndexedItem:
    """The searchable projection of a content item (bodies and transcripts: indexed, not shown)."""

    content_id: str
    title: str
    published: datetime
    media_type: str
    domain: str
    summary: str = ""
    key_points: tuple[str, ...] = ()
    body: str = ""
    language: str | None = None
    entity_ids: tuple[str, ...] = ()
    vector: Vector | None = field(default=None, compare=False)
    seq: int = 0  # the content change sequence this state comes from

    @property
    def key(self) -> int:
        return content_key(self.content_id)
