"""Language detection (ISO 639-1) with py3langid, whose model ships inside the package (offline)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

# Enough text to decide reliably; more only costs time.
_SAMPLE_CHARS = 2000
_MIN_LETTERS = 12


@dataclass(frozen=True, slots=True)
class LanguageGuess:
    code: str | None  # ISO 639-1, or None when the text is too short or too unclear to tell
    confidence: float


class LanguageDetector:
    """Naive-Bayes language identification restricted to languages with an ISO 639-1 code."""

    def __init__(self, *, min_confidence: float = 0.5) -> None:
        from py3langid.langid import MODEL_FILE, LanguageIdentifier

        identifier: Any = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
        # The model also knows ISO 639-3-only languages ("ary", "bcl") and "zxx" (no language);
        # the API promises ISO 639-1 codes, which are exactly the two-letter labels.
        identifier.set_languages([code for code in identifier.labels if len(code) == 2])
        self._identifier = identifier
        self._min_confidence = min_confidence
        self._lock = threading.Lock()  # set_languages state is shared; classify is cheap

    def detect(self, text: str) -> LanguageGuess:
        sample = text[:_SAMPLE_CHARS]
        if not _has_letters(sample, _MIN_LETTERS):
            return LanguageGuess(None, 0.0)
        with self._lock:
            code, confidence = self._identifier.classify(sample)
        confidence = float(confidence)
        if confidence < self._min_confidence:
            return LanguageGuess(None, confidence)
        return LanguageGuess(str(code), confidence)

    def detect_many(self, texts: Sequence[str]) -> list[LanguageGuess]:
        return [self.detect(text) for text in texts]


def _has_letters(text: str, needed: int) -> bool:
    """Whether ``text`` holds at least ``needed`` letters (stops counting there: an article's
    first letters decide, instead of a pass over its whole sample)."""
    for ch in text:
        if ch.isalpha():
            needed -= 1
            if needed <= 0:
                return True
    return needed <= 0
