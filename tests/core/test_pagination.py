from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from herald.core.pagination import Page, PageRequest
from herald.errors import InvalidRequest


@pytest.mark.parametrize(("limit", "offset"), [(0, 0), (101, 0), (-1, 0), (10, -1)])
def test_out_of_range_is_rejected_never_clamped(limit: int, offset: int) -> None:
    with pytest.raises(InvalidRequest) as info:
        PageRequest.checked(limit, offset, max_limit=100)
    assert info.value.details[0].field in {"limit", "offset"}


@given(
    total=st.integers(min_value=0, max_value=300),
    limit=st.integers(min_value=1, max_value=100),
    offset=st.integers(min_value=0, max_value=320),
)
def test_pages_walk_every_row_once(total: int, limit: int, offset: int) -> None:
    rows = list(range(total))
    page_request = PageRequest.checked(limit, offset, max_limit=100)
    page = Page.from_overfetch(rows[offset : offset + page_request.fetch_limit], page_request)
    assert page.items == rows[offset : offset + limit]
    assert page.has_more == (offset + limit < total)
    assert page.next_offset == (offset + limit if page.has_more else None)


def test_walking_all_pages_yields_each_row_once() -> None:
    rows = list(range(57))
    seen: list[int] = []
    offset: int | None = 0
    while offset is not None:
        request = PageRequest.checked(10, offset, max_limit=100)
        page = Page.from_overfetch(rows[offset : offset + request.fetch_limit], request)
        seen.extend(page.items)
        offset = page.next_offset
    assert seen == rows
