"""One note of a vault's listing read and parsed as a pass reads it, and the problems a pass
reports for what it cannot read: a folder, a file name that is not UTF-8, a note too large.
scan.py's passes and naming.py's lookups read notes through here."""

from __future__ import annotations

from pathlib import Path

from vault_recall.server.errors import NoteTooLarge
from vault_recall.server.obsidian.note import InvalidNote, Note, invalid_from_head, parse_note
from vault_recall.server.vault.folders import FolderChain
from vault_recall.server.vault.note_files import read_note_bytes, read_note_head
from vault_recall.server.vault.paths import display

# Enough of an oversized note to see whether its properties name a subject.
_HEAD_BYTES = 64 * 1024


def unreadable_folder(folder: str) -> InvalidNote:
    """The problem a pass reports for a folder it cannot read."""
    return InvalidNote(
        path=display(folder) + "/",
        reason=f"folder {display(folder)}/ cannot be read (permission denied), so its notes are missing",
        mentions_subject=True,
        subjects=None,
        unread=True,
    )


def undecodable_note(root: Path, name: str) -> InvalidNote:
    """The problem a pass reports for a note whose file name is not UTF-8 (as listed)."""
    shown = display(name)
    return invalid_from_head(
        shown,
        _read_head(root, name),
        f"{shown}: the file name is not valid UTF-8 text; rename the note in Obsidian or your file manager",
    )


def read_one(vault: Path | FolderChain, path: str) -> Note | InvalidNote | None:
    """One note of the listing read and parsed as a pass reads it (None: gone since listing)."""
    try:
        raw = read_note_bytes(vault, path)
    except FileNotFoundError:
        return None  # deleted or replaced since listing: it is simply not there now
    except NoteTooLarge as exc:
        head = _read_head(vault, path)
        return invalid_from_head(
            path, head, f"{path}: {exc.size:,} bytes is too large to read (the limit is 1 MiB per note)"
        )
    except OSError as exc:
        why = "permission denied" if isinstance(exc, PermissionError) else exc.strerror
        return InvalidNote(
            path=path, reason=f"{path}: cannot be read: {why}", mentions_subject=True, subjects=None, unread=True
        )
    return parse_note(path, raw.data, raw.mtime_ns)


def _read_head(vault: Path | FolderChain, path: str) -> bytes:
    try:
        return read_note_head(vault, path, _HEAD_BYTES)
    except OSError:
        return b""
