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

log = logging.getLogger(__name__)

DEFAULT_CONFIG_FOLDER = ".obsidian"
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


def find_config_folder(root: Path) -> str | None:
    """The vault's config folder: `.obsidian`, or the hidden top-level folder a person renamed it
    to (Settings → Files and links → Override config folder).  A renamed one is recognized by
    the `app.json` Obsidian keeps in it; with several, the most recently saved one wins."""
    if (root / DEFAULT_CONFIG_FOLDER / "app.json").is_file():
        return DEFAULT_CONFIG_FOLDER
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
        return None
    if found:
        return max(found)[1]
    return DEFAULT_CONFIG_FOLDER if (root / DEFAULT_CONFIG_FOLDER).is_dir() else None


def read_excluded_files(root: Path) -> ExcludedFiles:
    """Read the vault's Excluded files setting, fresh."""
    config_folder = find_config_folder(root)
    if config_folder is None:
        return ExcludedFiles()
    app_json = root / config_folder / "app.json"
    # No symlinks, and nothing that is not a regular file: a FIFO here must not block a call.
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(app_json, flags)
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
