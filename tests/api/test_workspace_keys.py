"""The workspace and key service: names are matched as they are stored."""

from __future__ import annotations

from herald.core.clock import FrozenClock
from herald.runtime import Runtime
from herald.workspaces.service import create_key, list_keys, revoke_keys_labelled


def test_revoking_by_label_finds_the_workspace_as_create_stored_it(
    runtime: Runtime, clock: FrozenClock
) -> None:
    # create_key stores the name stripped; `herald demo --workspace " ops "` revokes the key
    # its previous run printed by the same name, so that lookup must strip it too.
    with runtime.sessions.write() as session:
        create_key(session, workspace=" ops ", role="admin", clock=clock, label="demo")
    with runtime.sessions.write() as session:
        assert revoke_keys_labelled(session, workspace=" ops ", label="demo", clock=clock) == 1
    with runtime.sessions.read() as session:
        [key] = list_keys(session, workspace=" ops ")
    assert key.workspace == "ops"
    assert key.revoked_at is not None
