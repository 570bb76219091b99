"""Listing a vault: every note of the folder, fresh, skipping what Obsidian hides.

Pure functions over a `Path`; nothing here keeps state between calls, and nothing here ever
opens a file for writing.  Symlinks are never followed: a symlinked note or folder is skipped
and reported, so a vault cannot be made to expose files from elsewhere.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from vault_recall.server.errors import VaultUnavailable
from vault_recall.server.vault.excluded import ExcludedFiles, read_excluded_files
from vault_recall.server.vault.folders import open_folder, open_root
from vault_recall.server.vault.paths import NOTE_SUFFIX, display, is_displayable
from vault_recall.server.vault.settings import config_folders
from vault_recall.server.vault.templates import NO_TEMPLATES, TemplateFolders, read_template_folders

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
    templates: TemplateFolders = NO_TEMPLATES  # never records nor problems (templates.py)


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
    `.git/`), paths matched by Obsidian's Excluded files, and symlinks (listed in
    `symlinks`).  Raises VaultUnavailable when the vault folder itself cannot be read or
    holds more than `max_notes` notes.
    """
    check_vault_folder(root)
    folders = config_folders(root)
    excluded = read_excluded_files(root, folders)
    templates = read_template_folders(root, folders)
    excludes = bool(excluded.prefixes or excluded.patterns)
    notes: list[str] = []
    symlinks: list[str] = []
    unreadable: list[str] = []
    undecodable: list[str] = []
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
                            if not name.endswith(NOTE_SUFFIX) or (excludes and excluded.matches(rel)):
                                continue
                        elif entry.is_dir(follow_symlinks=False):
                            if not excluded.covers_folder(rel):
                                frame.subfolders.append(name)
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
    )


# Root enters any folder; Windows has no search permission.
_SEARCH_CAN_BE_DENIED = hasattr(os, "geteuid") and os.geteuid() != 0


def _searchable(fd: int) -> bool:
    return os.access(".", os.X_OK, dir_fd=fd) if os.access in os.supports_dir_fd else True
