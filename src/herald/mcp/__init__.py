"""Herald as a Model Context Protocol server: its search, stories, entities and monitors as tools
for AI agents.

One tool layer (``server.build_server``, with the tools of ``content_tools.py`` and
``monitor_tools.py``) calls the Herald API through ``herald_client``; the two transports only
decide which client a call gets:

- ``herald mcp`` (stdio, ``stdio.py``): one client for the process, pointed at ``HERALD_BASE_URL``
  with ``HERALD_API_KEY``;
- ``/mcp`` on ``herald serve`` (streamable HTTP, ``http.py``): a client per call with the caller's
  own key, whose requests go in-process through the same public ``/v1`` routes, so the API's
  authentication, validation, rate limit and workspace isolation apply unchanged.

Results are compact (``results.py``): they cite ids and URLs and never carry bodies or transcripts.
"""
