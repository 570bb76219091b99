"""The notes clients were given, as they are now — for the "changed since" marks of the tray
and `vault-recall activity`.

The activity store keeps, per recall, the vault's name (its folder's name, as Obsidian names
it), each note's path and the revision handed out.  Here a vault name is found again among
the configured vaults and Obsidian's, and a note's revision is read now: its bytes through
the server's own reader (bounded, never through a symlink) and their SHA-256.  Nothing is
kept: each mark is read fresh when shown.  This is the person's view: a note hidden from a
client is still here.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Literal

from vault_recall.app.state.obsidian_vaults import KnownVault
from vault_recall.server.config.config_file import Config
from vault_recall.server.errors import NoteTooLarge
from vault_recall.server.vault.listing import vault_name
from vault_recall.server.vault.note_files import read_note_bytes
from vault_recall.server.vault.paths import NOTE_SUFFIX

NoteRef = tuple[str, str]  # (vault name as recorded, vault path of the note)
Change = Literal["changed", "gone"]
# A file's cheap signs of change: (mtime, size, inode, mode), or None when it is not there.
FileMark = tuple[int, int, int, int] | None

# Notes whose revision one look reads at most (a menu shows a few dozen).
MAX_READ = 100


def vault_folders(config: Config, known: Sequence[KnownVault] = ()) -> dict[str, Path]:
    """Vault name, as servers record it (the folder's name) → the folder: the active vault
    first, then the other configured vaults, then those Obsidian knows."""
    entries = sorted(config.vaults, key=lambda entry: entry.name != config.active_vault)
    folders: dict[str, Path] = {}
    for folder in [Path(entry.path).expanduser() for entry in entries] + [vault.path for vault in known]:
        folders.setdefault(vault_name(folder), folder)
    return folders


def is_note_path(path: str) -> bool:
    """A path as servers record notes: vault-relative `.md`, no hidden, empty, `.` or `..`
    part.  The activity store is only a file: nothing else recorded there is read."""
    parts = path.split("/")
    return path.endswith(NOTE_SUFFIX) and "\x00" not in path and not any(p in ("", "..") or p[0] == "." for p in parts)


def revision_now(folder: Path, path: str) -> str | None:
    """The note's revision (SHA-256 of its bytes) right now; None when it is gone or cannot be
    read (deleted, renamed, a symlink or a folder now, unreadable, over the size limit)."""
    if not is_note_path(path):
        return None
    try:
        raw = read_note_bytes(folder, path)
    except (OSError, NoteTooLarge, ValueError):  # ValueError: a path no file can have (NUL)
        return None
    return hashlib.sha256(raw.data).hexdigest()


def within_reach(folder: Path) -> bool:
    """Whether a vault's folder is there and can be read now (not moved, deleted, on a disk
    that is not mounted, or made unreadable)."""
    return folder.is_dir() and os.access(folder, os.R_OK | os.X_OK)


def file_mark(folder: Path, path: str) -> FileMark:
    """Cheap signs that a note changed, without reading it (the tray's watcher looks every
    second, and reads the note only when these change)."""
    if not is_note_path(path):
        return None
    try:
        st = os.lstat(folder / path)
    except (OSError, ValueError):
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino, st.st_mode)


def revisions_now(
    notes: Iterable[NoteRef], folders: Mapping[str, Path], limit: int = MAX_READ
) -> dict[NoteRef, str | None]:
    """The revision now of each note (the first `limit` distinct ones) whose vault is known;
    a note of a vault not found here is left out, so it gets no mark at all."""
    found: dict[NoteRef, str | None] = {}
    for ref in notes:
        if ref in found or ref[0] not in folders:
            continue
        if len(found) >= limit:
            break
        found[ref] = revision_now(folders[ref[0]], ref[1])
    return found


def change_of(ref: NoteRef, was: str | None, current: Mapping[NoteRef, str | None]) -> Change | None:
    """How the note is now compared with the revision a client was given: changed, gone, or
    None (the same, or not known: no revision recorded, or its vault not found)."""
    if was is None or ref not in current:
        return None
    now = current[ref]
    if now is None:
        return "gone"
    return "changed" if now != was else None
