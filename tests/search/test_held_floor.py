"""While a transaction holds an old change number open (PostgreSQL), each catch-up re-reads the
range from that number: what it already applied there is not applied again, even by a
projection that remembers few keys (the vector graph keeps the last few thousand)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.orm import Session

from herald.content.changes import next_change_seq
from herald.runtime import Runtime
from herald.search.feed import Change
from herald.search.projection import POSTGRES_MARGIN, ProjectionSync
from tests.search.support import put_item

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


@pytest.fixture
def backend() -> str:
    return "postgres"


class Forgetful:
    """A projection that knows no key's sequence (as the vector graph, past its last keys)."""

    name = "forgetful"

    def __init__(self) -> None:
        self.watermark = 0
        self.applied: list[str] = []

    def applied_seq(self) -> int:
        return self.watermark

    def refresh(self) -> None:
        return None

    def known_seqs(self, keys: Sequence[int]) -> dict[int, int]:
        return {}

    def drop_if_before(self, floor: int) -> bool:
        return False

    def database_id(self) -> str | None:
        return None

    def bind_database(self, identity: str) -> bool:
        return False

    def apply(self, batches: Iterator[list[Change]], upto: int, *, since: int) -> int:
        for batch in batches:
            self.applied += [change.content_id for change in batch]
        self.watermark = upto
        return len(self.applied)


def test_changes_applied_above_a_held_number_are_not_applied_again(
    search_runtime: Runtime,
) -> None:
    runtime = search_runtime
    projection = Forgetful()
    sync = ProjectionSync(projection, margin=POSTGRES_MARGIN, embedding_model=None)
    with Session(runtime.engine) as held:
        next_change_seq(held)  # drawn and held, uncommitted, for the whole test
        first = put_item(
            runtime, "https://example.com/1", title="First", published_at=NOW - timedelta(days=1)
        )
        with runtime.sessions.read() as session:
            sync.catch_up(session)
        assert projection.applied == [first]
        second = put_item(
            runtime, "https://example.com/2", title="Second", published_at=NOW - timedelta(days=1)
        )
        with runtime.sessions.read() as session:
            sync.catch_up(session)
        assert projection.applied == [first, second]
        held.rollback()
