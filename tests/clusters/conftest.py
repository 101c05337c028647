"""The cluster tests' clock reading: ``now`` is the runtime's frozen clock."""

from __future__ import annotations

from datetime import datetime

import pytest

from herald.runtime import Runtime


@pytest.fixture
def now(runtime: Runtime) -> datetime:
    return runtime.clock.now()
