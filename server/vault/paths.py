"""Vault paths from the outside world: the one guard that turns a user's note path into a safe
vault path, and showing file names that are not valid UTF-8."""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from vault_recall.server.errors import PathRejected

NOTE_SUFFIX = ".md"


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
