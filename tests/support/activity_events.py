"""Activity events as tests write them: a call of `recall_context` by `client` that went well,
unless the keywords say otherwise."""

from __future__ import annotations

from pathlib import Path

from vault_recall.server.activity.events import ActivityEvent
from vault_recall.server.activity.writer import ActivityWriter


def event(client: str = "cursor", **kw: object) -> ActivityEvent:
    fields: dict[str, object] = {"tool": "recall_context", "duration_ms": 1.5, "status": "ok"} | kw
    return ActivityEvent(client=client, **fields)  # type: ignore[arg-type]


def store_events(path: Path, *events: ActivityEvent) -> bool:
    """Append `events` to the store at `path` as a server does, then close it (an open
    connection left to the garbage collector is a ResourceWarning from Python 3.13): True when
    every one was stored."""
    with ActivityWriter() as writer:
        return all([writer.append(path, each) for each in events])
