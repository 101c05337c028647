"""The delivery engine's hot path in SQL: lease due deliveries, record attempts.

Both run once per batch in the engine's recorder (and per dispatch job), so each is a fixed,
small number of statements whatever the batch holds, built once and executed as Core
statements (no ORM work per row):

- leasing: one statement reads the targets and signing secrets of the workspaces, one leases
  every workspace's share (each workspace's line is read from its head, oldest first, as far as
  its free slots), one reads the event bodies;
- recording: one statement checks the leases are still ours, one moves the deliveries on, one
  adds the attempt rows; on PostgreSQL the check and the move are one statement over arrays.
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    Integer,
    Table,
    bindparam,
    insert,
    select,
    text,
    union_all,
    update,
)
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session
from sqlalchemy.sql.dml import Update

from herald.db.models.webhooks import (
    WebhookAttempt,
    WebhookDelivery,
    WebhookEvent,
    WebhookSigningSecret,
    WebhookTarget,
)
from herald.webhooks.repository import AttemptResult, LeasedDelivery, due
from herald.webhooks.signing import SigningSecret

_D = typing.cast(Table, WebhookDelivery.__table__)
_A = typing.cast(Table, WebhookAttempt.__table__)
_E = typing.cast(Table, WebhookEvent.__table__)
_T = typing.cast(Table, WebhookTarget.__table__)
_S = typing.cast(Table, WebhookSigningSecret.__table__)
_WHEN = _D.c.next_attempt_at.type  # the UTC datetime type


# Targets (enabled ones only) with their signing secrets, oldest secret first.
_TARGETS_AND_SECRETS = (
    select(_T.c.team_id, _T.c.url, _S.c.secret, _S.c.version, _S.c.created_at, _S.c.retired_at)
    .select_from(_T.outerjoin(_S, _S.c.team_id == _T.c.team_id))
    .where(_T.c.team_id.in_(bindparam("teams", expanding=True)), _T.c.enabled.is_(True))
    .order_by(_T.c.team_id, _S.c.version)
)
_BODIES = select(_E.c.id, _E.c.body).where(_E.c.id.in_(bindparam("events", expanding=True)))


@functools.lru_cache(maxsize=128)
def _lease_statement(lines: int) -> Update:
    """Lease the heads of ``lines`` workspaces' lines in one statement: workspace ``i`` (bound
    as ``team_i``) gets up to ``room_i`` of its due deliveries, oldest first. PostgreSQL skips
    rows another dispatcher is leasing right now; SQLite's single writer serialises them."""
    now = bindparam("now", type_=_WHEN)
    heads = []
    for i in range(lines):
        line = (
            select(_D.c.id)
            .where(_D.c.team_id == bindparam(f"team_{i}"), due(now))
            .order_by(_D.c.next_attempt_at, _D.c.id)
            .limit(bindparam(f"room_{i}", type_=Integer))
            .with_for_update(skip_locked=True)
            .subquery(f"line_{i}")
        )
        heads.append(select(line.c.id))
    chosen = union_all(*heads) if lines > 1 else heads[0]
    return (
        update(_D)
        .where(_D.c.id.in_(chosen))
        .values(lease_owner=bindparam("owner"), lease_expires_at=bindparam("expires", type_=_WHEN))
        .returning(_D.c.id, _D.c.team_id, _D.c.event_id, _D.c.event_type, _D.c.attempt_count)
    )


def lease_due_deliveries(
    session: Session,
    rooms: Mapping[str, int],
    *,
    owner: str,
    now: datetime,
    lease_seconds: float,
) -> list[LeasedDelivery]:
    """Lease up to ``rooms[team_id]`` due deliveries of each workspace with an enabled target,
    oldest first: three statements, however many workspaces and deliveries."""
    wanted = {team_id: room for team_id, room in rooms.items() if room > 0}
    if not wanted:
        return []
    connection = session.connection()
    targets: dict[str, str] = {}
    secrets: dict[str, list[SigningSecret]] = {}
    for row in connection.execute(_TARGETS_AND_SECRETS, {"teams": sorted(wanted)}):
        targets[row.team_id] = row.url
        if row.secret is not None:
            secrets.setdefault(row.team_id, []).append(
                SigningSecret(row.secret, row.version, row.created_at, row.retired_at)
            )
    if not targets:
        return []
    expires = now + timedelta(seconds=lease_seconds)
    params: dict[str, Any] = {"now": now, "owner": owner, "expires": expires}
    for i, team_id in enumerate(targets):
        params[f"team_{i}"] = team_id
        params[f"room_{i}"] = wanted[team_id]
    rows = connection.execute(_lease_statement(len(targets)), params).all()
    if not rows:
        return []
    bodies = dict(connection.execute(_BODIES, {"events": sorted({r.event_id for r in rows})}).all())
    return [
        LeasedDelivery(
            id=r.id,
            team_id=r.team_id,
            event_id=r.event_id,
            event_type=r.event_type,
            body=bodies[r.event_id].encode("utf-8"),
            attempt_count=r.attempt_count,
            lease_owner=owner,
            lease_expires_at=expires,
            url=targets[r.team_id],
            secrets=tuple(secrets.get(r.team_id, ())),
        )
        for r in sorted(rows, key=lambda r: r.id)
    ]


