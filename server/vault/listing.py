"""Listing a vault: every note of the folder, fresh, skipping what Obsidian hides.

Pure functions over a `Path`; nothing here keeps state between calls, and nothing here ever
opens a file for writing.  Symlinks are never followed: a symlinked note or folder is skipped
and reported, so a vault cannot be made to expose files from elsewhere.
"""

from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from vault_recall.server.errors import VaultUnavailable
from vault_recall.server.vault.folders import open_folder, open_root
from vault_recall.server.vault.paths import NOTE_SUFFIX, display, is_displayable
from vault_recall.server.vault.settings import NO_TEMPLATES, ExcludedFiles, TemplateFolders
from vault_recall.server.vault.vault_settings import vault_settings

# A vault with more notes than this is refused as a whole rather than scanned for minutes.
MAX_NOTES = 100_000
# Folders below folders, at most: deeper ones are reported as unreadable (each level of the walk
# holds a descriptor open).
MAX_DEPTH = 128
# Folders and files of any kind walked per listing: a vault that is mostly attachments (or a
# mistaken --vault pointing at a home folder) is refused rather than walked for minutes.
MAX_WALKED_ENTRIES = 500_000


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
    templates: TemplateFolders = NO_TEMPLATES  # never records nor problems (settings.py)
    # What Excluded files hide, kept only to resolve links (excluded_notes): the notes passed
    # over, and the folders not entered since every path in them is excluded.
    excluded_notes: tuple[str, ...] = ()
    excluded_folders: tuple[str, ...] = ()
    walked: int = 0  # folders and files walked, of MAX_WALKED_ENTRIES


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


@dataclass(slots=True)
class _Frame:
    """One folder of the walk: its descriptor, its vault path with '/', the subfolders to visit
    (None: not listed yet) and the next one."""

    fd: int
    prefix: str
    subfolders: list[str] | None = None
    next: int = 0


def list_notes(root: Path, max_notes: int = MAX_NOTES) -> VaultListing:
    """List every note of the vault: `*.md` regular files, recursively.

    Skipped: any path with a component starting with '.' (the config folder, `.trash/`,
    `.git/`), paths matched by Obsidian's Excluded files (kept aside for resolving links), and
    symlinks (listed in `symlinks`).  Raises VaultUnavailable when the vault folder itself
    cannot be read or holds more than `max_notes` notes.
    """
    check_vault_folder(root)
    settings = vault_settings(root)
    excluded, templates = settings.excluded, settings.templates
    excludes = bool(excluded.prefixes or excluded.patterns)
    notes: list[str] = []
    symlinks: list[str] = []
    unreadable: list[str] = []
    undecodable: list[str] = []
    excluded_notes: list[str] = []
    excluded_folders: list[str] = []
    walked = 0

    def cannot_read(folder: str) -> None:
        # A folder that Excluded files hides is never named, readable or not; nor is one in the
        # template folder: what is missing from it are templates, never records.
        if folder in unreadable or (folder and (excluded.hides_folder(folder) or templates.holds(folder + "/"))):
            return
        unreadable.append(folder or ".")

    # Depth first, by descriptor: each folder is opened relative to the one above it, without
    # following symlinks (folders.py), so a folder swapped for a symlink while we walk is not
    # entered.  Open descriptors never exceed the depth.
    try:
        frames = [_Frame(open_root(root), "")]
    except OSError:
        raise VaultUnavailable(f"vault folder {display(root)} cannot be read") from None
    try:
        while frames:
            frame = frames[-1]
            fd, prefix = frame.fd, frame.prefix
            if frame.subfolders is None:
                frame.subfolders = []
                try:
                    with os.scandir(fd) as entries:
                        listed = list(entries)
                except OSError:
                    if not prefix:
                        raise VaultUnavailable(f"vault folder {display(root)} cannot be read") from None
                    cannot_read(prefix.rstrip("/"))
                    continue
                walked += len(listed)
                if walked > MAX_WALKED_ENTRIES:
                    raise VaultUnavailable(
                        f"vault folder {display(root)} holds more than {MAX_WALKED_ENTRIES:,} files and folders, "
                        "more than Vault Recall walks on every call"
                    )
                # scandir lists a folder with read but no search (x) permission, and then nothing
                # in it can be opened: such a folder is unreadable (root is never refused).
                if listed and _SEARCH_CAN_BE_DENIED and not _searchable(fd):
                    cannot_read(prefix.rstrip("/"))
                    continue
                # Ordered for the common case (a regular note file): this loop runs for every
                # entry of the vault on every call.
                for entry in listed:
                    name = entry.name
                    if name[0] == ".":
                        continue
                    rel = prefix + name
                    try:
                        if entry.is_file(follow_symlinks=False):
                            if not name.endswith(NOTE_SUFFIX):
                                continue
                            if excludes and excluded.matches(rel):
                                if rel.isascii() or is_displayable(rel):
                                    excluded_notes.append(rel)
                                continue
                        elif entry.is_dir(follow_symlinks=False):
                            if not excluded.covers_folder(rel):
                                frame.subfolders.append(name)
                            else:
                                excluded_folders.append(rel)
                            continue
                        else:
                            if entry.is_symlink():
                                symlinks.append(rel)
                            continue
                    except FileNotFoundError:
                        continue  # removed while we listed: an editor's atomic save, say
                    except OSError:
                        cannot_read(prefix.rstrip("/"))
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
                continue
            if frame.next < len(frame.subfolders):
                name = frame.subfolders[frame.next]
                frame.next += 1
                if len(frames) > MAX_DEPTH:
                    cannot_read(prefix + name)
                    continue
                try:
                    child = open_folder(name, fd)
                except FileNotFoundError:
                    continue  # gone since it was listed, or a symlink now: not entered either way
                except OSError:
                    cannot_read(prefix + name)
                    continue
                frames.append(_Frame(child, prefix + name + "/"))
                continue
            os.close(fd)
            frames.pop()
    finally:
        for frame in frames:
            os.close(frame.fd)
    notes.sort()
    return VaultListing(
        root=root,
        name=vault_name(root),
        paths=tuple(notes),
        symlinks=tuple(sorted(symlinks)),
        unreadable_folders=tuple(sorted(unreadable)),
        excluded=excluded,
        undecodable=tuple(sorted(undecodable)),
        templates=templates,
        excluded_notes=tuple(excluded_notes),
        excluded_folders=tuple(excluded_folders),
        walked=walked,
    )


