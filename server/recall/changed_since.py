"""Telling a client that a note it was given has changed since: what a server process
remembers of the notes it handed out (vault, path and revision — never text), and the check
made on every later call.

A model that recalled a note holds its text in its conversation; when the person corrects the
note, the model would go on using the old text unless told.  So each call ends by reading again
the notes this client was handed earlier (at most MAX_REMEMBERED, the most recent): one open,
fstat and SHA-256 each, through the same folder descriptors as every read, judged as the client
sees them now — the vault in use, Obsidian's Excluded files and template folders, and
`view.in_view` on the freshly parsed note.  A note with other bytes is reported with its new
revision; one that is gone, unreadable or no longer visible to the client is reported with
`now: null` and nothing more.  Once told, the new revision is what is remembered (a gone note
is forgotten), so each change is told once; a change that does not fit the call's budget waits
for the next call.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from vault_recall.server.errors import VaultUnavailable
from vault_recall.server.obsidian.note import parse_note
from vault_recall.server.obsidian.uri import obsidian_uri
from vault_recall.server.recall.packing import compact_json, json_size
from vault_recall.server.recall.results import ChangedNote, Envelope
from vault_recall.server.recall.scan import as_listed
from vault_recall.server.recall.scope import Scope
from vault_recall.server.recall.view import in_view
from vault_recall.server.vault.excluded import read_excluded_files
from vault_recall.server.vault.folders import FolderChain
from vault_recall.server.vault.listing import check_vault_folder, vault_name
from vault_recall.server.vault.note_files import NoteTooLarge, read_note_bytes
from vault_recall.server.vault.settings import config_folders
from vault_recall.server.vault.templates import TemplateFolders, read_template_folders

FIELD: Final = "changed_since_recalled"
OMITTED_FIELD: Final = "changed_since_recalled_omitted"
# Notes remembered per client: the most recently handed out.  Each later call reads these again.
MAX_REMEMBERED = 50
# Clients remembered per process (the HTTP endpoint serves many; one stdio process serves one).
MAX_CLIENTS = 256
# Changes told in one result at most; the rest wait for the next call.
MAX_TOLD = 10


@dataclass(frozen=True)
class Handed:
    """One note a client was given whole: where it is and the revision it had."""

    vault: Path
    path: str
    revision: str


@dataclass(frozen=True)
class Changed:
    """A note handed out earlier that is not what the client was given any more."""

    vault: Path
    path: str
    was: str
    now: str | None  # None: gone, unreadable, or no longer visible to this client

    def as_json(self) -> ChangedNote:
        uri = obsidian_uri(vault_name(self.vault), self.path)
        return {"path": self.path, "uri": uri, "was": self.was, "now": self.now}


def handed_in(vault: Path, result: Mapping[str, object]) -> list[Handed]:
    """The whole notes a tool result hands out, with their revisions: the records of
    recall_context and recall_activity, and read_note's note (its text or one section).
    Search hits and backlinks are lines, not notes, and carry no revision."""
    found: list[Handed] = []
    records = result.get("records")
    for item in records if isinstance(records, list) else ():
        if isinstance(item, dict) and isinstance(item.get("path"), str) and isinstance(item.get("revision"), str):
            found.append(Handed(vault, item["path"], item["revision"]))
    path, revision = result.get("path"), result.get("revision")
    if isinstance(path, str) and isinstance(revision, str) and "text" in result:
        found.append(Handed(vault, path, revision))
    return found


def changed_since(scope: Scope, handed: Sequence[Handed]) -> list[Changed]:
    """Each handed-out note whose bytes, or whose visibility to this client, are not what they
    were, in the order given.  Nothing when the vault cannot be read right now: the call
    itself answers `unavailable`, and the notes are checked again on the next call."""
    root = scope.vault
    if root is None or not handed:
        return []
    try:
        check_vault_folder(root)
        chain = FolderChain(root)
    except (VaultUnavailable, OSError):
        return []
    folders = config_folders(root)
    excluded = read_excluded_files(root, folders)
    templates = read_template_folders(root, folders)
    now: dict[tuple[Path, str], str | None] = {}
    with chain:
        # In path order: the chain then opens each folder once for the notes in it.
        for note in sorted(handed, key=lambda h: h.path):
            if note.vault != root or excluded.matches(note.path) or _hidden(note.path):
                now[(note.vault, note.path)] = None
            else:
                now[(note.vault, note.path)] = _revision_as_seen(scope, chain, note.path, templates)
    return [
        Changed(note.vault, note.path, note.revision, now[(note.vault, note.path)])
        for note in handed
        if now[(note.vault, note.path)] != note.revision
    ]


def _hidden(path: str) -> bool:
    return any(part.startswith(".") for part in path.split("/"))


def _revision_as_seen(scope: Scope, chain: FolderChain, path: str, templates: TemplateFolders) -> str | None:
    """The note's revision now, if this client may see it (as a note, or as a broken one)."""
    try:
        raw = read_note_bytes(chain, path)
    except (OSError, NoteTooLarge):
        return None
    parsed = as_listed(templates, parse_note(path, raw.data, raw.mtime_ns))
    if parsed is None:
        return None
    note, trouble = in_view(scope.exposure, parsed)
    if note is None and trouble is None:
        return None
    return hashlib.sha256(raw.data).hexdigest()


