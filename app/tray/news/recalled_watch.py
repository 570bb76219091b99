"""The notes clients recalled in the last day, watched for the person's edits on the tray's
watcher thread: their files' times and sizes looked at on every poll, the notes read only when
those change; changed_notes.py decides what is news and words it."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from vault_recall.app.desktop.notifications import Notify
from vault_recall.app.state.note_revisions import (
    FileMark,
    NoteRef,
    file_mark,
    revisions_now,
    vault_folders,
    within_reach,
)
from vault_recall.app.tray.menu.items import TrayState
from vault_recall.app.tray.news.changed_notes import (
    RECALL_WINDOW_SECONDS,
    ChangeNotices,
    StaleNote,
    notice_text,
    stale_notes,
    vanished_text,
    watched_notes,
)
from vault_recall.server.activity.event_rows import Recall
from vault_recall.server.activity.queries import latest_recalls
from vault_recall.server.config.config_file import activity_path
from vault_recall.server.vault.listing import vault_name
from vault_recall.server.vault.paths import display

# The recalls of the last day are read again at least this often (and after every new event).
RECALLS_SECONDS = 60.0


class RecalledNotesWatch:
    """What the watcher knows of the recalled notes between looks."""

    def __init__(self) -> None:
        self._recalls: list[Recall] | None = None
        self._due = 0.0
        self._marks: dict[NoteRef, FileMark] = {}
        self._stale: list[StaleNote] = []
        self._notices = ChangeNotices()

    def look(self, state: TrayState, recalled: bool, notify: Notify, health_tells: Callable[[str], bool]) -> bool:
        """Look at the notes recalled in the last day (their files' times, sizes; read only when
        those change) and tell the person when one changed that clients were given before —
        with the state the menu shows; `recalled`: a client was just given notes.  True when
        the menu's marks may have changed."""
        now = time.time()
        first = self._recalls is None
        fresh = False
        if recalled or self._recalls is None or time.monotonic() >= self._due:
            recalls = latest_recalls(activity_path(), since=now - RECALL_WINDOW_SECONDS)
            fresh = recalls != self._recalls
            self._recalls = recalls
            self._due = time.monotonic() + RECALLS_SECONDS
        folders = vault_folders(state.config, state.known_vaults)
        refs = [ref for ref in watched_notes(self._recalls or []) if ref[0] in folders]
        marks = {ref: file_mark(folders[ref[0]], ref[1]) for ref in refs}
        touched = marks != self._marks
        if touched or fresh:
            self._marks = marks
            self._stale = stale_notes(self._recalls or [], revisions_now(refs, folders))
            if first:
                self._notices.prime(self._stale)  # changed before the tray watched: not news
        # A vault whose folder went takes its recalled notes with it: one notice for the vault
        # (the health check's, with the count, when it is the active vault), none per note.
        missing = {vault for vault in {ref[0] for ref in refs} if not within_reach(folders[vault])}
        for gone in self._notices.vanished(self._stale, missing, now):
            if state.notify_changed and not health_tells(gone.vault):
                notify(*vanished_text(gone, display(folders[gone.vault]), state.name_of))
        for note in self._notices.due(self._stale, now):
            if state.notify_changed:
                notify(*notice_text(note, now, state.name_of))
        return touched

    def recalled_from(self, vault: Path) -> int:
        """How many notes clients recalled from `vault` in the last day."""
        return sum(1 for ref in watched_notes(self._recalls or []) if ref[0] == vault_name(vault))
