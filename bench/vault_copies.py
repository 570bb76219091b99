"""Copies of a vault for servers that may write into it, and what a server left in its copy.

A benchmark never lets a server it does not own near the vault it was given: each server gets a
copy of its own, and a snapshot of every entry (hidden ones too) taken before the server starts
and after it stops tells what it added, changed or removed.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

# kind ('file', 'folder', 'link'), size, modification time in ns
Entry = tuple[str, int, int]


@dataclass(frozen=True)
class Changes:
    """Entries a server added, changed or removed in its copy (vault-relative, folders with '/')."""

    added: tuple[str, ...]
    changed: tuple[str, ...]
    removed: tuple[str, ...]

    @property
    def count(self) -> int:
        return len(self.added) + len(self.changed) + len(self.removed)


def copy_vault(source: Path, destination: Path) -> None:
    """A fresh copy of `source`, symlinks copied as links, times kept; with an `.obsidian` folder
    (Obsidian makes one in every vault it opens, and obsidian-mcp refuses a vault without it)."""
    if destination.exists():
        shutil.rmtree(destination)
    destination.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(source, destination, symlinks=True)
    (destination / ".obsidian").mkdir(exist_ok=True)


def snapshot(root: Path) -> dict[str, Entry]:
    """Every entry under `root`, hidden ones included, symlinks not followed."""
    entries: dict[str, Entry] = {}
    for folder, folders, files in os.walk(root):
        base = Path(folder)
        for name in folders + files:
            path = base / name
            info = path.lstat()
            relative = path.relative_to(root).as_posix()
            if path.is_symlink():
                entries[relative] = ("link", info.st_size, info.st_mtime_ns)
            elif path.is_dir():
                entries[relative + "/"] = ("folder", 0, 0)  # a folder's time changes with what is in it
            else:
                entries[relative] = ("file", info.st_size, info.st_mtime_ns)
    return entries


def changes(before: dict[str, Entry], after: dict[str, Entry], ours: frozenset[str] = frozenset()) -> Changes:
    """What changed between two snapshots, leaving out the entries the benchmark itself wrote."""
    return Changes(
        added=tuple(sorted(p for p in after.keys() - before.keys() if p not in ours)),
        changed=tuple(sorted(p for p in after.keys() & before.keys() if after[p] != before[p] and p not in ours)),
        removed=tuple(sorted(p for p in before.keys() - after.keys() if p not in ours)),
    )
