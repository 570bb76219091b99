"""Turning note names, paths and links into notes, the way Obsidian resolves them.

An argument (`read_note`, `get_backlinks`) resolves among the notes the client may see: exact
vault path (with or without `.md`), else a unique note name or folder-qualified name,
case-insensitive, else a unique alias (a convenience: Obsidian's links do not resolve aliases).
A link inside a note resolves among the notes Obsidian indexes by Obsidian's rule
(`resolve_link`; which notes those are is the caller's: recall/backlinks.py `link_index`).
And back: a note as the `obsidian://open` link that opens it, so a person can open (and
correct) a recalled note in one click (`obsidian_uri`).
"""

from __future__ import annotations

import posixpath
import string
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol
from urllib.parse import quote

from vault_recall.server.errors import InvalidArgument, NoteNotFound, PathRejected, show_value
from vault_recall.server.obsidian.syntax import Link
from vault_recall.server.vault.paths import NOTE_SUFFIX, guard_note_path

# As long as a vault path can be (a path a tool returned must open with read_note).
MAX_NOTE_ARGUMENT = 4096
MAX_CANDIDATES_SHOWN = 10


def fold(text: str) -> str:
    """Case-insensitive comparison key (Obsidian compares names without case)."""
    return unicodedata.normalize("NFC", text).casefold()


def without_suffix(path: str) -> str:
    return path[: -len(NOTE_SUFFIX)] if path.lower().endswith(NOTE_SUFFIX) else path


@dataclass(frozen=True)
class NameIndex:
    """Lookup tables over a set of notes, built for one call."""

    by_path: dict[str, list[str]]  # folded path without .md → paths
    by_name: dict[str, list[str]]  # folded note name → paths
    by_alias: dict[str, list[str]]  # folded alias → paths

    @classmethod
    def of(cls, entries: Iterable[tuple[str, tuple[str, ...]]]) -> NameIndex:
        by_path: dict[str, list[str]] = {}
        by_name: dict[str, list[str]] = {}
        by_alias: dict[str, list[str]] = {}
        for path, aliases in entries:
            key = fold(without_suffix(path))
            by_path.setdefault(key, []).append(path)
            by_name.setdefault(key.rsplit("/", 1)[-1], []).append(path)
            for alias in aliases:
                by_alias.setdefault(fold(alias), []).append(path)
        return cls(by_path=by_path, by_name=by_name, by_alias=by_alias)

    def candidates(self, target: str) -> list[str]:
        """Paths the link text could mean, best kind of match first (path, name, alias)."""
        key = fold(without_suffix(target.strip().lstrip("/")))
        if not key:
            return []
        return self.named(key) or self.aliased(key)

    def named(self, key: str) -> list[str]:
        """The paths a folded key names as a path, a partial path or a note name."""
        return named_among(key, self.by_path, self.by_name)

    def aliased(self, key: str) -> list[str]:
        return sorted(set(self.by_alias.get(key, [])))


def named_among(key: str, by_path: Mapping[str, list[str]], by_name: Mapping[str, list[str]]) -> list[str]:
    """NameIndex.named over tables that may hold only the entries sharing the key's name."""
    if key in by_path:
        return sorted(by_path[key])
    if "/" in key:
        # A partial path ('Build/Build decision') matches notes whose path ends with it.
        name = key.rsplit("/", 1)[-1]
        return sorted(p for p in by_name.get(name, []) if fold(without_suffix(p)).endswith("/" + key))
    return sorted(by_name.get(key, []))


class Names(Protocol):
    """The notes a `note` argument may name: those the client may see, and the broken ones it
    is told about: the notes a name could mean, read for one call (recall/finding/naming.py);
    the tests' whole-vault index (tests/support/whole_vault.py) is the reference."""

    def exact(self, path: str) -> bool:
        """Is this exact string the path of such a note?"""

    def named(self, key: str) -> list[str]:
        """Paths whose folded path, partial path or name is `key` (NameIndex.named)."""

    def aliased(self, key: str) -> list[str]:
        """Paths with an alias that folds to `key`."""


def split_note_argument(text: str) -> tuple[str, str | None]:
    """'Note#Heading' / '[[Note#Heading|shown]]' → ('Note', 'Heading')."""
    inner = text.strip()
    if inner.startswith("[[") and inner.endswith("]]"):
        inner = inner[2:-2]
    inner = inner.split("|", 1)[0]
    target, _, subpath = inner.partition("#")
    return target.strip(), subpath.strip() or None


def not_found(text: str) -> NoteNotFound:
    # One sentence for "absent", "hidden", "excluded", "outside the vault" and "not shared":
    # the caller cannot tell which, so it learns nothing about files it may not see.
    return NoteNotFound(
        f"no note {show_value(text)} that this client can read: check the name or vault path "
        "(search_notes finds notes by their text)"
    )


