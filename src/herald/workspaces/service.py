"""Workspaces and API keys: create, list, revoke, authenticate.

Keys are ``hk_`` + 43 URL-safe characters (32 random bytes). Only their SHA-256 is stored; the
key itself is returned once, at creation. Authentication looks the hash up and compares in
constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from herald.core.clock import Clock
from herald.core.ids import new_id
from herald.db.models.workspace import ApiKey, Team
from herald.errors import InvalidRequest, NotFound, Unauthorized

KEY_PREFIX = "hk_"
ROLES = ("member", "admin")
MAX_NAME_LENGTH = 200  # a workspace name and a key's label (their columns' width)


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is calling: the workspace and role behind an API key."""

    team_id: str
    key_id: str
    role: str

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"


@dataclass(frozen=True, slots=True)
class CreatedKey:
    team_id: str
    key_id: str
    api_key: str
    role: str


@dataclass(frozen=True, slots=True)
class KeyInfo:
    key_id: str
    team_id: str
    workspace: str
    role: str
    key_prefix: str
    label: str | None
    created_at: datetime
    revoked_at: datetime | None


def hash_key(api_key: str) -> str:
    return hashlib.sha256(api_key.encode("utf-8")).hexdigest()


def get_or_create_team(session: Session, name: str, clock: Clock) -> Team:
    name = name.strip()
    if not name:
        raise InvalidRequest("workspace name must not be empty")
    if len(name) > MAX_NAME_LENGTH:
        raise InvalidRequest(f"workspace name must be at most {MAX_NAME_LENGTH} characters")
    team = session.scalars(select(Team).where(Team.name == name)).first()
    if team is None:
        team = Team(id=new_id("team"), name=name, created_at=clock.now())
        session.add(team)
        session.flush()
    return team


def create_key(
    session: Session, *, workspace: str, role: str, clock: Clock, label: str | None = None
) -> CreatedKey:
    if role not in ROLES:
        raise InvalidRequest(f"role must be one of {', '.join(ROLES)}")
    if label is not None and len(label) > MAX_NAME_LENGTH:
        raise InvalidRequest(f"label must be at most {MAX_NAME_LENGTH} characters")
    team = get_or_create_team(session, workspace, clock)
    api_key = KEY_PREFIX + secrets.token_urlsafe(32)
    row = ApiKey(
        id=new_id("key"),
        team_id=team.id,
        role=role,
        key_hash=hash_key(api_key),
        key_prefix=api_key[:10],
        label=label,
        created_at=clock.now(),
        revoked_at=None,
    )
    session.add(row)
    session.flush()
    return CreatedKey(team_id=team.id, key_id=row.id, api_key=api_key, role=role)


def list_keys(session: Session, *, workspace: str | None = None) -> list[KeyInfo]:
    query = select(ApiKey, Team).join(Team, Team.id == ApiKey.team_id)
    if workspace is not None:
        query = query.where(Team.name == workspace.strip())
    rows = session.execute(query.order_by(ApiKey.created_at, ApiKey.id)).all()
    return [
        KeyInfo(
            key_id=key.id,
            team_id=team.id,
            workspace=team.name,
            role=key.role,
            key_prefix=key.key_prefix,
            label=key.label,
            created_at=key.created_at,
            revoked_at=key.revoked_at,
        )
        for key, team in rows
    ]


def revoke_key(session: Session, key_id: str, clock: Clock) -> None:
    key = session.get(ApiKey, key_id)
    if key is None:
        raise NotFound(f"no API key {key_id}")
    if key.revoked_at is None:
        key.revoked_at = clock.now()


def revoke_keys_labelled(session: Session, *, workspace: str, label: str, clock: Clock) -> int:
    """Revoke a workspace's live keys with ``label`` (``make run`` replaces its own key)."""
    rows = session.scalars(
        select(ApiKey)
        .join(Team, Team.id == ApiKey.team_id)
        .where(Team.name == workspace.strip(), ApiKey.label == label, ApiKey.revoked_at.is_(None))
    ).all()
    for row in rows:
        row.revoked_at = clock.now()
    return len(rows)


def authenticate(session: Session, presented: str | None) -> Principal:
    """Resolve a presented key to its principal; any failure is the same 401."""
    if not presented or not presented.startswith(KEY_PREFIX) or len(presented) > 200:
        raise Unauthorized("a valid API key is required")
    digest = hash_key(presented)
    row = session.scalars(select(ApiKey).where(ApiKey.key_hash == digest)).first()
    if row is None or not hmac.compare_digest(row.key_hash, digest) or row.revoked_at is not None:
        raise Unauthorized("a valid API key is required")
    return Principal(team_id=row.team_id, key_id=row.id, role=row.role)
