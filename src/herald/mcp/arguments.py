"""The MCP tools' argument types, shared by several tools, and their annotations.

Values are checked by the API, not here: a description tells the model what to send, and only
an id's length is bounded (see ``ID_MAX_CHARS``).
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.types import ToolAnnotations
from pydantic import Field

# Argument types shared by several tools. Values are checked by the API, not here.
Query = Annotated[str, Field(description="What to look for, in natural language or keywords.")]
StartDate = Annotated[
    str | None,
    Field(
        description="Start of the published-date window: YYYY-MM-DD or an ISO 8601 datetime "
        "(UTC when no offset). Give both dates or neither."
    ),
]
EndDate = Annotated[
    str | None,
    Field(description="End of the window, inclusive: YYYY-MM-DD or an ISO 8601 datetime."),
]
MediaTypes = Annotated[
    list[str] | None,
    Field(description='Only these media types: any of "news", "wire", "podcast".'),
]
IncludeDomains = Annotated[
    list[str] | None,
    Field(description="Only these source domains (at most 10), e.g. reuters.com."),
]
ExcludeDomains = Annotated[
    list[str] | None,
    Field(description="Never these source domains (at most 10); not with include_domains."),
]
EntityIds = Annotated[
    list[str] | None,
    Field(description="Only content linked to at least one of these entity ids (ent_...)."),
]
SearchLimit = Annotated[int | None, Field(description="How many results, 1-100 (default 10).")]
Offset = Annotated[int | None, Field(description="Items to skip: a previous next_offset.")]
# An id is 1-1000 characters: an empty one names no resource, and a longer one no longer fits
# in a request's URL; either is an invalid argument, not a failed call.
ID_MAX_CHARS = 1000


def id_argument(description: str) -> Any:
    return Field(description=description, min_length=1, max_length=ID_MAX_CHARS)


MonitorId = Annotated[str, id_argument("The monitor's id (mon_...).")]

READ_ONLY = ToolAnnotations(readOnlyHint=True, openWorldHint=False)
