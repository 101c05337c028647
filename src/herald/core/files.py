"""Files: their SHA-256 digest, read in blocks, and flushing them to disk."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

_BLOCK = 1 << 20


def sha256_file(path: Path) -> str:
    """The hex SHA-256 digest of the file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def fsync_path(path: Path) -> None:
    """Flush a file's bytes, or a directory's entries, to disk: what a rename that publishes a
    file names must be there after a power loss, and so must the rename itself (fsync the
    directory after it)."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
