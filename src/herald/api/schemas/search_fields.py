"""The search filters' shapes as the OpenAPI document states them (content and store search,
monitors' saved searches). The rules themselves live in herald.search.request; these types only
describe them, so that generated clients and fuzzers send what the server accepts.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import WithJsonSchema

from herald.api.schemas.common import MEDIA_TYPE_SCHEMA, NOT_BLANK_SCHEMA, SPACE_CHARS
from herald.search.request import MAX_DOMAINS, MAX_ENTITY_IDS, MAX_QUERY_CHARS


def _array(items: dict[str, Any], most: int) -> dict[str, Any]:
    return {"type": "array", "items": items, "maxItems": most}


QUERY_SCHEMA: dict[str, Any] = NOT_BLANK_SCHEMA | {"maxLength": MAX_QUERY_CHARS}
MediaTypes = Annotated[list[str], WithJsonSchema(_array(MEDIA_TYPE_SCHEMA, 3))]
# A domain is checked by the search rules (herald.search.request); the schema states the part a
# pattern can: no whitespace, and not a bare path, query or fragment (what remains once a
# scheme, path and port are cut off must be a name, which a pattern cannot fully say).
DOMAIN_SCHEMA: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "pattern": f"^[^{SPACE_CHARS}/?#][^{SPACE_CHARS}]*$",
}
Domains = Annotated[list[str], WithJsonSchema(_array(DOMAIN_SCHEMA, MAX_DOMAINS))]
EntityIds = Annotated[
    list[str], WithJsonSchema(_array(NOT_BLANK_SCHEMA | {"maxLength": 200}, MAX_ENTITY_IDS))
]
