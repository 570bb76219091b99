"""One fresh pass over a vault: list it, read every note, parse each one.  Nothing is kept."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from server.note import InvalidNote, Note, invalid_from_head, parse_note
from server.records import MemoryRecord, as_record
from server.vault import NoteTooLarge, VaultListing, display, list_notes, read_note_bytes, read_note_head

log = logging.getLogger(__name__)

# Enough of an oversized note to see whether its properties name a subject.
_HEAD_BYTES = 64 * 1024


@dataclass(frozen=True)
class VaultScan:
    listing: VaultListing
    notes: tuple[Note, ...]
    records: tuple[MemoryRecord, ...]
    invalid: tuple[InvalidNote, ...]


def scan_vault(root: Path) -> VaultScan:
    """Read and parse every note of the vault.  Raises VaultUnavailable (from listing)."""
    listing = list_notes(root)
    notes: list[Note] = []
    records: list[MemoryRecord] = []
    invalid: list[InvalidNote] = []
    for folder in listing.unreadable_folders:
        invalid.append(
            InvalidNote(
                path=display(folder) + "/",
                reason=f"folder {display(folder)}/ cannot be read (permission denied), so its notes are missing",
                mentions_subject=True,
                subjects=None,
            )
        )
    for bad_name in listing.undecodable:
        shown = display(bad_name)
        invalid.append(
            invalid_from_head(
                shown,
                _read_head(root, bad_name),
                f"{shown}: the file name is not valid UTF-8 text; rename the note in Obsidian or your file manager",
            )
        )
    for entry in listing.notes:
        parsed = _read_and_parse(root, entry.path)
        if parsed is None:
            continue
        if isinstance(parsed, InvalidNote):
            invalid.append(parsed)
            continue
        notes.append(parsed)
        record = as_record(parsed)
        if isinstance(record, InvalidNote):
            invalid.append(record)
        elif record is not None:
            records.append(record)
    return VaultScan(listing=listing, notes=tuple(notes), records=tuple(records), invalid=tuple(invalid))


def _read_and_parse(root: Path, path: str) -> Note | InvalidNote | None:
    try:
        raw = read_note_bytes(root, path)
    except FileNotFoundError:
        return None  # deleted or replaced since listing: it is simply not there now
    except NoteTooLarge as exc:
        head = _read_head(root, path)
        return invalid_from_head(
            path, head, f"{path}: {exc.size:,} bytes is too large to read (the limit is 1 MiB per note)"
        )
    except PermissionError:
        return InvalidNote(
            path=path, reason=f"{path}: cannot be read: permission denied", mentions_subject=True, subjects=None
        )
    except OSError as exc:
        return InvalidNote(
            path=path, reason=f"{path}: cannot be read: {exc.strerror}", mentions_subject=True, subjects=None
        )
    return parse_note(path, raw.data, raw.mtime_ns)


def _read_head(root: Path, path: str) -> bytes:
    try:
        return read_note_head(root, path, _HEAD_BYTES)
    except OSError:
        return b""
