"""Leasing several workspaces' deliveries in one statement, and recording only held leases."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select, update

from herald.core.ids import new_id
from herald.db.models.webhooks import WebhookDelivery, WebhookEvent, WebhookTarget
from herald.db.models.workspace import Team
from herald.runtime import Runtime
from herald.webhooks import leasing, repository, service
from herald.webhooks.attempt import AttemptOutcome
from herald.webhooks.events import record_event
from herald.webhooks.repository import AttemptResult

DATA = {"monitor_id": "mon_1", "new_result_count": 1}


def make_teams(
    runtime: Runtime, events: dict[str, int]
) -> tuple[dict[str, str], dict[str, list[int]]]:
    """Workspaces with a target and ``events[name]`` events each: their ids, and their delivery
    ids in order."""
    url = service.checked_target_url(runtime, "https://127.0.0.1:9/hook")
    ids: dict[str, str] = {}
    with runtime.sessions.write() as session:
        for name in events:
            ids[name] = new_id("team")
            session.add(Team(id=ids[name], name=name, created_at=runtime.clock.now()))
        session.flush()
        for name in events:
            service.save_target(session, ids[name], url=url, enabled=True, clock=runtime.clock)
    for name, count in events.items():
        for _ in range(count):
            with runtime.sessions.write() as session:
                record_event(
                    session,
                    team_id=ids[name],
                    event_type="monitor.results.added",
                    data=DATA,
                    clock=runtime.clock,
                )
    with runtime.sessions.read() as session:
        rows = session.execute(
            select(WebhookDelivery.team_id, WebhookDelivery.id).order_by(WebhookDelivery.id)
        ).all()
    by_team = {team_id: name for name, team_id in ids.items()}
    found: dict[str, list[int]] = {name: [] for name in events}
    for team_id, delivery_id in rows:
        found[by_team[team_id]].append(delivery_id)
    return ids, found


def test_one_lease_gives_each_workspace_its_room_oldest_first(runtime: Runtime) -> None:
    ids, made = make_teams(runtime, {"a": 3, "b": 3, "c": 1, "off": 2, "full": 2})
    with runtime.sessions.write() as session:
        session.execute(
            update(WebhookTarget).where(WebhookTarget.team_id == ids["off"]).values(enabled=False)
        )
    rooms = {ids["a"]: 2, ids["b"]: 1, ids["c"]: 5, ids["off"]: 3, ids["full"]: 0, "team_x": 2}
    now = runtime.clock.now()
    with runtime.sessions.write() as session:
        first = leasing.lease_due_deliveries(
            session, rooms, owner="first", now=now, lease_seconds=15
        )
        bodies = dict(session.execute(select(WebhookEvent.id, WebhookEvent.body)).all())
    assert [d.id for d in first] == sorted(made["a"][:2] + made["b"][:1] + made["c"])
    assert {d.lease_owner for d in first} == {"first"}
    assert all(d.body == bodies[d.event_id].encode("utf-8") for d in first)
    assert all(d.url == "https://127.0.0.1:9/hook" and len(d.secrets) == 1 for d in first)

    # Leased rows are not due again until the lease expires; the next lease takes the next ones.
    with runtime.sessions.write() as session:
        second = leasing.lease_due_deliveries(
            session, rooms, owner="second", now=now, lease_seconds=15
        )
    assert [d.id for d in second] == sorted(made["a"][2:] + made["b"][1:2])
    with runtime.sessions.write() as session:
        later = leasing.lease_due_deliveries(
            session, {ids["c"]: 1}, owner="third", now=now + timedelta(seconds=16), lease_seconds=15
        )
    assert [d.id for d in later] == made["c"]  # the first lease expired


def test_only_attempts_whose_lease_is_still_held_are_recorded(runtime: Runtime) -> None:
    ids, _ = make_teams(runtime, {"a": 2})
    now = runtime.clock.now()
    with runtime.sessions.write() as session:
        leased = leasing.lease_due_deliveries(
            session, {ids["a"]: 2}, owner="me", now=now, lease_seconds=15
        )
    assert len(leased) == 2
    with runtime.sessions.write() as session:  # another dispatcher took over the second one
        session.execute(
            update(WebhookDelivery)
            .where(WebhookDelivery.id == leased[1].id)
            .values(lease_owner="someone-else")
        )
    outcome = AttemptOutcome(http_status=204, error=None, duration_ms=3, succeeded=True)
    results = [AttemptResult(d, outcome, attempted_at=now, finished_at=now) for d in leased]
    with runtime.sessions.write() as session:
        lost = leasing.record_attempts(session, results)
    assert [r.delivery.id for r in lost] == [leased[1].id]
    with runtime.sessions.read() as session:
        rows = {d.id: d for d in session.scalars(select(WebhookDelivery))}
    assert rows[leased[0].id].status == "succeeded"
    assert rows[leased[0].id].attempt_count == 1
    assert rows[leased[0].id].lease_owner is None
    assert rows[leased[1].id].status == "pending"
    assert rows[leased[1].id].lease_owner == "someone-else"


def test_the_sweep_takes_the_workspaces_that_waited_longest_first(runtime: Runtime) -> None:
    """Beyond the sweep's limit of workspaces, the ones left out are those whose deliveries
    became due last, so a workspace is never left out sweep after sweep."""
    ids, made = make_teams(runtime, {"a": 1, "b": 1, "c": 1, "d": 1})
    now = runtime.clock.now()
    waited = {"a": 1, "b": 40, "c": 5, "d": 30}  # minutes since each one's delivery came due
    with runtime.sessions.write() as session:
        for name, minutes in waited.items():
            session.execute(
                update(WebhookDelivery)
                .where(WebhookDelivery.id == made[name][0])
                .values(next_attempt_at=now - timedelta(minutes=minutes))
            )
    with runtime.sessions.read() as session:
        picked = repository.teams_with_due_deliveries(session, now, limit=2)
        every = repository.teams_with_due_deliveries(session, now, limit=10)
    assert picked == [ids["b"], ids["d"]]
    assert every == [ids["b"], ids["d"], ids["c"], ids["a"]]