def resolve_names(root: Path, names: Names, text: str) -> tuple[str, str | None]:
    """Resolve a tool's `note` argument to a note path and subpath among `names`.

    The whole argument is tried as a path or name first, so a note whose name holds '#' or
    '|' ('C# notes/Issue #12') is found; then 'Note#Heading' and '[[Note|shown]]' forms.
    Aliases are looked at only for a reading that names no note by path or name.
    Raises InvalidArgument (empty, too long, ambiguous: listing the candidates the client may
    see) or NoteNotFound.
    """
    if not isinstance(text, str) or not text.strip():
        raise InvalidArgument("note is empty: give a vault path like 'Projects/Build decision' or a note name")
    if len(text) > MAX_NOTE_ARGUMENT:
        raise InvalidArgument(f"note is {len(text)} characters long; the limit is {MAX_NOTE_ARGUMENT}")
    # A path exactly as a tool returned it opens that note, whatever it holds: blanks at either
    # end, a backslash (a plain character in a file name here), one of two names that differ
    # only in Unicode form (NFC / NFD) — before any reading that strips, splits or folds it.
    for exact in (text, text + NOTE_SUFFIX):
        if names.exact(exact):
            return exact, None
    found: list[str] = []
    subpath: str | None = None
    for target, reading_subpath in _readings(text):
        if not target:
            continue
        if "/" in target or target.lower().endswith(NOTE_SUFFIX):
            try:
                guard_note_path(root, target)
            except PathRejected:
                if not names.aliased(fold(target)):
                    continue
        key = fold(without_suffix(target.strip().lstrip("/")))
        found = (names.named(key) or names.aliased(key)) if key else []
        if found:
            subpath = reading_subpath
            break
    if not found:
        raise not_found(text)
    if len(found) > 1:
        shown = ", ".join(repr(without_suffix(p)) for p in found[:MAX_CANDIDATES_SHOWN])
        more = f" and {len(found) - MAX_CANDIDATES_SHOWN} more" if len(found) > MAX_CANDIDATES_SHOWN else ""
        raise InvalidArgument(f"note {show_value(text)} is ambiguous: it could be {shown}{more}; give the vault path")
    return found[0], subpath


def _readings(text: str) -> list[tuple[str, str | None]]:
    """The ways to read an argument, most literal first."""
    whole = text.strip()
    readings: list[tuple[str, str | None]] = [(whole, None)]
    split = split_note_argument(text)
    if split != (whole, None):
        readings.append(split)
    return readings


def resolve_link(index: NameIndex, link: Link, from_path: str) -> str | None:
    """The path a link in `from_path` points to, or None when it points to no note — by
    Obsidian's rule: `./` and `../` from the linking note's folder; an exact vault path; a file
    name only one note has; else, among the notes whose path ends with the link, those under
    the linking note's folder first, then the shortest path in characters.  Aliases are no
    link targets (Obsidian leaves `[[Alias]]` unresolved)."""
    if not link.target:
        return from_path  # [[#Heading]]: the same note
    target = link.target
    folder = from_path.rsplit("/", 1)[0] if "/" in from_path else ""
    if target.startswith(("./", "../")):
        # A relative link: from the linking note's folder, never above the vault.
        joined = posixpath.normpath(posixpath.join(folder, target))
        if joined.startswith("../") or joined == "..":
            return None
        relative = index.by_path.get(fold(without_suffix(joined)), [])
        return relative[0] if len(relative) == 1 else None
    key = fold(without_suffix(target.strip().lstrip("/")))
    if not key:
        return None
    exact = index.by_path.get(key)
    if exact:
        return min(exact)
    named = index.by_name.get(key.rsplit("/", 1)[-1], [])
    if len(named) == 1:
        return named[0]  # a file name only one note has, wherever the link says it is
    ending = [path for path in named if fold(without_suffix(path)).endswith("/" + key)]
    if not ending:
        return None
    under = fold(folder + "/") if folder else ""
    return min(ending, key=lambda path: (not fold(path).startswith(under), len(path), path))


def obsidian_uri(vault_name: str, note_path: str) -> str:
    """Obsidian wants the vault name and the vault path without `.md`, every part encoded
    (`/` → %2F, space → %20, `#` → %23)."""
    file = note_path[: -len(NOTE_SUFFIX)] if note_path.endswith(NOTE_SUFFIX) else note_path
    return f"obsidian://open?vault={quote(vault_name, safe='')}&file={quote(file, safe='')}"


# What `quote` leaves as it is (safe=''): every other byte becomes three characters, '%XX'.
_UNRESERVED = (string.ascii_letters + string.digits + "_.-~").encode("ascii")


def obsidian_uri_size(vault_name: str, note_path: str) -> int:
    """len(obsidian_uri(vault_name, note_path)), without building it: a search sizes one for
    every note it finds."""
    file = note_path[: -len(NOTE_SUFFIX)] if note_path.endswith(NOTE_SUFFIX) else note_path
    return len(obsidian_uri(vault_name, "")) + _quoted_size(file.encode("utf-8"))


def _quoted_size(data: bytes) -> int:
    return len(data) + 2 * len(data.translate(None, _UNRESERVED))