def excluded_notes(listing: VaultListing) -> list[str]:
    """The notes Excluded files hide, as paths only — Obsidian hides them from search and
    recall, not from resolving links, so a link naming one is no link to a visible note of the
    same name.  Those in folders the listing did not enter are listed now: only a call that
    resolves links needs them.

    As in the listing: hidden folders, symlinks and names that are not UTF-8 stay out, and
    nothing deeper than MAX_DEPTH; a folder that cannot be read is passed over without a word
    (excluded: never named).  When those folders hold more entries than the listing left of
    MAX_WALKED_ENTRIES, none of their notes is given — links then resolve as though they did
    not exist, rather than a call refusing a vault every other call answers.
    """
    found = list(listing.excluded_notes)
    if not listing.excluded_folders:
        return found
    room = MAX_WALKED_ENTRIES - listing.walked
    walked: list[str] = []
    try:
        root_fd = open_root(listing.root)
    except OSError:
        return found
    try:
        for folder in listing.excluded_folders:
            room = _notes_under(root_fd, folder, walked, room)
            if room < 0:
                return found
    finally:
        os.close(root_fd)
    return found + walked


def _notes_under(root_fd: int, folder: str, found: list[str], room: int) -> int:
    """Append the notes under the vault folder `folder` to `found`, walking at most `room`
    entries; returns the room left (below 0: more than that)."""
    # Depth first, each folder opened relative to the one above it and never through a symlink
    # (folders.py), as list_notes walks: open descriptors never exceed the depth.
    frames: list[_Frame] = []
    try:
        fd = root_fd
        for name in folder.split("/"):
            fd = open_folder(name, fd)
            frames.append(_Frame(fd, ""))
        while len(frames) > 1:
            os.close(frames.pop(0).fd)
        if not frames:
            return room
        frames[0].prefix = folder + "/"
        while frames:
            frame = frames[-1]
            if frame.subfolders is None:
                frame.subfolders = []
                try:
                    with os.scandir(frame.fd) as entries:
                        listed = list(entries)
                except OSError:
                    listed = []
                room -= len(listed)
                if room < 0:
                    return room
                for entry in listed:
                    name = entry.name
                    if name[0] == ".":
                        continue
                    try:
                        if entry.is_file(follow_symlinks=False):
                            rel = frame.prefix + name
                            if name.endswith(NOTE_SUFFIX) and (rel.isascii() or is_displayable(rel)):
                                found.append(rel)
                        elif entry.is_dir(follow_symlinks=False):
                            frame.subfolders.append(name)
                    except OSError:
                        continue
                continue
            if frame.next < len(frame.subfolders) and frame.prefix.count("/") < MAX_DEPTH:
                name = frame.subfolders[frame.next]
                frame.next += 1
                # Gone, a symlink now, or unreadable: excluded, so never named.
                with contextlib.suppress(OSError):
                    frames.append(_Frame(open_folder(name, frame.fd), frame.prefix + name + "/"))
                continue
            os.close(frame.fd)
            frames.pop()
    except OSError:
        return room
    finally:
        for frame in frames:
            os.close(frame.fd)
    return room


# Root enters any folder; Windows has no search permission.
_SEARCH_CAN_BE_DENIED = hasattr(os, "geteuid") and os.geteuid() != 0


def _searchable(fd: int) -> bool:
    return os.access(".", os.X_OK, dir_fd=fd) if os.access in os.supports_dir_fd else True
