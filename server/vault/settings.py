"""Obsidian's settings files in the vault's config folder, read fresh on every call.

The config folder is `.obsidian`, or the hidden top-level folder a person renamed it to
(Settings → Files and links → Override config folder).  Nothing here writes, follows a
symlink or keeps anything between calls; a settings file that is missing, not a regular file,
absurdly large or not a JSON object counts as absent (Obsidian itself starts without them).
"""

from __future__ import annotations

import json
import logging
import os
import stat
from pathlib import Path

from vault_recall.server.vault.folders import FolderChain

log = logging.getLogger(__name__)

DEFAULT_CONFIG_FOLDER = ".obsidian"
# Settings files are a few hundred bytes (a plugin's data.json a few kilobytes): refuse to
# parse something absurd placed there.
MAX_SETTINGS_BYTES = 1024 * 1024


def config_folders(root: Path) -> list[str]:
    """The vault's config folders, recognized by the `app.json` Obsidian keeps in each — most
    recently saved first.

    Obsidian knows which one it was told to use; we cannot, so every one found counts (a
    leftover `.obsidian/app.json` must not hide the settings of the folder in use).
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


def read_settings(root: Path, path: str) -> dict[str, object] | None:
    """The JSON object in the settings file at the vault path `path` (`.obsidian/app.json`),
    or None when there is none that can be read."""
    # No symlinks on the way, and nothing that is not a regular file: a FIFO here must not block.
    try:
        with FolderChain(root) as chain:
            fd = chain.open_note(path)
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                return None
            raw = f.read(MAX_SETTINGS_BYTES + 1)
    except OSError:
        return None
    if len(raw) > MAX_SETTINGS_BYTES:
        return None
    try:
        settings = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        log.warning("%s does not parse; ignoring it", path)
        return None
    return settings if isinstance(settings, dict) else None
