"""Vault access: list the notes of a vault folder, read one note's bytes, guard user paths.

Pure functions over a `Path`; nothing here keeps state between calls, and nothing here ever
opens a file for writing.  Symlinks are never followed: a symlinked note or folder is skipped
and reported, so a vault cannot be made to expose files from elsewhere.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from server.errors import PathRejected, VaultUnavailable
from server.excluded import ExcludedFiles, read_excluded_files

# A vault with more notes than this is refused as a whole rather than scanned for minutes.
MAX_NOTES = 100_000
# A note larger than this is reported as invalid instead of read: no answer could hold it.
MAX_NOTE_BYTES = 1024 * 1024
# Folders and files of any kind walked per listing: a vault that is mostly attachments (or a
# mistaken --vault pointing at a home folder) is refused rather than walked for minutes.
MAX_WALKED_ENTRIES = 500_000

NOTE_SUFFIX = ".md"


@dataclass(frozen=True)
class VaultListing:
    """Everything one listing pass saw; built fresh on every call."""

    root: Path
    name: str
    paths: tuple[str, ...]  # every note: vault-relative, '/'-separated, with the .md suffix
    symlinks: tuple[str, ...]  # skipped, never followed
    unreadable_folders: tuple[str, ...]
    excluded: ExcludedFiles
    undecodable: tuple[str, ...] = ()  # note paths whose names are not valid UTF-8 (as on disk)


@dataclass(frozen=True)
class NoteBytes:
    """The exact bytes of one note and the file facts read from the same open file."""

    path: str
    data: bytes
    mtime_ns: int


class NoteTooLarge(Exception):
    """The note is over MAX_NOTE_BYTES; carries the size for the reason shown to a person."""

    def __init__(self, size: int) -> None:
        super().__init__(f"{size} bytes")
        self.size = size


def display(text: str | Path) -> str:
    """A file name or path as text that can be shown and sent: bytes that are not UTF-8 (kept
    by Python as surrogates) become U+FFFD instead of breaking JSON encoding."""
    return str(text).encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def is_displayable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def vault_name(root: Path) -> str:
    """Obsidian names a vault after its folder."""
    return display(root.name or str(root))


def check_vault_folder(root: Path) -> None:
    """Raise VaultUnavailable with a reason a person can act on if `root` cannot be read."""
    try:
        st = os.stat(root)
    except ValueError:  # a NUL in the path: no such folder can exist
        raise VaultUnavailable(f"vault path {display(root)!r} is not a valid folder path") from None
    except FileNotFoundError:
        raise VaultUnavailable(f"vault folder {display(root)} does not exist") from None
    except PermissionError:
        raise VaultUnavailable(f"vault folder {display(root)} cannot be read: permission denied") from None
    except OSError as exc:
        raise VaultUnavailable(f"vault folder {display(root)} cannot be read: {exc.strerror}") from None
    if not stat.S_ISDIR(st.st_mode):
        raise VaultUnavailable(f"vault path {display(root)} is a file, not a folder")
    try:
        with os.scandir(root):
            pass
    except PermissionError:
        raise VaultUnavailable(f"vault folder {display(root)} cannot be read: permission denied") from None
    except OSError as exc:
        raise VaultUnavailable(f"vault folder {display(root)} cannot be read: {exc.strerror}") from None


def list_notes(root: Path, max_notes: int = MAX_NOTES) -> VaultListing:
    """List every note of the vault: `*.md` regular files, recursively.

    Skipped: any path with a component starting with '.' (the config folder, `.trash/`,
    `.git/`), paths matched by Obsidian's Excluded files, and symlinks (listed in
    `symlinks`).  Raises VaultUnavailable when the vault folder itself cannot be read or
    holds more than `max_notes` notes.
    """
    check_vault_folder(root)
    excluded = read_excluded_files(root)
    excludes = bool(excluded.prefixes or excluded.patterns)
    notes: list[str] = []
    symlinks: list[str] = []
    unreadable: list[str] = []
    undecodable: list[str] = []
    walked = 0
    pending: list[tuple[str, str]] = [(str(root), "")]
    while pending:
        folder, prefix = pending.pop()
        try:
            with os.scandir(folder) as entries:
                listed = list(entries)
        except OSError:
            if not prefix:
                raise VaultUnavailable(f"vault folder {display(root)} cannot be read") from None
            unreadable.append(prefix.rstrip("/"))
            continue
        walked += len(listed)
        if walked > MAX_WALKED_ENTRIES:
            raise VaultUnavailable(
                f"vault folder {display(root)} holds more than {MAX_WALKED_ENTRIES:,} files and folders, "
                "more than Vault Recall walks on every call"
            )
        # scandir lists a folder with read but no search (x) permission, and then nothing in it
        # can be opened: such a folder is unreadable (root is never refused, so never asked).
        if listed and _SEARCH_CAN_BE_DENIED and not os.access(folder, os.X_OK):
            unreadable.append(prefix.rstrip("/") or ".")
            continue
        # Ordered for the common case (a regular note file): this loop runs for every entry of
        # the vault on every call.
        for entry in listed:
            name = entry.name
            if name[0] == ".":
                continue
            rel = prefix + name
            try:
                if entry.is_file(follow_symlinks=False):
                    if not name.endswith(NOTE_SUFFIX) or (excludes and excluded.matches(rel)):
                        continue
                elif entry.is_dir(follow_symlinks=False):
                    if not excluded.covers_folder(rel):
                        pending.append((entry.path, rel + "/"))
                    continue
                else:
                    if entry.is_symlink():
                        symlinks.append(rel)
                    continue
            except FileNotFoundError:
                continue  # removed while we listed: an editor's atomic save, say
            except OSError:
                # Listed but not enterable (a folder with read but no search permission).
                if prefix.rstrip("/") not in unreadable:
                    unreadable.append(prefix.rstrip("/") or ".")
                continue
            if not rel.isascii() and not is_displayable(rel):
                undecodable.append(rel)
                continue
            notes.append(rel)
            if len(notes) > max_notes:
                raise VaultUnavailable(
                    f"vault folder {display(root)} holds more than {max_notes:,} notes, "
                    "more than Vault Recall reads on every call"
                )
    notes.sort()
    return VaultListing(
        root=root,
        name=vault_name(root),
        paths=tuple(notes),
        symlinks=tuple(sorted(symlinks)),
        unreadable_folders=tuple(sorted(unreadable)),
        excluded=excluded,
        undecodable=tuple(sorted(undecodable)),
    )


def read_note_bytes(root: Path, note_path: str, limit: int = MAX_NOTE_BYTES) -> NoteBytes:
    """Read one note's exact bytes, refusing symlinks and anything over `limit` bytes.

    Raises NoteTooLarge, FileNotFoundError (gone since listing) or another OSError.
    """
    return _read(root, note_path, limit, whole=True)


def read_note_head(root: Path, note_path: str, length: int) -> bytes:
    """The first `length` bytes of a note (for a look at an oversized note's properties)."""
    return _read(root, note_path, length, whole=False).data


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
    root_prefix: str,
    note_path: str,
    skip: Callable[[bytes | bytearray, int], bool],
    buffer: bytearray,
    limit: int = MAX_NOTE_BYTES,
) -> NoteBytes | None:
    """Read a note whole unless `skip` says so of its first START_BYTES (then None).

    One open for both: the least a scan can do for the many notes it skips.  `root_prefix` is
    the vault folder with a trailing separator.  The start is read into `buffer` (from
    start_buffer) and `skip` is shown the buffer and how much of it was read: a fresh 64 KiB
    allocation per note, shrunk to the note's size, leaves the heap fragmented and the process
    larger, and copying every note out would cost more than reading it.  Raises as
    read_note_bytes does — except that a note turned into a FIFO since listing reads as empty,
    which is what `skip` is shown.
    """
    fd = _open_note(root_prefix + note_path, note_path)
    try:
        if _HAS_READV:
            length = os.readv(fd, [buffer])
            if skip(buffer, length):
                return None
            start = memoryview(buffer)[:length].tobytes()
        else:  # Windows: no readv; a fresh buffer per note it is
            start = os.read(fd, len(buffer))
            length = len(start)
            if skip(start, length):
                return None
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise FileNotFoundError(note_path)
        if st.st_size > limit:
            raise NoteTooLarge(st.st_size)
        chunks = [start]
        size = len(start)
        # Read on to the end (asking one byte past the size fstat gave, to notice growth).
        while more := os.read(fd, st.st_size - size + 1 if st.st_size >= size else 65536):
            chunks.append(more)
            size += len(more)
            if size > limit:
                raise NoteTooLarge(size)
    finally:
        os.close(fd)
    return NoteBytes(path=note_path, data=start if len(chunks) == 1 else b"".join(chunks), mtime_ns=st.st_mtime_ns)


