"""The client's models against the server's OpenAPI document: any disagreement fails here.

For every operation the client knows (``herald_client._endpoints.ENDPOINTS``): the operation
exists on the server; the server's success response is readable by the client's response model
(fields both ways, required-ness, nullability, types); the client's request body and query
parameters are accepted by the server and cover what it takes. And every public ``/v1``
operation of the server has a client method.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from herald_client._endpoints import ENDPOINTS, Endpoint

from herald.api.app import create_app
from herald.config import Settings
from herald.runtime import Runtime
from tests.client.schema_compare import Side, compare

# Gaps that are deliberate, each with its reason. Keys: (endpoint name, where, field).
ALLOWED_GAPS: dict[tuple[str, str, str], str] = {
    (
        "monitors.update",
        "body",
        "search",
    ): "declared by the server only to answer field_not_allowed",
    (
        "monitors.update",
        "body",
        "status",
    ): "declared by the server only to answer field_not_allowed",
    ("webhooks.list_tests", "query", "id"): "the `id` form of this operation is webhooks.get_test",
}


# One server operation with a union response that the client splits into two methods, each
# reading one of the shapes (GET /v1/webhooks/test: one delivery by id, or the recent ones).
UNION_SPLIT = frozenset({"webhooks.get_test", "webhooks.list_tests"})


def _gaps(endpoint: Endpoint[Any], where: str) -> frozenset[str]:
    return frozenset(f for (name, w, f) in ALLOWED_GAPS if name == endpoint.name and w == where)


def _template(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "{}", path)


@pytest.fixture(scope="module")
def openapi(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    home: Path = tmp_path_factory.mktemp("openapi")
    runtime = Runtime(
        Settings(home=home, database_url=f"sqlite:///{home / 'herald.db'}", log_format="text")
    )
    try:
        yield create_app(runtime).openapi()
    finally:
        runtime.close()


def _operation(openapi: dict[str, Any], endpoint: Endpoint[Any]) -> dict[str, Any]:
    for path, operations in openapi["paths"].items():
        if _template(path) == _template(endpoint.path):
            operation = operations.get(endpoint.method.lower())
            if operation is not None:
                return dict(operation)
    pytest.fail(f"{endpoint.name}: the server has no {endpoint.method} {endpoint.path}")


def _json_schema(container: dict[str, Any]) -> dict[str, Any] | None:
    content = container.get("content", {}).get("application/json")
    return None if content is None else dict(content.get("schema", {}))


def _branch_for(server: Side, client_schema: dict[str, Any]) -> dict[str, Any]:
    """The branch of a union response whose fields are the client model's."""
    branches = server.variants(server.schema)
    assert len(branches) > 1, "expected a union response"
    wanted = set(client_schema["properties"])
    matching = [b for b in branches if set(b.get("properties", {})) == wanted]
    assert matching, f"no branch of the union has the fields {sorted(wanted)}"
    return matching[0]


def _ids(endpoint: Endpoint[Any]) -> str:
    return endpoint.name


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=_ids)
def test_response_model_reads_the_servers_response(
    openapi: dict[str, Any], endpoint: Endpoint[Any]
) -> None:
    operation = _operation(openapi, endpoint)
    successes = [code for code in operation["responses"] if code.startswith("2")]
    assert successes, f"{endpoint.name}: the server documents no success response"
    server_schema = _json_schema(operation["responses"][successes[0]])
    assert server_schema, f"{endpoint.name}: the server documents no response body schema"
    client_schema = endpoint.response.model_json_schema(mode="validation")
    if endpoint.name in UNION_SPLIT:
        server_schema = _branch_for(Side(server_schema, openapi), client_schema)
    problems = compare(
        Side(server_schema, openapi),
        Side(client_schema, client_schema),
        allowed_gaps=_gaps(endpoint, "response"),
    )
    assert not problems, f"{endpoint.name} response ({endpoint.response.__name__}):\n" + "\n".join(
        problems
    )


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=_ids)
def test_request_body_is_what_the_server_takes(
    openapi: dict[str, Any], endpoint: Endpoint[Any]
) -> None:
    operation = _operation(openapi, endpoint)
    request_body = operation.get("requestBody")
    server_schema = _json_schema(request_body) if request_body else None
    if endpoint.body is None:
        if server_schema is None:
            return
        side = Side(server_schema, openapi)
        fields = {
            name
            for variant in side.variants(server_schema)
            for name in variant.get("properties", {})
        }
        assert request_body is not None
        assert not request_body.get("required"), f"{endpoint.name}: the server needs a body"
        assert not fields, f"{endpoint.name}: the server takes {sorted(fields)}, client sends none"
        return
    assert server_schema is not None, (
        f"{endpoint.name}: the client sends a body, the server takes none"
    )
    client_schema = endpoint.body.model_json_schema(mode="serialization")
    problems = compare(
        Side(client_schema, client_schema),
        Side(server_schema, openapi),
        producer_sends_null=False,  # the client leaves unset fields out instead of sending null
        allowed_gaps=_gaps(endpoint, "body"),
    )
    assert not problems, f"{endpoint.name} body ({endpoint.body.__name__}):\n" + "\n".join(problems)


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=_ids)
def test_query_parameters_are_what_the_server_takes(
    openapi: dict[str, Any], endpoint: Endpoint[Any]
) -> None:
    operation = _operation(openapi, endpoint)
    server_params = {
        p["name"]: p for p in operation.get("parameters", []) if p.get("in") == "query"
    }
    client_schema: dict[str, Any] = (
        endpoint.query.model_json_schema(mode="serialization") if endpoint.query else {}
    )
    client_params: dict[str, Any] = client_schema.get("properties", {})
    gaps = _gaps(endpoint, "query")
    problems = [
        f"query {name}: the server does not take it"
        for name in sorted(set(client_params) - set(server_params))
    ]
    problems += [
        f"query {name}: the server takes it, the client cannot send it"
        for name in sorted(set(server_params) - set(client_params) - gaps)
    ]
    for name in sorted(set(client_params) & set(server_params)):
        if server_params[name].get("required") and name not in client_schema.get("required", []):
            problems.append(f"query {name}: required by the server, optional in the client")
        problems += compare(
            Side(client_schema, client_schema),
            Side(server_params[name].get("schema", {}), openapi),
            producer_schema=client_params[name],
            path=f"query {name}",
            producer_sends_null=False,
        )
    assert not problems, f"{endpoint.name} query:\n" + "\n".join(problems)


def test_every_public_server_operation_has_a_client_method(openapi: dict[str, Any]) -> None:
    known = {(e.method, _template(e.path)) for e in ENDPOINTS}
    missing = [
        f"{method.upper()} {path}"
        for path, operations in openapi["paths"].items()
        if path.startswith("/v1/") and not path.startswith("/v1/admin/")
        for method in operations
        if (method.upper(), _template(path)) not in known
    ]
    assert not missing, "server operations without a client method: " + ", ".join(missing)
