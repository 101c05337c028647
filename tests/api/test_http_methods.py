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
        # Every template the path matches serves its methods (a GET of /v1/content/search looks
        # up the content id "search"); `Allow` names a literal path's own (that resource's).
        served = {
            method.upper()
            for other, operations in paths.items()
            if re.fullmatch(re.sub(r"\{[^}]+\}", "[^/]+", other), path)
            for method in operations
        }
        documented = {m.upper() for m in paths[template]} if "{" not in template else served
        expected = sorted(documented | ({"HEAD"} if "GET" in documented else set()))
        for method in [m for m in METHODS if m not in served] + ["OPTIONS"]:
            response = client.request(method, path, headers=admin_auth)
            assert response.status_code == 405, (method, path)
            assert response.json()["error"] == "method_not_allowed"
            assert response.headers["allow"] == ", ".join(expected), (method, path)
        if "GET" in documented:
            got = client.get(path, headers=admin_auth)
            head = client.head(path, headers=admin_auth)
            assert head.status_code == got.status_code, path
            assert head.content == b""
            assert head.headers["x-request-id"]