_HELD = (
    select(_D.c.id, _D.c.lease_owner, _D.c.attempt_count)
    .where(_D.c.id.in_(bindparam("ids", expanding=True)))
    .with_for_update()
)
_MOVE_ON = (
    update(_D)
    .where(_D.c.id == bindparam("b_id"))
    .values(
        status=bindparam("b_status"),
        attempt_count=bindparam("b_attempt_count"),
        last_http_status=bindparam("b_http_status"),
        last_error=bindparam("b_error"),
        last_attempt_at=bindparam("b_attempted_at", type_=_WHEN),
        next_attempt_at=bindparam("b_next_attempt_at", type_=_WHEN),
        lease_owner=None,
        lease_expires_at=None,
    )
)
_ADD_ATTEMPTS = insert(_A)
# PostgreSQL: the lease check and every delivery's move in one statement over arrays (one plan,
# one execution per batch instead of a check plus one UPDATE per row); it returns the rows that
# were still ours. The row lock the UPDATE takes re-checks the condition against a concurrent
# holder, as the SELECT ... FOR UPDATE does on the other path.
_MOVE_ON_OWNED_PG = text(
    f"""UPDATE {_D.name} AS d SET status = v.status, attempt_count = v.attempt_count,
  last_http_status = v.http_status, last_error = v.error, last_attempt_at = v.attempted_at,
  next_attempt_at = v.next_attempt_at, lease_owner = NULL, lease_expires_at = NULL
FROM unnest(CAST(:ids AS bigint[]), CAST(:owners AS varchar[]), CAST(:held AS integer[]),
  CAST(:statuses AS varchar[]), CAST(:counts AS integer[]), CAST(:http AS integer[]),
  CAST(:errors AS text[]), CAST(:attempted AS timestamptz[]), CAST(:next AS timestamptz[]))
  AS v(id, owner, held, status, attempt_count, http_status, error, attempted_at, next_attempt_at)
WHERE d.id = v.id AND d.lease_owner = v.owner AND d.attempt_count = v.held
RETURNING d.id"""
)


def record_attempt(session: Session, result: AttemptResult) -> bool:
    """Store one attempt; False when the lease was lost (see :func:`record_attempts`)."""
    return not record_attempts(session, [result])


def record_attempts(session: Session, results: Sequence[AttemptResult]) -> list[AttemptResult]:
    """Store attempts and move their deliveries on, where this process still holds the lease.

    Returns the results whose lease passed to another dispatcher (ours expired): those attempts
    were made, but the delivery's new holder makes and records its own. Three statements per
    batch, whatever its size (two on PostgreSQL).
    """
    if not results:
        return []
    connection = session.connection()
    if connection.dialect.name == "postgresql":
        owned = _move_on_owned_postgresql(connection, results)
        _add_attempts(connection, owned)
    else:
        owned = _move_on_owned(connection, results)
    owned_ids = {r.delivery.id for r in owned}
    return [r for r in results if r.delivery.id not in owned_ids]


def _move_on_owned_postgresql(
    connection: Connection, results: Sequence[AttemptResult]
) -> list[AttemptResult]:
    results = sorted(results, key=lambda r: r.delivery.id)  # rows locked in one order
    moved = connection.execute(
        _MOVE_ON_OWNED_PG,
        {
            "ids": [r.delivery.id for r in results],
            "owners": [r.delivery.lease_owner for r in results],
            "held": [r.delivery.attempt_count for r in results],
            "statuses": [r.delivery_status for r in results],
            "counts": [r.attempt_number for r in results],
            "http": [r.outcome.http_status for r in results],
            "errors": [r.outcome.error for r in results],
            "attempted": [r.attempted_at for r in results],
            "next": [r.next_attempt_at for r in results],
        },
    )
    ids = set(moved.scalars())
    return [r for r in results if r.delivery.id in ids]


def _move_on_owned(connection: Connection, results: Sequence[AttemptResult]) -> list[AttemptResult]:
    held = {
        row.id: (row.lease_owner, row.attempt_count)
        for row in connection.execute(_HELD, {"ids": [r.delivery.id for r in results]})
    }
    owned = [
        r
        for r in results
        if held.get(r.delivery.id) == (r.delivery.lease_owner, r.delivery.attempt_count)
    ]
    if owned:
        connection.execute(
            _MOVE_ON,
            [
                {
                    "b_id": r.delivery.id,
                    "b_status": r.delivery_status,
                    "b_attempt_count": r.attempt_number,
                    "b_http_status": r.outcome.http_status,
                    "b_error": r.outcome.error,
                    "b_attempted_at": r.attempted_at,
                    "b_next_attempt_at": r.next_attempt_at,
                }
                for r in owned
            ],
        )
        _add_attempts(connection, owned)
    return owned


def _add_attempts(connection: Connection, owned: Sequence[AttemptResult]) -> None:
    if owned:
        connection.execute(
            _ADD_ATTEMPTS,
            [
                {
                    "team_id": r.delivery.team_id,
                    "delivery_id": r.delivery.id,
                    "event_id": r.delivery.event_id,
                    "event_type": r.delivery.event_type,
                    "attempt_number": r.attempt_number,
                    "delivery_status": r.delivery_status,
                    "http_status": r.outcome.http_status,
                    "error": r.outcome.error,
                    "duration_ms": r.outcome.duration_ms,
                    "attempted_at": r.attempted_at,
                }
                for r in owned
            ],
        )
