"""One fresh pass over a vault: list it, read every note, parse each one.  Nothing is kept."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from functools import partial
from pathlib import Path

from vault_recall.server.obsidian.note import InvalidNote, Note, invalid_from_head, parse_note
from vault_recall.server.recall.records import MemoryRecord, as_record
from vault_recall.server.recall.subject_prefilter import plainly_not_about
from vault_recall.server.vault.folders import FolderChain
from vault_recall.server.vault.listing import VaultListing
from vault_recall.server.vault.note_files import (
    NoteTooLarge,
    read_note_bytes,
    read_note_head,
    read_note_if,
    start_buffer,
)
from vault_recall.server.vault.paths import display

log = logging.getLogger(__name__)

# Enough of an oversized note to see whether its properties name a subject.
_HEAD_BYTES = 64 * 1024


def each_note(root: Path, listing: VaultListing) -> Iterator[tuple[Note | None, InvalidNote | None]]:
    """Every note, read and parsed in full, one at a time: (note, None) for a valid note,
    (None, problem) for one that cannot be read, and (note, problem) for a note shown and
    reported — one whose properties cannot be read (the note as Obsidian still shows it) or
    whose record properties break the rules."""
    yield from ((None, _unreadable_folder(folder)) for folder in listing.unreadable_folders)
    yield from ((None, _undecodable(root, name)) for name in listing.undecodable)
    with FolderChain(root) as chain:
        for path in listing.paths:
            parsed = _read_and_parse(chain, path)
            if parsed is None:
                continue
            if isinstance(parsed, InvalidNote):
                yield parsed.readable, parsed
                continue
            record = as_record(parsed)
            yield parsed, record if isinstance(record, InvalidNote) else None


def each_record(root: Path, listing: VaultListing, subject: str | None) -> Iterator[MemoryRecord | InvalidNote]:
    """The records of `subject` (None: of every subject) and the invalid notes that could be
    about it, one at a time, so a caller that only counts keeps nothing.

    Every note is opened, but only its start is read first: a note that cannot be a record of
    `subject` is skipped on those bytes, before any decoding or YAML — no properties block, no
    `subject` in it, or a `subject:` line that plainly names other subjects (see
    subject_prefilter.py).  Anything less plain is read whole and parsed, so the answer is the
    same as from `each_note` (tests/test_fast_scan.py checks that on generated vaults).
    """
    wanted = subject.encode("ascii") if subject is not None else None

    skip = partial(plainly_not_about, wanted)  # called for every note: no wrapper frame

    yield from (_unreadable_folder(folder) for folder in listing.unreadable_folders)
    yield from (_undecodable(root, name) for name in listing.undecodable)
    buffer = start_buffer()
    with FolderChain(root) as chain:
        for path in listing.paths:
            parsed: Note | InvalidNote | None
            try:
                raw = read_note_if(chain, path, skip, buffer)
            except (OSError, NoteTooLarge):
                parsed = _read_and_parse(chain, path)  # read again, to report the failure properly
            else:
                if raw is None:
                    continue
                parsed = parse_note(path, raw.data, raw.mtime_ns)
            if parsed is None:
                continue
            if isinstance(parsed, InvalidNote):
                yield parsed
                continue
            record = as_record(parsed)
            if record is None or (isinstance(record, MemoryRecord) and subject and subject not in record.subjects):
                continue  # an ordinary note, or a record of other subjects only
            yield record


class NoteChanged(Exception):
    """A note read again for an answer is no longer the note the call found."""


# A call that finds a note changed between finding and answering starts over this many times.
ATTEMPTS = 3
CHANGING_REASON = f"notes kept changing while they were read ({ATTEMPTS} times); ask again"


def read_again(root: Path, path: str, revision: str) -> Note:
    """The note at `path`, read again for the few records an answer returns: calls keep only
    numbers for the many they find (whole notes would be most of a large vault's memory).
    Raises NoteChanged unless its bytes are still those of `revision`."""
    try:
        raw = read_note_bytes(root, path)
    except (OSError, NoteTooLarge):
        raise NoteChanged(path) from None
    parsed = parse_note(path, raw.data, raw.mtime_ns)
    note = parsed.readable if isinstance(parsed, InvalidNote) else parsed
    if note is None or note.revision != revision:
        raise NoteChanged(path)
    return note


def _unreadable_folder(folder: str) -> InvalidNote:
    return InvalidNote(
        path=display(folder) + "/",
        reason=f"folder {display(folder)}/ cannot be read (permission denied), so its notes are missing",
        mentions_subject=True,
        subjects=None,
        unread=True,
    )


def _undecodable(root: Path, name: str) -> InvalidNote:
    shown = display(name)
    return invalid_from_head(
        shown,
        _read_head(root, name),
        f"{shown}: the file name is not valid UTF-8 text; rename the note in Obsidian or your file manager",
    )


def _read_and_parse(vault: Path | FolderChain, path: str) -> Note | InvalidNote | None:
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
