"""The web console (``/console``) and the interactive API docs (``/docs``), both served offline.

Every asset comes from the installed package: the console's own files from
``herald/console/static`` and Swagger UI's from the ``fastapi_offline`` package. Files are looked
up in a fixed table built at import (no path from the request ever touches the file system), and
every page carries a Content-Security-Policy that admits scripts from this origin only: content
from feeds is rendered as text by the console, and even if some of it ever reached the DOM as
markup, no inline script or handler would run and nothing could be sent to another origin.

The console talks to the public ``/v1`` API with the signed-in key; it has no endpoints of its
own.
"""

from __future__ import annotations

from importlib import resources
from pathlib import PurePosixPath
from typing import Final

import fastapi_offline
from fastapi import APIRouter
from fastapi.responses import RedirectResponse, Response

from herald import __version__
from herald.errors import NotFound

router = APIRouter(include_in_schema=False)

_TYPES: Final = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".png": "image/png",
    ".svg": "image/svg+xml",
}
# No inline script, no outside origin, no framing, no plugins; `data:` images for Swagger UI's
# icons. Swagger UI sets element styles from script, which `style-src 'self'` allows (CSSOM).
CONSOLE_CSP: Final = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
_HEADERS: Final = {
    "content-security-policy": CONSOLE_CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    # Assets change with the installed version; the browser revalidates instead of guessing.
    "cache-control": "no-cache",
}
_DOCS_ASSETS: Final = ("swagger-ui-bundle.js", "swagger-ui.css", "favicon.png")


def _load(folder: resources.abc.Traversable, names: list[str]) -> dict[str, tuple[bytes, str]]:
    files = {}
    for name in names:
        suffix = PurePosixPath(name).suffix
        node = folder
        for part in name.split("/"):
            node = node.joinpath(part)
        files[name] = (node.read_bytes(), _TYPES[suffix])
    return files


def _console_files() -> dict[str, tuple[bytes, str]]:
    static = resources.files("herald").joinpath("console", "static")
    names: list[str] = []

    def walk(node: resources.abc.Traversable, prefix: str) -> None:
        for child in node.iterdir():
            if child.is_dir():
                walk(child, f"{prefix}{child.name}/")
            elif PurePosixPath(child.name).suffix in _TYPES:
                names.append(prefix + child.name)

    walk(static, "")
    return _load(static, names)


CONSOLE_FILES: Final = _console_files()
DOCS_FILES: Final = _load(resources.files(fastapi_offline).joinpath("static"), list(_DOCS_ASSETS))


def _file(table: dict[str, tuple[bytes, str]], name: str) -> Response:
    found = table.get(name)
    if found is None:
        raise NotFound(f"no such console file: {name}")
    body, media_type = found
    return Response(body, media_type=media_type, headers=_HEADERS)


@router.get("/console")
def console_root() -> RedirectResponse:
    return RedirectResponse("/console/", status_code=308)


@router.get("/console/")
def console_index() -> Response:
    return _file(CONSOLE_FILES, "index.html")


@router.get("/console/{name:path}")
def console_file(name: str) -> Response:
    return _file(CONSOLE_FILES, name)


@router.get("/docs")
def docs() -> Response:
    page = f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Herald {__version__} - API docs</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="icon" href="/docs/assets/favicon.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/console/docs-init.js"></script>
</body>
</html>
"""
    return Response(page, media_type=_TYPES[".html"], headers=_HEADERS)


@router.get("/docs/assets/{name}")
def docs_asset(name: str) -> Response:
    return _file(DOCS_FILES, name)
