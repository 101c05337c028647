"""The drift comparator finds each kind of disagreement (so the drift test can fail)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, Literal

from pydantic import BaseModel

from tests.client.schema_compare import Side, compare


class Inner(BaseModel):
    name: str


class ServerThing(BaseModel):
    id: str
    count: int
    when: datetime
    day: date
    note: str | None
    inner: Inner
    tags: list[Inner]
    kind: Literal["a", "b"]


def _problems(server: type[BaseModel], client: type[BaseModel]) -> list[str]:
    s = server.model_json_schema(mode="serialization")
    c = client.model_json_schema(mode="validation")
    return compare(Side(s, s), Side(c, c))


def _request_problems(client: type[BaseModel], server: type[BaseModel]) -> list[str]:
    c = client.model_json_schema(mode="serialization")
    s = server.model_json_schema(mode="validation")
    return compare(Side(c, c), Side(s, s), producer_sends_null=False)


class ClientSame(BaseModel):
    id: str
    count: float  # an integer is a number
    when: datetime
    day: date
    note: str | None = None
    inner: Inner
    tags: list[Inner]
    kind: str


def test_matching_models_have_no_problems() -> None:
    assert _problems(ServerThing, ClientSame) == []


class ClientMissingField(BaseModel):
    id: str
    count: int
    when: datetime
    day: date
    note: str | None = None
    inner: Inner
    kind: str


def test_a_server_field_missing_from_the_client_is_found() -> None:
    assert _problems(ServerThing, ClientMissingField) == [
        "tags: producer has this field, consumer does not"
    ]


class ClientExtraRequired(ClientSame):
    extra: int


def test_a_client_field_the_server_lacks_is_found() -> None:
    assert _problems(ServerThing, ClientExtraRequired) == [
        "extra: consumer has this field, producer does not"
    ]


class ClientRefusesNull(BaseModel):
    id: str
    count: int
    when: datetime
    day: date
    note: str
    inner: Inner
    tags: list[Inner]
    kind: str


def test_null_the_client_refuses_is_found() -> None:
    assert _problems(ServerThing, ClientRefusesNull) == [
        "note: producer may send null, consumer refuses it"
    ]


class InnerWithNumber(BaseModel):
    name: int


class ClientWrongTypes(BaseModel):
    id: int
    count: int
    when: datetime
    day: datetime
    note: str | None = None
    inner: InnerWithNumber
    tags: list[InnerWithNumber]
    kind: Literal["a"]


def test_wrong_leaf_types_are_found_also_nested_and_in_arrays() -> None:
    problems = _problems(ServerThing, ClientWrongTypes)
    assert any(p.startswith("id: producer sends string") for p in problems)
    assert any(p.startswith("day: producer sends string (date)") for p in problems)
    assert any(p.startswith("inner.name: producer sends string") for p in problems)
    assert any(p.startswith("tags[].name: producer sends string") for p in problems)
    assert any(p.startswith("kind: producer sends string ['a', 'b']") for p in problems)


class ServerOptional(BaseModel):
    id: str
    label: str | None = None


class ClientRequires(BaseModel):
    id: str
    label: str | None


def test_a_field_the_client_requires_but_the_server_may_omit_is_found() -> None:
    assert _problems(ServerOptional, ClientRequires) == [
        "label: consumer requires it, producer may leave it out"
    ]


class ServerBody(BaseModel):
    query: str
    limit: int = 10
    kinds: list[Literal["x", "y", "z"]] | None = None


class ClientBody(BaseModel):
    query: str | None = None
    limit: int | None = None
    kinds: list[Literal["x", "y"]] | None = None
    extra: str | None = None


def test_request_direction_checks_required_unknown_and_enum_coverage() -> None:
    assert sorted(_request_problems(ClientBody, ServerBody)) == [
        "extra: producer has this field, consumer does not",
        "kinds[]: consumer also accepts ['z'], never produced",
        "query: consumer requires it, producer may leave it out",
    ]


class FreeServer(BaseModel):
    search: dict[str, Any]


class TypedClient(BaseModel):
    search: Inner


def test_a_free_form_object_is_accepted_either_way() -> None:
    assert _problems(FreeServer, TypedClient) == []
    assert _request_problems(TypedClient, FreeServer) == []
