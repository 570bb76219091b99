"""What a read of the activity store gives back: events with the notes each returned, each
client's latest call, the latest recall of each note, and an event's status as its row holds it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import assert_never

from vault_recall.server.activity.events import EventStatus, event_status


@dataclass(frozen=True, slots=True)
class OtherStatus:
    """An event's status that is none this version writes: one another version wrote."""

    word: str


def read_status(value: object) -> EventStatus | OtherStatus | None:
    """An event's status as its row holds it.  Every version of Vault Recall a person runs
    writes to the one store, so a row may hold a word an older or newer one wrote: that is
    kept as OtherStatus, shown as written and taken as the server's news that the vault
    looked otherwise than the last health check (as before the statuses were typed), rather
    than dropped as if the call had said nothing."""
    if value is None:
        return None
    known = event_status(value)
    return known if known is not None else OtherStatus(str(value))


def status_text(status: EventStatus | OtherStatus | None) -> str | None:
    """An event's status as written in its row (None: it has none)."""
    match status:
        case None | "ok" | "degraded" | "unavailable" | "error":
            return status
        case OtherStatus(word):
            return word
        case _:
            assert_never(status)


@dataclass(frozen=True)
class EventRow:
    id: int
    ts: float
    client: str
    client_name: str | None
    tool: str
    vault: str | None
    subject: str | None
    query: str | None
    status: EventStatus | OtherStatus | None  # read_status
    omitted: int | None
    duration_ms: float
    error: str | None
    returned: tuple[str, ...]  # note paths
    revisions: tuple[str | None, ...] = ()  # the revision each was given at (None: a line, not a note)
    client_version: str | None = None  # the version the client reported

    def given(self) -> list[tuple[str, str | None]]:
        """(path, the revision it was given at) for each returned note."""
        return [(path, self.revisions[i] if i < len(self.revisions) else None) for i, path in enumerate(self.returned)]


@dataclass(frozen=True)
class Recall:
    """A client's latest recall of one whole note: which revision it was given, and when."""

    client: str
    vault: str
    path: str
    revision: str
    ts: float


@dataclass(frozen=True)
class ClientSummary:
    client: str
    calls: int
    last_ts: float


@dataclass(frozen=True)
class News:
    """What a look at the store found: its newest event's id, and the events after the one asked."""

    newest: int
    events: list[EventRow]
