"""405 names every method of the resource in ``Allow``; HEAD answers wherever GET does."""

from __future__ import annotations

import re

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)  # routing only
def test_every_path_lists_all_its_methods_and_answers_head_like_get(
    app: FastAPI, client: TestClient, admin_auth: dict[str, str]
) -> None:
    paths = app.openapi()["paths"]
    for template in paths:
        path = re.sub(r"\{[^}]+\}", "x", template)
        # A literal path serves only its own methods (a GET of /v1/content/search is a 405, not
        # the content id "search"); a path made from a template, every template it matches.
        served = {
            method.upper()
            for other, operations in paths.items()
            if (
                re.fullmatch(re.sub(r"\{[^}]+\}", "[^/]+", other), path)
                if "{" in template
                else other == template
            )
            for method in operations
        }
        expected = sorted(served | ({"HEAD"} if "GET" in served else set()))
        for method in [m for m in METHODS if m not in served] + ["OPTIONS"]:
            response = client.request(method, path, headers=admin_auth)
            assert response.status_code == 405, (method, path)
            assert response.json()["error"] == "method_not_allowed"
            assert response.headers["allow"] == ", ".join(expected), (method, path)
        if "GET" in served:
            got = client.get(path, headers=admin_auth)
            head = client.head(path, headers=admin_auth)
            assert head.status_code == got.status_code, path
            assert head.content == b""
            assert head.headers["x-request-id"]


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("GET", "/v1/content/search", "POST"),
        ("HEAD", "/v1/content/search", "POST"),
        ("GET", "/v1/monitors/preview", "POST"),
        ("PATCH", "/v1/monitors/preview", "POST"),
        ("DELETE", "/v1/monitors/preview", "POST"),
    ],
)
def test_a_post_only_path_is_405_not_an_id_lookup(
    client: TestClient, auth: dict[str, str], method: str, path: str, allow: str
) -> None:
    # GET /v1/content/search once looked up the content item "search" and answered 404.
    body = {"json": {"name": "x"}} if method == "PATCH" else {}
    response = client.request(method, path, headers=auth, **body)
    assert response.status_code == 405, response.text
    assert response.headers["allow"] == allow
    if method != "HEAD":
        assert response.json()["error"] == "method_not_allowed"
        assert "use POST" in response.json()["message"]
