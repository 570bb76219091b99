"""Activity events as tests write them: a call of `recall_context` by `client` that went well,
unless the keywords say otherwise."""

from __future__ import annotations

from vault_recall.server.activity.events import ActivityEvent


def event(client: str = "cursor", **kw: object) -> ActivityEvent:
    fields: dict[str, object] = {"tool": "recall_context", "duration_ms": 1.5, "status": "ok"} | kw
    return ActivityEvent(client=client, **fields)  # type: ignore[arg-type]
