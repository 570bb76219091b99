"""The straightforward versions the streaming tools are checked against: every note of the
vault read and held at once, then filtered.  Kept out of the server, which never needs them."""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from vault_recall.server.errors import VaultUnavailable
from vault_recall.server.obsidian.note import InvalidNote, Note
from vault_recall.server.obsidian.resolve import NameIndex, resolve_names
from vault_recall.server.recall.finding.scan import each_note, each_record
from vault_recall.server.recall.finding.view import problem, unavailable
from vault_recall.server.recall.records import MemoryRecord, as_record
from vault_recall.server.recall.results import Envelope, Problem
from vault_recall.server.recall.scope import Scope
from vault_recall.server.vault.listing import VaultListing, list_notes, vault_name
from vault_recall.server.vault.paths import is_displayable
from vault_recall.server.vault.settings import read_excluded_files


@dataclass(frozen=True)
class VaultScan:
    listing: VaultListing
    notes: tuple[Note, ...]
    records: tuple[MemoryRecord, ...]
    invalid: tuple[InvalidNote, ...]


def scan_vault(root: Path) -> VaultScan:
    """Every note of the vault read and parsed in full, and held.  Raises VaultUnavailable."""
    listing = list_notes(root)
    notes: list[Note] = []
    records: list[MemoryRecord] = []
    invalid: list[InvalidNote] = []
    for note, trouble in each_note(root, listing):
        if trouble is not None:
            invalid.append(trouble)
        if note is not None:
            notes.append(note)
            record = as_record(note) if trouble is None else None
            if isinstance(record, MemoryRecord):
                records.append(record)
    return VaultScan(listing=listing, notes=tuple(notes), records=tuple(records), invalid=tuple(invalid))


@dataclass(frozen=True)
class VaultView:
    root: Path
    name: str
    scan: VaultScan
    visible: dict[str, Note]  # path → note this client may see
    records: dict[str, MemoryRecord]  # path → record, for visible records
    broken: dict[str, InvalidNote]  # path → invalid note that could be in this client's view
    exposure_mode: str = "records"

    def problems(self, subjects: tuple[str, ...] | None = None) -> list[Problem]:
        """Broken notes that could matter to this answer (to the `subjects`, when given)."""
        chosen = [
            note
            for note in self.broken.values()
            if subjects is None or note.subjects is None or any(s in note.subjects for s in subjects)
        ]
        return [problem(note) for note in chosen]

    def reachable(self) -> dict[str, tuple[str, ...]]:
        """Every path a `note` argument may resolve to (the visible and the visibly broken
        notes), with the aliases it answers to."""
        return {**{path: () for path in self.broken}, **{p: n.aliases for p, n in self.visible.items()}}

    def resolve(self, text: str) -> tuple[str, str | None]:
        """A tool's `note` argument resolved by the server's rule over this whole-vault index."""
        return resolve_names(self.root, MappedNames.of(self.reachable()), text)


@dataclass(frozen=True)
class MappedNames:
    """`resolve.Names` over a mapping of every reachable path to its aliases."""

    reachable: Mapping[str, tuple[str, ...]]
    index: NameIndex

    @classmethod
    def of(cls, reachable: Mapping[str, tuple[str, ...]]) -> MappedNames:
        return cls(reachable, NameIndex.of(reachable.items()))

    def exact(self, path: str) -> bool:
        return path in self.reachable

    def named(self, key: str) -> list[str]:
        return self.index.named(key)

    def aliased(self, key: str) -> list[str]:
        return self.index.aliased(key)


def open_view(scope: Scope) -> VaultView:
    """Scan the scope's vault and apply the exposure.  Raises VaultUnavailable."""
    assert scope.vault is not None
    scan = scan_vault(scope.vault)
    exposure = scope.exposure
    records = {r.note.path: r for r in scan.records if exposure.allows_record_subjects(r.subjects)}
    if exposure.mode == "vault":
        visible = {n.path: n for n in scan.notes}
        broken = {n.path: n for n in scan.invalid}
    else:
        visible = {path: r.note for path, r in records.items()}
        broken = {
            n.path: n
            for n in scan.invalid
            if not n.unread and n.mentions_subject and exposure.allows_record_subjects(n.subjects)
        }
    return VaultView(
        root=scope.vault,
        name=vault_name(scope.vault),
        scan=scan,
        visible=visible,
        records=records,
        broken=broken,
        exposure_mode=exposure.mode,
    )


def view_or_unavailable(scope: Scope, result: dict[str, Any]) -> VaultView | None:
    """Open the view, or turn `result` into an `unavailable` answer and return None."""
    if scope.vault is None:
        unavailable(cast(Envelope, result), scope.why or "no vault is configured")
        return None
    try:
        view = open_view(scope)
    except VaultUnavailable as exc:
        unavailable(cast(Envelope, result), str(exc))
        return None
    if "vault" in result:
        result["vault"] = view.name
    return view


def scan_subject(root: Path, subject: str | None) -> VaultScan:
    """Every record of `subject` (None: of every subject), of any status or kind, and every
    invalid note that could be about it, read fresh.  Raises VaultUnavailable."""
    listing = list_notes(root)
    records: list[MemoryRecord] = []
    invalid: list[InvalidNote] = []
    for item in each_record(root, listing, subject):
        if isinstance(item, InvalidNote):
            invalid.append(item)
        else:
            records.append(item)
    return VaultScan(
        listing=listing, notes=tuple(r.note for r in records), records=tuple(records), invalid=tuple(invalid)
    )


def excluded_note_paths(root: Path) -> list[str]:
    """Every note Excluded files hide, found by walking the whole vault (hidden folders and
    symlinks left out, as Obsidian indexes neither): the paths links resolve against besides
    the listed notes."""
    excluded = read_excluded_files(root)
    found: list[str] = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [name for name in subfolders if not name.startswith(".")]
        for name in files:
            path = Path(folder) / name
            rel = path.relative_to(root).as_posix()
            if name.startswith(".") or not name.endswith(".md") or not is_displayable(rel):
                continue
            if stat.S_ISREG(path.lstat().st_mode) and excluded.matches(rel):
                found.append(rel)
    return sorted(found)
