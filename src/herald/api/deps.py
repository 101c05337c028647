"""Dependencies declared once and reused by every route (FastAPI full-stack template style)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Annotated, TypeVar

from fastapi import Depends, Request
from sqlalchemy.orm import Session

from herald.core.clock import Clock
from herald.db.replica import ReadRouter
from herald.db.session import SessionFactory
from herald.errors import NotFound, Unauthorized
from herald.runtime import Runtime
from herald.workspaces.rate_limits import LocalBuckets, take_shared
from herald.workspaces.service import Principal, authenticate

T = TypeVar("T")


def get_runtime(request: Request) -> Runtime:
    runtime: Runtime = request.app.state.runtime
    return runtime


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]


def get_sessions(runtime: RuntimeDep) -> SessionFactory:
    return runtime.sessions


def get_clock(runtime: RuntimeDep) -> Clock:
    return runtime.clock


SessionsDep = Annotated[SessionFactory, Depends(get_sessions)]
ClockDep = Annotated[Clock, Depends(get_clock)]


def presented_key(request: Request) -> str | None:
    """The API key of a request. Both forms may be sent only if they agree; a blank header of
    either form is no key (a client whose key variable is empty sends it so). An Authorization
    header of another scheme (the Basic credentials of a proxy in front of Herald) carries no
    key: beside an ``x-api-key`` it is left alone, without one it is refused with the rule."""
    candidates = {value.strip() for value in request.headers.getlist("x-api-key")}
    candidates.discard("")
    foreign = False
    for value in request.headers.getlist("authorization"):
        if not value.strip():
            continue
        scheme, _, token = value.strip().partition(" ")
        if scheme.lower() != "bearer":
            foreign = True
            continue
        if not token.strip():
            raise Unauthorized("the Authorization header must be 'Bearer <API key>'")
        candidates.add(token.strip())
    if foreign and not candidates:
        raise Unauthorized("the Authorization header must be 'Bearer <API key>'")
    if len(candidates) > 1:
        raise Unauthorized("two different API keys were sent")
    return next(iter(candidates), None)


_local_buckets = LocalBuckets()


def take_token(runtime: Runtime, bucket: str, per_minute: int) -> None:
    """Take one request from ``bucket`` (``per_minute`` a minute) or raise 429 ``rate_limited``."""
    if per_minute <= 0:
        return
    if runtime.engine.dialect.name != "postgresql":
        _local_buckets.take(bucket, per_minute)
        return
    with runtime.sessions.write() as session:
        take_shared(session, bucket, per_minute, now=runtime.clock.now().timestamp())


def _authenticated(request: Request, runtime: Runtime, session: Session) -> Principal:
    """The principal of the request's key, checked on ``session`` (the primary) on every
    request: a revoked key is refused from the moment its revocation commits."""
    principal = authenticate(session, presented_key(request))
    request.state.team_id = principal.team_id
    per_minute = runtime.settings.rate_limit_per_minute
    if per_minute > 0 and runtime.engine.dialect.name == "postgresql":
        # The shared bucket on the same connection: one upsert, which commits on its own.
        take_shared(
            session, f"key:{principal.key_id}", per_minute, now=runtime.clock.now().timestamp()
        )
    else:
        take_token(runtime, f"key:{principal.key_id}", per_minute)
    _check_path_ids(request)
    return principal


def get_principal(request: Request, runtime: RuntimeDep) -> Principal:
    with runtime.sessions.autocommit() as session:
        return _authenticated(request, runtime, session)


class Reader:
    """The principal of a request whose work is a replica-eligible read, with the connection its
    key was checked on: a read that runs on the primary runs there too (one connection checked
    out per request, not two)."""

    def __init__(self, principal: Principal, session: Session, reads: ReadRouter) -> None:
        self.principal = principal
        self._session = session
        self._reads = reads

    def run(self, work: Callable[[Session], T]) -> T:
        """``work(session)`` where :class:`~herald.db.replica.ReadRouter` sends it; an admin's
        read must see every write made before it (the primary, or a replica caught up)."""
        return self._reads.run(work, primary=self.principal.is_admin, session=self._session)


def get_reader(request: Request, runtime: RuntimeDep) -> Iterator[Reader]:
    with runtime.sessions.autocommit() as session:
        yield Reader(_authenticated(request, runtime, session), session, runtime.reads)


def _check_path_ids(request: Request) -> None:
    """An id no stored id can equal is a 404 at once, whatever its length or shape.

    Every other unknown id reaches its repository and is not found there; these two kinds would
    not (PostgreSQL refuses NUL in text, and a lone surrogate cannot be encoded).
    """
    for value in request.path_params.values():
        if isinstance(value, str) and ("\x00" in value or _unencodable(value)):
            raise NotFound("no such resource")


def _unencodable(value: str) -> bool:
    try:
        value.encode()
    except UnicodeEncodeError:
        return True
    return False


PrincipalDep = Annotated[Principal, Depends(get_principal)]


def get_admin(principal: PrincipalDep) -> Principal:
    # Operator endpoints do not exist for member keys: 404, like any resource outside one's reach.
    if not principal.is_admin:
        raise NotFound("no such resource")
    return principal


AdminDep = Annotated[Principal, Depends(get_admin)]
# Ends when the route returns, before the response is sent: the connection goes back at once.
ReaderDep = Annotated[Reader, Depends(get_reader, scope="function")]
