"""The slip tests' knowledge base: the small real seed of the entity tests."""

from __future__ import annotations

import pytest

from herald.entities.kb import KnowledgeBase
from tests.enrich.models import fresh_knowledge_base


@pytest.fixture
def kb() -> KnowledgeBase:
    return fresh_knowledge_base()
