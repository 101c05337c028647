"""The client stands alone: it depends only on httpx and pydantic and never imports the server."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import herald_client

import herald

CLIENT = Path(__file__).parents[2] / "clients" / "python"

PROBE = """
import json, sys
import herald_client, herald_client.models, herald_client.webhooks
from herald_client._endpoints import ENDPOINTS
print(json.dumps(sorted({name.split(".")[0] for name in sys.modules})))
"""


def test_the_package_declares_only_httpx_and_pydantic() -> None:
    config = tomllib.loads((CLIENT / "pyproject.toml").read_text())
    project = config["project"]
    assert project["name"] == "herald-client"
    # One place for the version, released with the server's.
    assert project["dynamic"] == ["version"]
    version = config["tool"]["setuptools"]["dynamic"]["version"]
    assert version == {"attr": "herald_client._version.__version__"}
    assert herald_client.__version__ == herald.__version__
    names = sorted(
        d.split(">")[0].split("<")[0].split("=")[0].strip() for d in project["dependencies"]
    )
    assert names == ["httpx", "pydantic"]
    assert (CLIENT / "src" / "herald_client" / "py.typed").exists()


def test_importing_the_client_loads_nothing_of_the_server() -> None:
    out = subprocess.run(
        [sys.executable, "-c", PROBE], check=True, capture_output=True, text=True
    ).stdout
    loaded = set(json.loads(out))
    server_side = {"herald", "fastapi", "starlette", "sqlalchemy", "uvicorn", "torch", "numpy"}
    assert loaded & server_side == set()
    assert {"httpx", "pydantic", "herald_client"} <= loaded


def test_the_public_names_are_importable_from_the_top() -> None:
    for name in herald_client.__all__:
        assert getattr(herald_client, name) is not None
    for name in herald_client.models.__all__:
        assert getattr(herald_client.models, name) is not None
    assert issubclass(herald_client.NotFoundError, herald_client.APIStatusError)
    assert issubclass(herald_client.APITimeoutError, herald_client.APIConnectionError)
    assert issubclass(herald_client.WebhookVerificationError, herald_client.HeraldError)
