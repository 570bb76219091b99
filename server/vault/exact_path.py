"""Would the listing list this exact vault path as a note?  Told from that one path, without
listing the vault: the path's own folders opened by descriptor as the listing opens them, and
the listing's rules applied to the one path.

`read_note` given a path exactly as a tool returned it needs only that note; listing a large
vault to find it costs a hundred times more than reading it.  The answer is "listed", "not
listed" or "unsure": whatever only a listing can tell (a folder that cannot be read, a name
that is not UTF-8, a path deeper than the listing walks, Windows) is "unsure", and the caller
lists the vault as before.  Where a file system ignores case or Unicode form, the one folder
holding a name is listed to see the name as stored.  tests/server/vault/test_exact_path.py compares every
answer but "unsure" with the listing.  Nothing is kept between calls; nothing is opened for
writing.
"""

from __future__ import annotations

import enum
import os
import stat
from pathlib import Path

from vault_recall.server.vault.folders import BY_DESCRIPTOR, open_folder, open_root
from vault_recall.server.vault.listing import MAX_DEPTH
from vault_recall.server.vault.paths import NOTE_SUFFIX, is_displayable
from vault_recall.server.vault.settings import ExcludedFiles


class Listed(enum.Enum):
    YES = "listed"
    NO = "not listed"
    UNSURE = "unsure"


def listed_as_note(root: Path, path: str, excluded: ExcludedFiles) -> Listed:
    """Whether `list_notes(root).paths` holds `path` — without listing (see the module's doc).

    The listing's rules, for one path: a regular file named `*.md`, no part of its path hidden
    (a name starting with '.'), not matched by Excluded files, reached through real folders
    (never a symlink), each one readable and searchable, at most MAX_DEPTH deep, and every name
    on the way exactly as the folder holds it (the listing's names are the folder's own)."""
    if not BY_DESCRIPTOR:  # pragma: no cover - Windows: names are opened by path there
        return Listed.UNSURE
    if not path.endswith(NOTE_SUFFIX):
        return Listed.NO
    if "\x00" in path:
        return Listed.NO  # no file name holds it
    if "\ufffd" in path or not is_displayable(path):
        return Listed.UNSURE  # a name that is not UTF-8 is listed apart, as shown: only the listing knows
    parts = path.split("/")
    if any(not part or part[0] == "." for part in parts):
        return Listed.NO  # no listed path has an empty or hidden part ('.', '..' included)
    if len(parts) - 1 > MAX_DEPTH:
        return Listed.UNSURE  # the listing reports the folder too deep to walk
    if excluded.matches(path):
        return Listed.NO  # also covers every folder Excluded files keep the listing out of
    try:
        fd = open_root(root)
    except OSError:
        return Listed.UNSURE  # the listing says why the vault cannot be read
    try:
        for name in parts[:-1]:
            try:
                child = open_folder(name, fd)
            except FileNotFoundError:
                return Listed.NO  # absent, or a symlink or a file where the folder would be
            except OSError:
                return Listed.UNSURE  # unreadable: the listing reports the folder
            parent, fd = fd, child
            try:
                if not _named_exactly(name, parent, os.fstat(fd)):
                    return Listed.UNSURE
            finally:
                os.close(parent)
        name = parts[-1]
        try:
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            return Listed.NO
        except OSError:
            return Listed.UNSURE  # a folder without search permission, say
        if not stat.S_ISREG(st.st_mode):
            return Listed.NO  # a symlink, a folder, a FIFO: never a listed note
        return Listed.YES if _named_exactly(name, fd, st) else Listed.UNSURE
    finally:
        os.close(fd)


def _named_exactly(name: str, folder: int, found: os.stat_result) -> bool:
    """Does the folder hold an entry named exactly `name` (the one opened as `found`)?  A file
    system that ignores case (macOS, Windows, a case-folding folder on Linux) or Unicode form
    (macOS) opens 'plan.md' for 'Plan.md', and the listing would give the name as stored.  An
    ASCII name is told by one look under the other case; any other by the folder's names."""
    if name.isascii():
        other = name.swapcase()
        if other == name:
            return True  # no letter with a case: nothing to tell apart
        try:
            twin = os.stat(other, dir_fd=folder, follow_symlinks=False)
        except FileNotFoundError:
            return True  # the folder tells case apart, so the name opened is the name stored
        except OSError:
            return False
        if (twin.st_ino, twin.st_dev) != (found.st_ino, found.st_dev):
            return True  # another file: the folder tells them apart
        # The same file under the other case: the folder ignores case (macOS and Windows by
        # default), or holds a hard link under that name.  Its own names say which is stored.
    return _holds(name, folder)


def _holds(name: str, folder: int) -> bool:
    """Is `name` one of the folder's own entry names?  (Only this one folder is listed.)"""
    try:
        return name in os.listdir(folder)
    except OSError:
        return False
