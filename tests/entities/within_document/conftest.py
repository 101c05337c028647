"""The within-document tests' knowledge base: the small real seed of the entity tests, one per
test module."""

from __future__ import annotations

import pytest

from herald.entities.kb import KnowledgeBase
from tests.enrich.models import fresh_knowledge_base


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return fresh_knowledge_base()
