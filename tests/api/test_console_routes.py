"""How /console and /docs are served: every file from the package, under a policy that runs no
inline script and reaches no other origin, nothing outside the file table, and no endpoint of
their own besides the files (the console works through the public /v1 API)."""

from __future__ import annotations

import re

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from herald.api.routes.console import CONSOLE_CSP, CONSOLE_FILES

INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.I)
OUTSIDE = re.compile(r"""(src|href)\s*=\s*["']?(https?:)?//""", re.I)


@pytest.fixture(params=["sqlite"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)  # no storage involved: one backend is enough


def test_the_console_page_and_its_policy(client: TestClient) -> None:
    redirect = client.get("/console", follow_redirects=False)
    assert redirect.status_code == 308
    assert redirect.headers["location"] == "/console/"
    page = client.get("/console/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    csp = page.headers["content-security-policy"]
    assert csp == CONSOLE_CSP
    assert "default-src 'self'" in csp
    assert "script-src 'self';" in csp
    assert "unsafe" not in csp
    assert "frame-ancestors 'none'" in csp
    assert page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["referrer-policy"] == "no-referrer"
    assert '<script type="module" src="/console/app.js"></script>' in page.text
    assert not INLINE_SCRIPT.search(page.text)
    assert not OUTSIDE.search(page.text)
    assert 'name="api_key"' not in page.text  # the form is built by the script


@pytest.mark.parametrize("name", sorted(CONSOLE_FILES))
def test_every_console_file_is_served_with_its_type_and_policy(
    client: TestClient, name: str
) -> None:
    response = client.get(f"/console/{name}")
    assert response.status_code == 200
    expected = {"js": "text/javascript", "css": "text/css", "html": "text/html"}
    kind = expected.get(name.rsplit(".", 1)[1], "image/")
    assert response.headers["content-type"].startswith(kind)
    assert response.headers["content-security-policy"] == CONSOLE_CSP
    text = response.content.decode("utf-8", "replace")
    assert not OUTSIDE.search(text), name
    assert "url(" not in text or name.endswith(".js"), name  # no stylesheet fetches
    if name.endswith(".js"):
        for unsafe in ("innerHTML", "outerHTML", "insertAdjacentHTML", "eval(", "document.write"):
            assert unsafe not in text, (name, unsafe)


def test_the_key_is_kept_in_session_storage_and_sent_as_a_header_only() -> None:
    api = CONSOLE_FILES["api.js"][0].decode()
    assert "sessionStorage" in api
    assert "localStorage" not in api
    assert '"x-api-key"' in api
    assert "document.cookie" not in "".join(
        b.decode("utf-8", "replace") for b, _ in CONSOLE_FILES.values()
    )


@pytest.mark.parametrize(
    "path",
    [
        "/console/nope.js",
        "/console/../pyproject.toml",
        "/console/%2e%2e/%2e%2e/pyproject.toml",
        "/console/static/app.js",
        "/console/..%2fapi.js",
        "/docs/assets/redoc.standalone.js",
    ],
)
def test_nothing_outside_the_file_table(client: TestClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404
    body = response.json()
    assert body["error"] == "not_found"
    assert body["meta"]["request_id"] == response.headers["x-request-id"]


def test_docs_load_swagger_ui_from_herald(client: TestClient) -> None:
    page = client.get("/docs")
    assert page.status_code == 200
    assert page.headers["content-security-policy"] == CONSOLE_CSP
    assert not INLINE_SCRIPT.search(page.text)
    assert not OUTSIDE.search(page.text)
    for src in re.findall(r'(?:src|href)="([^"]+)"', page.text):
        assert src.startswith("/"), src
        asset = client.get(src)
        assert asset.status_code == 200, src
        assert len(asset.content) > 100, src
    bundle = client.get("/docs/assets/swagger-ui-bundle.js")
    assert bundle.headers["content-type"].startswith("text/javascript")
    assert b"SwaggerUIBundle" in bundle.content


def test_console_and_docs_add_no_api_endpoints(app: FastAPI, client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert not [p for p in paths if p.startswith(("/console", "/docs"))]
    for route in app.routes:
        path = getattr(route, "path", "")
        if path.startswith(("/console", "/docs")):
            assert getattr(route, "methods", set()) <= {"GET", "HEAD"}, path
