"""Which clients hold an old version of a note the person changed, and when to tell the
person so — as data, without the disk or the clock.

The tray's watcher (tray_app.py) reads the recalls of the last day from the activity store and
each recalled note's revision now; `stale_notes` says which notes changed since which clients
were given them, and `ChangeNotices` decides which to announce: each change once, at most one
notification per note every NOTICE_SECONDS (Obsidian saves every few seconds while the person
types), and nothing for what had already changed before the tray started watching.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from vault_recall.app.state.activity_view import Recall
from vault_recall.app.state.note_revisions import NoteRef
from vault_recall.app.tray.menu import client_name, note_name

# Recalls this recent count: a model's conversation rarely outlives a day.
RECALL_WINDOW_SECONDS = 24 * 3600
# At most one notification per note in this time.
NOTICE_SECONDS = 300.0
# Notes watched at most (the most recently recalled); each is looked at once a second.
MAX_WATCHED = 50


@dataclass(frozen=True)
class StaleNote:
    """A note some clients were given at another revision than it has now."""

    vault: str
    path: str
    now: str | None  # its revision now; None: gone
    clients: tuple[str, ...]  # client ids holding an older version, most recent recall first
    last_recalled: float

    @property
    def ref(self) -> NoteRef:
        return (self.vault, self.path)


def watched_notes(recalls: Sequence[Recall], limit: int = MAX_WATCHED) -> list[NoteRef]:
    """The notes to watch: the most recently recalled, each once, at most `limit`."""
    refs: dict[NoteRef, None] = {}
    for recall in recalls:
        refs.setdefault((recall.vault, recall.path), None)
        if len(refs) >= limit:
            break
    return list(refs)


def stale_notes(recalls: Sequence[Recall], current: Mapping[NoteRef, str | None]) -> list[StaleNote]:
    """For each note whose revision now is known, the clients whose latest recall of it gave
    them another revision; newest recall first.  `recalls` hold each client's latest recall
    of each note (activity_view.latest_recalls)."""
    holders: dict[NoteRef, list[Recall]] = {}
    for recall in sorted(recalls, key=lambda r: r.ts, reverse=True):
        ref = (recall.vault, recall.path)
        if ref in current and current[ref] != recall.revision:
            holders.setdefault(ref, []).append(recall)
    return [
        StaleNote(
            vault=ref[0],
            path=ref[1],
            now=current[ref],
            clients=tuple(dict.fromkeys(r.client for r in stale)),
            last_recalled=stale[0].ts,
        )
        for ref, stale in holders.items()
    ]


class ChangeNotices:
    """Which stale notes to announce now.  A change is announced once (the revision announced
    is remembered per note), a note at most once per `seconds`; a change throttled now is
    announced when its time comes, if it still stands."""

    def __init__(self, seconds: float = NOTICE_SECONDS) -> None:
        self.seconds = seconds
        self._announced: dict[NoteRef, tuple[str | None, float]] = {}  # revision told, when

    def prime(self, stale: Sequence[StaleNote]) -> None:
        """What is already stale when the tray starts watching was not seen changing: never
        announced (a later change of those notes is)."""
        for note in stale:
            self._announced[note.ref] = (note.now, float("-inf"))

    def due(self, stale: Sequence[StaleNote], now: float) -> list[StaleNote]:
        """The notes to announce at time `now`, marked announced."""
        due: list[StaleNote] = []
        for note in stale:
            told, when = self._announced.get(note.ref, (None, float("-inf")))
            if note.ref in self._announced and told == note.now:
                continue  # this very change was told (or was there before the tray watched)
            if now - when < self.seconds:
                continue  # told about this note a moment ago: wait
            self._announced[note.ref] = (note.now, now)
            due.append(note)
        # Forget notes no longer stale once their quiet time is over: the table stays small.
        standing = {note.ref for note in stale}
        for ref in [r for r, (_, when) in self._announced.items() if r not in standing and now - when >= self.seconds]:
            del self._announced[ref]
        return due


def notice_text(note: StaleNote, now: float) -> str:
    """'Cursor and Claude Code recalled the old 'Build decision' today'."""
    names = [client_name(client) for client in note.clients]
    who = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    if len(names) > 3:
        who = f"{', '.join(names[:2])} and {len(names) - 2} other clients"
    same_day = time.localtime(note.last_recalled)[:3] == time.localtime(now)[:3]
    when = "today" if same_day else "yesterday"
    title = note_name(note.path)
    if note.now is None:
        return f"'{title}' is gone; {who} recalled it {when}"
    return f"{who} recalled the old '{title}' {when}"