def attach(result: Envelope, changes: Sequence[Changed], budget: int | None) -> list[Changed]:
    """Add `changes` to the result as FIELD, as many as fit — at most MAX_TOLD, and the whole
    result's compact JSON within `budget` when the tool has one — with OMITTED_FIELD counting
    the rest.  Returns the changes told."""
    if not changes:
        return []
    base = json_size(result)
    entries: list[ChangedNote] = []
    for change in changes[:MAX_TOLD]:
        candidate = [*entries, change.as_json()]
        if budget is not None and base + _added_size(candidate, len(changes) - len(candidate)) > budget:
            break
        entries = candidate
    if not entries:
        return []
    result[FIELD] = entries
    if len(changes) > len(entries):
        result[OMITTED_FIELD] = len(changes) - len(entries)
    return list(changes[: len(entries)])


def _added_size(entries: list[ChangedNote], omitted: int) -> int:
    extra: dict[str, object] = {FIELD: entries}
    if omitted:
        extra[OMITTED_FIELD] = omitted
    # The fields join an object that is not empty: one comma instead of the braces.
    return len(compact_json(extra).encode("utf-8")) - 1


class HandedOutNotes:
    """What one server process remembers per client: (vault, path) → the revision last handed
    out or told, most recent last, at most MAX_REMEMBERED per client and MAX_CLIENTS clients.
    Thread-safe: the HTTP endpoint runs calls of many clients (and a few of one) at once."""

    def __init__(self, per_client: int = MAX_REMEMBERED, clients: int = MAX_CLIENTS) -> None:
        self._per_client = per_client
        self._max_clients = clients
        self._clients: OrderedDict[str, OrderedDict[tuple[Path, str], str]] = OrderedDict()
        self._lock = threading.Lock()

    def notes(self, client: str) -> list[Handed]:
        """The client's remembered notes, most recently handed out first."""
        with self._lock:
            remembered = self._clients.get(client)
            if remembered is None:
                return []
            return [Handed(vault, path, revision) for (vault, path), revision in reversed(remembered.items())]

    def settle(self, client: str, told: Sequence[Changed], handed: Sequence[Handed]) -> None:
        """After a call: the changes told are now known to the client (a gone note is
        forgotten), and the notes handed out are remembered at their revisions."""
        with self._lock:
            remembered = self._clients.get(client)
            if remembered is None:
                if not handed:
                    return
                remembered = self._clients[client] = OrderedDict()
            self._clients.move_to_end(client)
            for change in told:
                key = (change.vault, change.path)
                if remembered.get(key) != change.was:
                    continue  # another call of this client settled it meanwhile
                if change.now is None:
                    del remembered[key]
                else:
                    remembered[key] = change.now
            for note in handed:
                key = (note.vault, note.path)
                remembered[key] = note.revision
                remembered.move_to_end(key)
            while len(remembered) > self._per_client:
                remembered.popitem(last=False)
            if not remembered:
                del self._clients[client]
            while len(self._clients) > self._max_clients:
                self._clients.popitem(last=False)

    def clients(self) -> int:
        with self._lock:
            return len(self._clients)


def follow_up(memory: HandedOutNotes, scope: Scope, result: Envelope, budget: int | None) -> None:
    """The end of every call: tell the client (in `result`) which notes it was given earlier
    have changed since, then remember what this result hands out."""
    remembered = memory.notes(scope.client)
    told = attach(result, changed_since(scope, remembered), budget) if remembered else []
    handed = handed_in(scope.vault, result) if scope.vault is not None else []
    if told or handed:
        memory.settle(scope.client, told, handed)
