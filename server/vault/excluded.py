"""Obsidian's *Excluded files* setting (`userIgnoreFilters` in the config folder's app.json).

Read on every listing: it is part of the vault, and the person may change it at any time.
A missing or broken app.json means "nothing excluded" (Obsidian itself starts that way).
"""

from __future__ import annotations

import json
import logging
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from vault_recall.server.vault.folders import FolderChain

log = logging.getLogger(__name__)

# app.json is a few hundred bytes; refuse to parse something absurd placed there.
_MAX_APP_JSON_BYTES = 1024 * 1024


@dataclass(frozen=True)
class ExcludedFiles:
    """Vault-relative path prefixes and regular expressions that hide notes."""

    prefixes: tuple[str, ...] = ()
    patterns: tuple[re.Pattern[str], ...] = field(default=())

    def matches(self, path: str) -> bool:
        """True when the vault-relative note path is excluded."""
        if path.startswith(self.prefixes):
            return True
        return bool(self.patterns) and any(rx.search(path) for rx in self.patterns)

    def covers_folder(self, folder: str) -> bool:
        """True when every path under `folder` is excluded by a prefix (so it need not be listed)."""
        return (folder + "/").startswith(self.prefixes)

    def hides_folder(self, folder: str) -> bool:
        """True when the notes under `folder` are hidden, by a prefix or by a pattern that matches
        the folder's own path as well as a note's in it (`/^Rx/` hides `Rx/Secret plans/`):
        nothing about such a folder is shown, not even that it cannot be read."""
        if self.covers_folder(folder):
            return True
        inside = f"{folder}/"
        return any(rx.search(inside) and rx.search(f"{inside}note.md") for rx in self.patterns)


def parse_excluded_files(entries: object) -> ExcludedFiles:
    """Turn the raw `userIgnoreFilters` value into matchers; bad entries are skipped."""
    if not isinstance(entries, list):
        return ExcludedFiles()
    prefixes: list[str] = []
    patterns: list[re.Pattern[str]] = []
    for entry in entries:
        if not isinstance(entry, str) or not entry.strip():
            continue
        if len(entry) > 2 and entry.startswith("/") and entry.endswith("/"):
            try:
                patterns.append(re.compile(entry[1:-1]))
            except re.error as exc:
                log.warning("ignoring Excluded files entry %r: not a valid pattern (%s)", entry, exc)
            continue
        prefixes.append(entry.lstrip("/"))
    return ExcludedFiles(prefixes=tuple(prefixes), patterns=tuple(patterns))


def config_folders(root: Path) -> list[str]:
    """The vault's config folders: `.obsidian`, or the hidden top-level folder a person renamed it
    to (Settings → Files and links → Override config folder), recognized by the `app.json`
    Obsidian keeps in it — most recently saved first.

    Obsidian knows which one it was told to use; we cannot, so every one found counts (a
    leftover `.obsidian/app.json` must not hide the Excluded files of the folder in use).
    """
    found: list[tuple[int, str]] = []
    try:
        with os.scandir(root) as entries:
            for entry in entries:
                if not entry.name.startswith(".") or not entry.is_dir(follow_symlinks=False):
                    continue
                try:
                    st = os.lstat(os.path.join(entry.path, "app.json"))
                except OSError:
                    continue
                if stat.S_ISREG(st.st_mode):
                    found.append((st.st_mtime_ns, entry.name))
    except OSError:
        return []
    return [name for _, name in sorted(found, reverse=True)]


def read_excluded_files(root: Path) -> ExcludedFiles:
    """Read the vault's Excluded files setting, fresh: the union of every config folder's, so
    that whichever one Obsidian uses, nothing it hides is shown."""
    prefixes: list[str] = []
    patterns: list[re.Pattern[str]] = []
    for folder in config_folders(root):
        found = _read_app_json(root, f"{folder}/app.json")
        prefixes.extend(p for p in found.prefixes if p not in prefixes)
        patterns.extend(p for p in found.patterns if p not in patterns)
    return ExcludedFiles(prefixes=tuple(prefixes), patterns=tuple(patterns))


def _read_app_json(root: Path, app_json: str) -> ExcludedFiles:
    # No symlinks on the way, and nothing that is not a regular file: a FIFO here must not block.
    try:
        with FolderChain(root) as chain:
            fd = chain.open_note(app_json)
    except OSError:
        return ExcludedFiles()
    try:
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                return ExcludedFiles()
            raw = f.read(_MAX_APP_JSON_BYTES + 1)
    except OSError:
        return ExcludedFiles()
    if len(raw) > _MAX_APP_JSON_BYTES:
        return ExcludedFiles()
    try:
        settings = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        log.warning("%s does not parse; treating Excluded files as empty", app_json)
        return ExcludedFiles()
    if not isinstance(settings, dict):
        return ExcludedFiles()
    return parse_excluded_files(settings.get("userIgnoreFilters"))
