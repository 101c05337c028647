"""Models loaded once per test session and shared by the enrich and entities tests."""

from __future__ import annotations

import os
from functools import cache

from herald.enrich.embedder import build_embedder
from herald.enrich.embedding import Embedder
from herald.enrich.language import LanguageDetector
from herald.enrich.ner import EntityRecognizer
from herald.entities.kb import KnowledgeBase, read_seed
from herald.entities.model import EntityRecord

os.environ.setdefault("HF_HUB_OFFLINE", "1")


@cache
def recognizer() -> EntityRecognizer:
    return EntityRecognizer()


@cache
def embedder() -> Embedder:
    """The production default: the bundled model on ONNX Runtime."""
    return build_embedder(None)


@cache
def language_detector() -> LanguageDetector:
    return LanguageDetector()


@cache
def seed_records() -> tuple[EntityRecord, ...]:
    return tuple(read_seed())


def fresh_knowledge_base() -> KnowledgeBase:
    """A new knowledge base over the bundled seed (linking adds to it, so not shared)."""
    return KnowledgeBase(seed_records())
