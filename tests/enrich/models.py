"""Models loaded once per test session and shared by the enrich and entities tests."""

from __future__ import annotations

import os
from functools import cache

from herald.enrich.embedder import build_embedder
from herald.enrich.embedding import Embedder
from herald.enrich.language import LanguageDetector
from herald.enrich.ner import EntityRecognizer
from herald.enrich.ner_model import TrainedRecognizer
from herald.entities.kb import KnowledgeBase, read_seed
from herald.entities.linking import EntityLinker, LinkedEntity, LinkingConfig
from herald.entities.model import EntityRecord

os.environ.setdefault("HF_HUB_OFFLINE", "1")


@cache
def recognizer() -> EntityRecognizer:
    """spaCy's recogniser: the linker's tests read its mentions."""
    return EntityRecognizer()


@cache
def trained_recognizer() -> TrainedRecognizer:
    """Herald's own recogniser, int8 as served (the graph built once per test session)."""
    return TrainedRecognizer()


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


def linked_by_name(text: str, config: LinkingConfig | None = None) -> dict[str, LinkedEntity]:
    """The entities Herald links in ``text`` (its own recogniser, a fresh bundled knowledge
    base), by display name."""
    mentions = trained_recognizer().recognize([text])[0]
    result = EntityLinker(fresh_knowledge_base(), config).link("", text, mentions)
    return {e.display_name: e for e in result.entities}
