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
is remembered as gone, so that an answer made before cannot bring back the revision told
gone), so each change is told once; a change that does not fit the call's budget waits
for the next call.

Told means delivered.  An answer is built on a worker thread but may never reach its client: it
is cancelled, its client hangs up, or the transport fails.  So building an answer only
*reserves* what it tells and hands out (`tell_changes` → `Pending`); the transport commits the
reservation once the answer is handed to it, or releases it when the answer is not, and the
change is then told by the next call instead.  While one answer holds a change, the other calls
of the same client (the HTTP endpoint and a stdio client both run several at once) pass over it,
so two answers never tell the same change.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from vault_recall.server.errors import NoteTooLarge, VaultUnavailable
from vault_recall.server.obsidian.note import parse_note
from vault_recall.server.obsidian.resolve import obsidian_uri
from vault_recall.server.recall.finding.scan import as_listed
from vault_recall.server.recall.finding.view import in_view, seen_from_bytes
from vault_recall.server.recall.packing import compact_json, json_size
from vault_recall.server.recall.results import ChangedNote, Envelope
from vault_recall.server.recall.scope import Scope
from vault_recall.server.vault.folders import FolderChain
from vault_recall.server.vault.listing import check_vault_folder, vault_name
from vault_recall.server.vault.note_files import read_note_bytes
from vault_recall.server.vault.settings import TemplateFolders
from vault_recall.server.vault.vault_settings import vault_settings

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
class NoteChange:
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
    Search hits and backlinks are lines, not notes, and carry no revision; a record given as
    passages hands out text of its revision too; one given without any text (too large for the
    budget) hands out nothing to be out of date."""
    found: list[Handed] = []
    records = result.get("records")
    for item in records if isinstance(records, list) else ():
        if not isinstance(item, dict) or ("text" not in item and "passages" not in item):
            continue
        if isinstance(item.get("path"), str) and isinstance(item.get("revision"), str):
            found.append(Handed(vault, item["path"], item["revision"]))
    path, revision = result.get("path"), result.get("revision")
    if isinstance(path, str) and isinstance(revision, str) and "text" in result:
        found.append(Handed(vault, path, revision))
    return found


def changed_since(scope: Scope, handed: Sequence[Handed]) -> list[NoteChange]:
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
    settings = vault_settings(root)
    excluded, templates = settings.excluded, settings.templates
    now: dict[tuple[Path, str], str | None] = {}
    with chain:
        # In path order: the chain then opens each folder once for the notes in it.
        for note in sorted(handed, key=lambda h: h.path):
            if note.vault != root or excluded.matches(note.path) or _hidden(note.path):
                now[(note.vault, note.path)] = None
            else:
                now[(note.vault, note.path)] = _revision_as_seen(scope, chain, note.path, templates)
    return [
        NoteChange(note.vault, note.path, note.revision, now[(note.vault, note.path)])
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
    seen = None if templates.holds(path) else seen_from_bytes(scope.exposure, raw.data, path)
    if seen is not None:
        return hashlib.sha256(raw.data).hexdigest() if seen else None
    parsed = as_listed(templates, parse_note(path, raw.data, raw.mtime_ns))
    if parsed is None:
        return None
    note, trouble = in_view(scope.exposure, parsed)
    if note is None and trouble is None:
        return None
    return hashlib.sha256(raw.data).hexdigest()


def attach(result: Envelope, changes: Sequence[NoteChange], budget: int | None) -> list[NoteChange]:
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


def now_stamp() -> int:
    """When something was read, to tell which of two answers saw a note later."""
    return time.monotonic_ns()


class Pending:
    """What one answer tells and hands out, reserved for it until the transport says whether the
    answer reached its client: `commit` once it was handed over, `release` when it was not (the
    changes are then told by a later call, and the notes it handed out are not remembered).
    Whichever comes first counts; the other is then a no-op.

    `read_from`: when the answer began reading the notes it hands out (no later than it read
    them); `checked_by`: when it had read again every note whose change it tells (no earlier
    than it read any note it hands out or tells of)."""

    __slots__ = ("_memory", "_open", "checked_by", "client", "handed", "read_from", "told")

    def __init__(
        self,
        memory: HandedOutNotes,
        client: str,
        told: Sequence[NoteChange],
        handed: Sequence[Handed],
        read_from: int,
        checked_by: int,
    ) -> None:
        self._memory = memory
        self.client = client
        self.told = tuple(told)
        self.handed = tuple(handed)
        self.read_from = read_from
        self.checked_by = checked_by
        self._open = True

    def commit(self) -> None:
        self._memory._resolve(self, delivered=True)

    def release(self) -> None:
        self._memory._resolve(self, delivered=False)

    @property
    def open(self) -> bool:
        return self._open


@dataclass
class _Known:
    """The revision of one note a client last got, and by when the server had surely read it
    (the checked_by of the answer that gave or told it); revision None: the client was told the
    note is gone, then (it is checked no more)."""

    revision: str | None
    read: int


class HandedOutNotes:
    """What one server process remembers per client: (vault, path) → the revision last handed
    out or told, most recent last, at most MAX_REMEMBERED per client and MAX_CLIENTS clients;
    and which changes an answer not yet delivered holds.
    Thread-safe: the HTTP endpoint runs calls of many clients (and a few of one) at once."""

    def __init__(self, per_client: int = MAX_REMEMBERED, clients: int = MAX_CLIENTS) -> None:
        self._per_client = per_client
        self._max_clients = clients
        self._clients: OrderedDict[str, OrderedDict[tuple[Path, str], _Known]] = OrderedDict()
        self._held: dict[str, dict[tuple[Path, str], Pending]] = {}
        self._lock = threading.Lock()

    def notes(self, client: str) -> list[Handed]:
        """The client's remembered notes, most recently handed out first."""
        with self._lock:
            remembered = self._clients.get(client)
            if remembered is None:
                return []
            return [
                Handed(vault, path, known.revision)
                for (vault, path), known in reversed(remembered.items())
                if known.revision is not None
            ]

    def reserve(
        self,
        client: str,
        changes: Sequence[NoteChange],
        tell: Callable[[list[NoteChange]], list[NoteChange]],
        handed: Sequence[Handed],
        read_from: int,
        checked_by: int,
    ) -> Pending | None:
        """Reserve for one answer the changes `tell` picks among those still to be told — not
        held by another answer in flight, and still from the revision remembered now (another
        answer may have told it, or handed the note out anew, since `changes` were found) —
        and the notes it hands out.  None when it tells and hands out nothing."""
        with self._lock:
            remembered: Mapping[tuple[Path, str], _Known] = self._clients.get(client) or {}
            held = self._held.get(client, {})
            untold = [c for c in changes if (c.vault, c.path) not in held and _revision(remembered, c) == c.was]
            told = tell(untold) if untold else []
            if not told and not handed:
                return None
            pending = Pending(self, client, told, handed, read_from, checked_by)
            if told:
                held = self._held.setdefault(client, {})
                for change in told:
                    held[(change.vault, change.path)] = pending
            return pending

    def settle(self, client: str, told: Sequence[NoteChange], handed: Sequence[Handed]) -> None:
        """An answer delivered: the changes told are now known to the client (a gone note is
        remembered as gone), and the notes handed out are remembered at their revisions."""
        stamp = now_stamp()
        with self._lock:
            self._settle(client, told, handed, stamp, stamp)

    def _resolve(self, pending: Pending, *, delivered: bool) -> None:
        with self._lock:
            if not pending._open:
                return
            pending._open = False
            held = self._held.get(pending.client)
            if held is not None:
                for change in pending.told:
                    key = (change.vault, change.path)
                    if held.get(key) is pending:
                        del held[key]
                if not held:
                    del self._held[pending.client]
            if delivered:
                self._settle(pending.client, pending.told, pending.handed, pending.read_from, pending.checked_by)

    def _settle(
        self, client: str, told: Sequence[NoteChange], handed: Sequence[Handed], read_from: int, checked_by: int
    ) -> None:
        remembered = self._clients.get(client)
        if remembered is None:
            if not handed:
                return
            remembered = self._clients[client] = OrderedDict()
        self._clients.move_to_end(client)
        for note in handed:
            key = (note.vault, note.path)
            known = remembered.get(key)
            # `read` is when the remembered revision had surely been read: once its answer had
            # checked everything (checked_by).  Another answer's revision replaces it only if
            # that answer began later (read_from), so surely read it later.  Two answers' starts
            # say nothing of which read first: stamped with its start, an answer begun later that
            # read the note before an edit brought back a revision whose change was told already.
            if known is None or known.read <= read_from:
                remembered[key] = _Known(note.revision, checked_by)
            remembered.move_to_end(key)
        # After the notes handed out: an answer can hand out a note as its pass read it and tell,
        # from that very revision, that it changed while the answer was being made.
        for change in told:
            key = (change.vault, change.path)
            if _revision(remembered, change) != change.was:
                continue  # another answer of this client handed the note out anew meanwhile
            # Gone is remembered as gone, from when it was checked: an answer that handed the
            # note out before, delivered after this one, must not bring back the revision just
            # told gone (its change would be told twice, should the note come back).
            remembered[key] = _Known(change.now, checked_by)
        while len(remembered) > self._per_client:
            # A note told gone goes first: it only guards against answers still in flight.
            gone = next((k for k, known in remembered.items() if known.revision is None), None)
            if gone is not None:
                del remembered[gone]
            else:
                remembered.popitem(last=False)
        if not remembered:
            del self._clients[client]
        while len(self._clients) > self._max_clients:
            self._clients.popitem(last=False)

    def clients(self) -> int:
        """How many clients have notes remembered (not only notes told gone) to check."""
        with self._lock:
            return sum(
                any(known.revision is not None for known in remembered.values())
                for remembered in self._clients.values()
            )

    def held(self, client: str) -> int:
        """How many changes of this client answers in flight hold now."""
        with self._lock:
            return len(self._held.get(client, {}))


def _revision(remembered: Mapping[tuple[Path, str], _Known], change: NoteChange) -> str | None:
    known = remembered.get((change.vault, change.path))
    return known.revision if known is not None else None


def tell_changes(
    memory: HandedOutNotes, scope: Scope, result: Envelope, budget: int | None, read_from: int | None = None
) -> Pending | None:
    """The end of every call: tell the client (in `result`) which notes it was given earlier
    have changed since, and reserve them, with the notes this result hands out, until the
    transport says whether the answer was delivered.  `read_from`: when the call began reading
    the vault (now_stamp() before its pass)."""
    started = now_stamp() if read_from is None else read_from
    remembered = memory.notes(scope.client)
    changes = changed_since(scope, remembered) if remembered else []
    checked = now_stamp()
    handed = handed_in(scope.vault, result) if scope.vault is not None else []

    def tell(untold: list[NoteChange]) -> list[NoteChange]:
        return attach(result, untold, budget)

    return memory.reserve(scope.client, changes, tell, handed, started, checked)
