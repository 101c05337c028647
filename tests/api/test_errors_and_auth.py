"""The pinned error envelope, status codes, request ids and authentication rules."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi import APIRouter, FastAPI, Query
from fastapi.testclient import TestClient

from herald.api.deps import AdminDep, PrincipalDep, SessionsDep
from herald.api.schemas.common import RequestModel
from herald.workspaces.service import CreatedKey, revoke_key

router = APIRouter()


class EchoBody(RequestModel):
    name: str
    limit: int = 10


@router.get("/v1/_test/whoami")
def whoami(principal: PrincipalDep) -> dict[str, str]:
    return {"team_id": principal.team_id, "role": principal.role}


@router.get("/v1/_test/admin")
def admin_only(principal: AdminDep) -> dict[str, str]:
    return {"team_id": principal.team_id}


@router.post("/v1/_test/echo")
def echo(body: EchoBody, principal: PrincipalDep) -> dict[str, object]:
    return {"name": body.name, "limit": body.limit}


@router.get("/v1/_test/list")
def listing(
    principal: PrincipalDep, limit: int = Query(25, ge=1, le=100), offset: int = Query(0, ge=0)
) -> dict[str, int]:
    return {"limit": limit, "offset": offset}


@router.get("/v1/_test/boom")
def boom(principal: PrincipalDep, sessions: SessionsDep) -> None:
    raise RuntimeError("database password is hunter2")


@pytest.fixture
def api(app: FastAPI) -> Iterator[TestClient]:
    app.include_router(router)
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


def assert_error(response: Any, status: int, code: str) -> dict[str, object]:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["error"] == code
    assert isinstance(body["message"], str)
    assert body["message"]
    request_id = response.headers["x-request-id"]
    assert body["meta"]["request_id"] == request_id
    return dict(body)


def test_every_response_has_a_request_id(api: TestClient, auth: dict[str, str]) -> None:
    ok = api.get("/v1/_test/whoami", headers=auth)
    assert ok.status_code == 200
    assert len(ok.headers["x-request-id"]) == 32
    assert ok.headers["x-request-id"] != api.get("/healthz").headers["x-request-id"]


def test_unknown_route_is_404_envelope(api: TestClient) -> None:
    assert_error(api.get("/v1/nothing-here"), 404, "not_found")


def test_wrong_method_is_405_envelope(api: TestClient, auth: dict[str, str]) -> None:
    assert_error(api.delete("/v1/_test/whoami", headers=auth), 405, "method_not_allowed")


def test_body_over_one_mib_is_413(api: TestClient, auth: dict[str, str]) -> None:
    big = b'{"name": "' + b"x" * (1024 * 1024) + b'"}'
    headers = auth | {"content-type": "application/json"}
    assert_error(api.post("/v1/_test/echo", content=big, headers=headers), 413, "payload_too_large")


def test_chunked_body_over_one_mib_is_413(api: TestClient, auth: dict[str, str]) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"name": "'
        for _ in range(20):
            yield b"y" * 65536
        yield b'"}'

    headers = auth | {"content-type": "application/json"}
    response = api.post("/v1/_test/echo", content=chunks(), headers=headers)
    assert_error(response, 413, "payload_too_large")


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", ""])
def test_non_json_body_is_415(api: TestClient, auth: dict[str, str], content_type: str) -> None:
    headers = auth | {"content-type": content_type}
    response = api.post("/v1/_test/echo", content=b'{"name": "a"}', headers=headers)
    assert_error(response, 415, "unsupported_media_type")


def test_every_error_body_is_serialised_alike(api: TestClient, auth: dict[str, str]) -> None:
    # The middleware's answers (415, 413, 400, an escaped slash's 404) came out as
    # '{"error": "unsupported_media_type", ...}', the routes' as '{"error":"not_found",...}'.
    wrong_key = {"x-api-key": "hk_wrong", "content-type": "text/plain"}
    json_headers = auth | {"content-type": "application/json"}
    responses = [
        api.post("/v1/_test/echo", content=b"name=a", headers=wrong_key),
        api.post("/v1/_test/echo", content=b"x" * (1024 * 1024 + 1), headers=json_headers),
        api.post("/v1/_test/echo", content=b'{"name": "a\\u0000"}', headers=json_headers),
        api.get("/v1/monitors/a%2Fb", headers=auth),
        api.get("/v1/_test/whoami", headers={"x-api-key": "hk_wrong"}),
        api.get("/v1/nothing-here"),
    ]
    # The body's type is checked before the key (docs/api.md, "Errors").
    assert responses[0].status_code == 415
    for response in responses:
        assert response.status_code >= 400, response.text
        compact = json.dumps(response.json(), separators=(",", ":"), ensure_ascii=False)
        assert response.content == compact.encode(), response.content


def test_json_with_charset_is_accepted(api: TestClient, auth: dict[str, str]) -> None:
    headers = auth | {"content-type": "application/json; charset=utf-8"}
    response = api.post("/v1/_test/echo", content=b'{"name": "a"}', headers=headers)
    assert response.status_code == 200
    assert response.json() == {"name": "a", "limit": 10}


def test_malformed_json_is_400(api: TestClient, auth: dict[str, str]) -> None:
    headers = auth | {"content-type": "application/json"}
    response = api.post("/v1/_test/echo", content=b'{"name": ', headers=headers)
    assert_error(response, 400, "invalid_request")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "name"),
        ({"name": 5}, "name"),
        ({"name": "a", "limit": "10"}, "limit"),
        ({"name": "a", "surprise": True}, "surprise"),
    ],
)
def test_validation_errors_are_400_with_field_details(
    api: TestClient, auth: dict[str, str], body: dict[str, object], field: str
) -> None:
    response = api.post("/v1/_test/echo", json=body, headers=auth)
    error = assert_error(response, 400, "invalid_request")
    details = error["details"]
    assert isinstance(details, list)
    assert field in {d["field"] for d in details}


@pytest.mark.parametrize("query", ["limit=0", "limit=101", "offset=-1", "limit=abc"])
def test_out_of_range_query_is_400(api: TestClient, auth: dict[str, str], query: str) -> None:
    assert_error(api.get(f"/v1/_test/list?{query}", headers=auth), 400, "invalid_request")


def test_unexpected_error_is_500_without_details(api: TestClient, auth: dict[str, str]) -> None:
    response = api.get("/v1/_test/boom", headers=auth)
    body = assert_error(response, 500, "internal_error")
    assert "hunter2" not in response.text
    assert "Traceback" not in response.text
    assert set(body) == {"error", "message", "meta"}


def test_missing_key_is_401(api: TestClient) -> None:
    assert_error(api.get("/v1/_test/whoami"), 401, "unauthorized")


def test_wrong_key_is_401(api: TestClient, member_key: CreatedKey) -> None:
    wrong = member_key.api_key[:-2] + ("aa" if not member_key.api_key.endswith("aa") else "bb")
    assert_error(api.get("/v1/_test/whoami", headers={"x-api-key": wrong}), 401, "unauthorized")
    assert_error(
        api.get("/v1/_test/whoami", headers={"x-api-key": "nonsense"}), 401, "unauthorized"
    )


def test_revoked_key_is_401(api: TestClient, member_key: CreatedKey, runtime: object) -> None:
    from herald.runtime import Runtime

    assert isinstance(runtime, Runtime)
    headers = {"x-api-key": member_key.api_key}
    assert api.get("/v1/_test/whoami", headers=headers).status_code == 200
    with runtime.sessions.write() as session:
        revoke_key(session, member_key.key_id, runtime.clock)
    assert_error(api.get("/v1/_test/whoami", headers=headers), 401, "unauthorized")


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER"])
def test_bearer_form_is_accepted_case_insensitively(
    api: TestClient, member_key: CreatedKey, scheme: str
) -> None:
    response = api.get(
        "/v1/_test/whoami", headers={"authorization": f"{scheme} {member_key.api_key}"}
    )
    assert response.status_code == 200
    assert response.json()["team_id"] == member_key.team_id


def test_both_forms_equal_is_fine_different_is_401(
    api: TestClient, member_key: CreatedKey, make_key: Callable[..., CreatedKey]
) -> None:
    same = {"x-api-key": member_key.api_key, "authorization": f"Bearer {member_key.api_key}"}
    assert api.get("/v1/_test/whoami", headers=same).status_code == 200
    other = make_key("acme", "member").api_key
    different = {"x-api-key": member_key.api_key, "authorization": f"Bearer {other}"}
    assert_error(api.get("/v1/_test/whoami", headers=different), 401, "unauthorized")


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"x-api-key": "hk_unknown"},
        {"x-api-key": "hk_" + "a" * 20000},
        {"authorization": "Basic dXNlcjpwYXNz"},
        {"authorization": "Bearer   "},
        {"x-api-key": "hk_one", "authorization": "Bearer hk_two"},
    ],
)
def test_every_401_names_the_bearer_scheme(api: TestClient, headers: dict[str, str]) -> None:
    # A 401 must say how to authenticate (RFC 9110 section 15.5.2), on /v1 as on /mcp.
    response = api.get("/v1/_test/whoami", headers=headers)
    assert_error(response, 401, "unauthorized")
    assert response.headers["www-authenticate"] == "Bearer"


def test_a_blank_key_header_is_no_key(api: TestClient, member_key: CreatedKey) -> None:
    # A client template with an empty variable sends the header empty: that is no key, not a
    # second, different one.
    bearer = f"Bearer {member_key.api_key}"
    for headers in (
        {"x-api-key": "", "authorization": bearer},
        {"x-api-key": "  ", "authorization": bearer},
        {"x-api-key": member_key.api_key, "authorization": ""},
    ):
        response = api.get("/v1/_test/whoami", headers=headers)
        assert response.status_code == 200, (headers, response.text)
    for headers in (
        {"x-api-key": ""},
        {"authorization": ""},
        {"x-api-key": "", "authorization": ""},
    ):
        body = assert_error(api.get("/v1/_test/whoami", headers=headers), 401, "unauthorized")
        assert body["message"] == "a valid API key is required"


def test_non_bearer_authorization_is_401(api: TestClient, member_key: CreatedKey) -> None:
    headers = {"authorization": f"Basic {member_key.api_key}"}
    body = assert_error(api.get("/v1/_test/whoami", headers=headers), 401, "unauthorized")
    assert "Bearer" in body["message"]


def test_a_proxys_basic_credentials_beside_the_key_are_left_alone(
    api: TestClient, member_key: CreatedKey, make_key: Callable[..., CreatedKey]
) -> None:
    # A reverse proxy with its own Basic authentication forwards its Authorization header; the
    # key travels in x-api-key.
    proxy = {"authorization": "Basic dXNlcjpwYXNz", "x-api-key": member_key.api_key}
    response = api.get("/v1/_test/whoami", headers=proxy)
    assert response.status_code == 200, response.text
    # A Bearer key beside it still has to agree with x-api-key.
    other = make_key("acme", "member").api_key
    both = [("authorization", "Basic dXNlcjpwYXNz"), ("authorization", f"Bearer {other}")]
    headers = [*both, ("x-api-key", member_key.api_key)]
    assert_error(api.get("/v1/_test/whoami", headers=headers), 401, "unauthorized")


def test_keys_identify_their_workspace(
    api: TestClient, auth: dict[str, str], other_auth: dict[str, str]
) -> None:
    mine = api.get("/v1/_test/whoami", headers=auth).json()["team_id"]
    theirs = api.get("/v1/_test/whoami", headers=other_auth).json()["team_id"]
    assert mine.startswith("team_")
    assert theirs.startswith("team_")
    assert mine != theirs


def test_operator_routes_do_not_exist_for_member_keys(
    api: TestClient, auth: dict[str, str], admin_auth: dict[str, str]
) -> None:
    assert_error(api.get("/v1/_test/admin", headers=auth), 404, "not_found")
    assert api.get("/v1/_test/admin", headers=admin_auth).status_code == 200


def test_health_and_ready_need_no_key(api: TestClient) -> None:
    assert api.get("/healthz").json()["status"] == "ok"
    ready = api.get("/readyz")
    assert ready.status_code == 200
    assert ready.json()["checks"]["database"]["ok"] is True


def test_metrics_count_requests_by_route_and_status(api: TestClient, auth: dict[str, str]) -> None:
    api.get("/v1/_test/whoami", headers=auth)
    api.get("/v1/_test/whoami")
    text = api.get("/metrics").text
    assert 'route="/v1/_test/whoami",status="200"' in text
    assert 'route="/v1/_test/whoami",status="401"' in text
    assert "herald_http_request_duration_seconds_bucket" in text
    # The queue is shared state: at /metrics/shared, not in the per-process metrics.
    assert "herald_queue_jobs" not in text
    assert "# TYPE herald_queue_jobs gauge" in api.get("/metrics/shared").text


def test_openapi_documents_errors_not_422(api: TestClient) -> None:
    schema = api.get("/openapi.json").json()
    for path, operations in schema["paths"].items():
        for operation in operations.values():
            assert "422" not in operation["responses"], path
            assert "400" in operation["responses"], path
    assert api.get("/docs").status_code == 200
