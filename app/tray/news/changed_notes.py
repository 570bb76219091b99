"""Which clients hold an old version of a note the person changed, and when to tell the
person so — as data, without the disk or the clock.

The tray's watcher (running/tray_app.py) reads the recalls of the last day from the activity store and
each recalled note's revision now; `stale_notes` says which notes changed since which clients
were given them, and `ChangeNotices` decides which to announce: each change once, at most one
notification per note every NOTICE_SECONDS (Obsidian saves every few seconds while the person
types), and nothing for what had already changed before the tray started watching.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from vault_recall.app.state.note_revisions import NoteRef
from vault_recall.app.tray.notices import joined, plural
from vault_recall.server.activity.event_rows import Recall
from vault_recall.server.obsidian.note import note_title

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
    of each note (server/activity/queries.py:latest_recalls)."""
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


@dataclass(frozen=True)
class VanishedVault:
    """A vault whose folder went out of reach, with the recalled notes that went with it."""

    vault: str
    notes: int
    clients: tuple[str, ...]  # who recalled them, most recent first


class ChangeNotices:
    """Which stale notes to announce now.  A change is announced once (the revision announced
    is remembered per note), a note at most once per `seconds`; a change throttled now is
    announced when its time comes, if it still stands."""

    def __init__(self, seconds: float = NOTICE_SECONDS) -> None:
        self.seconds = seconds
        self._announced: dict[NoteRef, tuple[str | None, float]] = {}  # revision told, when
        self._vanished: set[str] = set()  # vaults told gone, until they are back

    def prime(self, stale: Sequence[StaleNote]) -> None:
        """What is already stale when the tray starts watching was not seen changing: never
        announced (a later change of those notes is)."""
        for note in stale:
            self._announced[note.ref] = (note.now, float("-inf"))

    def vanished(self, stale: Sequence[StaleNote], missing: Collection[str], now: float) -> list[VanishedVault]:
        """The vaults in `missing` (their folders out of reach now) whose recalled notes are gone,
        each told once until it is back; `due` never tells their notes one by one.  What was
        told of each note before stays as it was: back with the same revision, a note is no
        news (marking it told as gone made the old change due again after the quiet time)."""
        self._vanished &= set(missing)  # back: a later disappearance is news again
        gone: dict[str, list[StaleNote]] = {}
        for note in stale:
            if note.vault in missing and note.now is None:
                gone.setdefault(note.vault, []).append(note)
        fresh = [vault for vault in gone if vault not in self._vanished]
        self._vanished |= set(fresh)
        return [
            VanishedVault(
                vault,
                len(gone[vault]),
                tuple(dict.fromkeys(c for n in sorted(gone[vault], key=lambda n: -n.last_recalled) for c in n.clients)),
            )
            for vault in fresh
        ]

    def due(self, stale: Sequence[StaleNote], now: float) -> list[StaleNote]:
        """The notes to announce at time `now`, marked announced (after `vanished`, whose
        vaults' gone notes are left out)."""
        due: list[StaleNote] = []
        for note in stale:
            if note.now is None and note.vault in self._vanished:
                continue  # gone with its vault: `vanished` told it, once, for the whole vault
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


ClientNames = Callable[[str], str]  # client id → the name a person knows it by


def notice_text(note: StaleNote, now: float, name: ClientNames) -> tuple[str, str]:
    """'Cursor and Claude Code recalled the old 'Build decision' today', and what happens next:
    each is told on its next call (the server checks what it handed out on every call)."""
    names = [name(client) for client in note.clients]
    who = joined(names)
    one = len(names) == 1
    same_day = time.localtime(note.last_recalled)[:3] == time.localtime(now)[:3]
    when = "today" if same_day else "yesterday"
    title = note_title(note.path)
    told = f"{who} {'is' if one else 'are'} told on {'its' if one else 'their'} next call"
    if note.now is None:
        return (
            f"'{title}' is gone; {who} recalled it {when}",
            f"{told} that it is gone. If you moved or renamed it, nothing to do: a new recall finds it "
            "where it is now.",
        )
    return (
        f"{who} recalled the old '{title}' {when}",
        f"{told} that it changed, and asked to read it again; a new conversation gets the new version "
        "anyway. Nothing for you to do.",
    )


def vanished_text(gone: VanishedVault, folder: str, name: ClientNames) -> tuple[str, str]:
    """One notice for a vault whose folder went, with the recalled notes it took."""
    return (
        f"{gone.vault} is out of reach, with {plural(gone.notes, 'recalled note')}",
        f"Its folder {folder} is gone or cannot be read: {joined([name(c) for c in gone.clients])} recalled "
        f"{plural(gone.notes, 'note')} from it in the last day. Clients that use it get 'unavailable' until it is "
        "back: put the folder back (or plug its disk in).",
    )