# Root enters any folder; Windows has no search permission.
_SEARCH_CAN_BE_DENIED = hasattr(os, "geteuid") and os.geteuid() != 0

# O_NONBLOCK: a FIFO put in a note's place must not block the call (fstat then refuses it).
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0)


def _open_note(file_path: str, note_path: str) -> int:
    """A read-only descriptor of the note at `file_path`, never through a symlink."""
    try:
        return os.open(file_path, _READ_FLAGS)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # the file became a symlink since listing
            raise FileNotFoundError(note_path) from None
        raise


def _read(root: Path, note_path: str, limit: int, *, whole: bool) -> NoteBytes:
    # Plain os calls (no file object): on a 10,000-note vault this is most of a recall's time.
    fd = _open_note(f"{root}{os.sep}{note_path}", note_path)
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


_DRIVE = re.compile(r"^[A-Za-z]:")


def guard_note_path(root: Path, candidate: str) -> str:
    """Turn a user-supplied vault-relative note path into a safe one, or raise PathRejected.

    The one path guard: every tool argument that names a file goes through here.  Accepts
    `Folder/Note` or `Folder/Note.md`; rejects anything that could leave the vault or reach a
    hidden path, and never says whether the rejected target exists.
    """
    rejected = PathRejected(f"'{_printable(candidate)}' is not a note path inside the vault")
    if not candidate or "\x00" in candidate or "\\" in candidate:
        raise rejected
    if candidate.startswith(("/", "~")) or _DRIVE.match(candidate):
        raise rejected
    parts = candidate.split("/")
    if any(part in ("", ".", "..") or part.startswith(".") for part in parts):
        raise rejected
    rel = candidate if candidate.endswith(NOTE_SUFFIX) else candidate + NOTE_SUFFIX
    # Walk component by component so a symlinked folder or file anywhere on the way is refused.
    current = root
    for part in PurePosixPath(rel).parts:
        current = current / part
        try:
            if current.is_symlink():
                raise rejected
        except OSError:
            raise rejected from None
    try:
        resolved = current.resolve(strict=False)
        if not resolved.is_relative_to(root.resolve(strict=False)):
            raise rejected
    except (OSError, RuntimeError):
        raise rejected from None
    return rel


def _printable(text: str, limit: int = 120) -> str:
    shown = text.encode("unicode_escape").decode("ascii")
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"
