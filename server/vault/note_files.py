"""Reading one note's bytes: bounded, never through a symlink, never blocking on a FIFO.

Notes are opened through a FolderChain (folders.py), relative to their folder's descriptor:
a pass over the vault shares one chain; a single read makes its own from the vault's root.
Plain os calls (no file objects): on a large vault, opening and reading notes is most of a
call's time.  Nothing here ever opens a file for writing.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from vault_recall.server.errors import NoteTooLarge
from vault_recall.server.vault.folders import FolderChain

# A note larger than this is reported as invalid instead of read: no answer could hold it.
MAX_NOTE_BYTES = 1024 * 1024


@dataclass(frozen=True)
class NoteBytes:
    """The exact bytes of one note and the file facts read from the same open file."""

    path: str
    data: bytes
    mtime_ns: int


def read_note_bytes(vault: Path | FolderChain, note_path: str, limit: int = MAX_NOTE_BYTES) -> NoteBytes:
    """Read one note's exact bytes, refusing symlinks and anything over `limit` bytes.
    `vault` is the vault's folder, or the chain of a pass reading many notes.

    Raises NoteTooLarge, FileNotFoundError (gone since listing) or another OSError.
    """
    return _read(vault, note_path, limit, whole=True)


def read_note_head(vault: Path | FolderChain, note_path: str, length: int) -> bytes:
    """The first `length` bytes of a note (for a look at an oversized note's properties)."""
    return _read(vault, note_path, length, whole=False).data


# How much of a note is read to decide whether it can matter to a call (its properties block
# is almost always within it).  Asking os.read for up to 64 KiB costs no more than for 4 KiB;
# past glibc's mmap threshold (128 KiB) every read would map and unmap fresh memory.
START_BYTES = 64 * 1024


_HAS_READV = hasattr(os, "readv")


def start_buffer() -> bytearray:
    """A buffer for read_note_if, reused for every note of one scan (never shared between
    calls, which may run at once)."""
    return bytearray(START_BYTES)


def read_note_if(
    chain: FolderChain,
    note_path: str,
    skip: Callable[[bytes | bytearray, int], bool],
    buffer: bytearray,
    limit: int = MAX_NOTE_BYTES,
) -> NoteBytes | None:
    """Read a note whole unless `skip` says so of its first START_BYTES (then None).

    One open for both: the least a scan can do for the many notes it skips.  `chain` is the
    pass's FolderChain over the vault.  The start is read into `buffer` (from
    start_buffer) and `skip` is shown the buffer and how much of it was read: a fresh 64 KiB
    allocation per note, shrunk to the note's size, leaves the heap fragmented and the process
    larger, and copying every note out would cost more than reading it.  Raises as
    read_note_bytes does — except that a note turned into a FIFO since listing reads as empty,
    which is what `skip` is shown.
    """
    fd = chain.open_note(note_path)
    try:
        start, length = read_start(fd, buffer)
        if skip(start, length):
            return None
        return read_rest(fd, note_path, start, length, limit)
    finally:
        os.close(fd)


def read_start(fd: int, buffer: bytearray) -> tuple[bytes | bytearray, int]:
    """The first bytes of an open note: (`buffer`, how much of it was filled) — or, where
    readv is missing (Windows), a fresh bytes object and its length."""
    if sys.platform != "win32" and _HAS_READV:  # mypy knows the platform, not hasattr
        return buffer, os.readv(fd, [buffer])
    start = os.read(fd, len(buffer))  # pragma: no cover - Windows (tested by monkeypatch)
    return start, len(start)


def read_rest(fd: int, note_path: str, start: bytes | bytearray, length: int, limit: int = MAX_NOTE_BYTES) -> NoteBytes:
    """The whole note whose first `length` bytes read_start put in `start`."""
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        raise FileNotFoundError(note_path)
    if st.st_size > limit:
        raise NoteTooLarge(st.st_size)
    first = memoryview(start)[:length].tobytes() if isinstance(start, bytearray) else start
    chunks = [first]
    size = length
    # Read on to the end (asking one byte past the size fstat gave, to notice growth).
    while more := os.read(fd, st.st_size - size + 1 if st.st_size >= size else 65536):
        chunks.append(more)
        size += len(more)
        if size > limit:
            raise NoteTooLarge(size)
    return NoteBytes(path=note_path, data=first if len(chunks) == 1 else b"".join(chunks), mtime_ns=st.st_mtime_ns)


def _read(vault: Path | FolderChain, note_path: str, limit: int, *, whole: bool) -> NoteBytes:
    if isinstance(vault, FolderChain):
        fd = vault.open_note(note_path)
    else:
        with FolderChain(vault) as chain:
            fd = chain.open_note(note_path)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise FileNotFoundError(note_path)
        if whole and st.st_size > limit:
            raise NoteTooLarge(st.st_size)
        # Ask for the size the file has (+1 to notice growth): os.read allocates what it is
        # asked for, and a 1 MiB buffer per note is most of the cost of a scan.
        wanted = min(st.st_size + 1, limit + 1) if whole else min(st.st_size, limit)
        data = os.read(fd, wanted)
        while len(data) < wanted:  # short reads: rare, but allowed
            more = os.read(fd, wanted - len(data))
            if not more:
                break
            data += more
        if whole and len(data) > st.st_size:
            # It grew after fstat (being saved right now): read on to its end, never a part.
            while len(data) <= limit and (more := os.read(fd, 65536)):
                data += more
    finally:
        os.close(fd)
    if whole and len(data) > limit:
        raise NoteTooLarge(len(data))
    return NoteBytes(path=note_path, data=data, mtime_ns=st.st_mtime_ns)
