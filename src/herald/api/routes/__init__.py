"""The API's routers. Each area adds its router module here with one line."""

from __future__ import annotations

from fastapi import APIRouter

from herald.api.routes import health

ROUTERS: list[APIRouter] = [health.router]
