"""Recording webhook events: the one entry point other areas call (monitors do).

Pinned signature (other areas depend on it):

    record_event(session, *, team_id, event_type, data, clock) -> str | None

It runs inside the caller's transaction: it writes the event, and when the workspace has an enabled
target, a pending delivery and its durable delivery job. It returns the event id (``evt_...``), or
``None`` when the workspace has no enabled target (no event is created then, as pinned).
The webhooks area implements it.
"""
