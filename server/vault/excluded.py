"""Obsidian's *Excluded files* setting (`userIgnoreFilters` in the config folder's app.json).

Read on every listing: it is part of the vault, and the person may change it at any time.
A missing or broken app.json means "nothing excluded" (Obsidian itself starts that way).

Names are compared in Unicode NFC, the setting's and the paths' alike: macOS writes a file's
name decomposed (NFD: 'e' and a combining accent) where a person types it composed, and a
folder named 'Café' on disk must be excluded by 'Café/' in the setting whichever form each is in.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from vault_recall.server.vault.settings import config_folders, read_settings

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ExcludedFiles:
    """Vault-relative path prefixes and regular expressions that hide notes."""

    prefixes: tuple[str, ...] = ()  # in NFC
    patterns: tuple[re.Pattern[str], ...] = field(default=())  # written in NFC, matched on NFC paths

    def matches(self, path: str) -> bool:
        """True when the vault-relative note path is excluded."""
        path = nfc(path)
        if path.startswith(self.prefixes):
            return True
        return bool(self.patterns) and any(rx.search(path) for rx in self.patterns)

    def covers_folder(self, folder: str) -> bool:
        """True when every path under `folder` is excluded by a prefix (so it need not be listed)."""
        return nfc(folder + "/").startswith(self.prefixes)

    def hides_folder(self, folder: str) -> bool:
        """True when the notes under `folder` are hidden, by a prefix or by a pattern that matches
        the folder's own path as well as a note's in it (`/^Rx/` hides `Rx/Secret plans/`):
        nothing about such a folder is shown, not even that it cannot be read."""
        if self.covers_folder(folder):
            return True
        inside = nfc(f"{folder}/")
        return any(rx.search(inside) and rx.search(f"{inside}note.md") for rx in self.patterns)


def nfc(text: str) -> str:
    """`text` in Unicode NFC (an ASCII name is already)."""
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def parse_excluded_files(entries: object) -> ExcludedFiles:
    """Turn the raw `userIgnoreFilters` value into matchers; bad entries are skipped."""
    if not isinstance(entries, list):
        return ExcludedFiles()
    prefixes: list[str] = []
    patterns: list[re.Pattern[str]] = []
    for entry in entries:
        if not isinstance(entry, str) or not entry.strip():
            continue
        entry = nfc(entry)
        if len(entry) > 2 and entry.startswith("/") and entry.endswith("/"):
            try:
                patterns.append(re.compile(entry[1:-1]))
            except re.error as exc:
                log.warning("ignoring Excluded files entry %r: not a valid pattern (%s)", entry, exc)
            continue
        prefixes.append(entry.lstrip("/"))
    return ExcludedFiles(prefixes=tuple(prefixes), patterns=tuple(patterns))


def read_excluded_files(root: Path, folders: Sequence[str] | None = None) -> ExcludedFiles:
    """Read the vault's Excluded files setting, fresh: the union of every config folder's
    (`folders`, when the caller has found them already), so that whichever one Obsidian uses,
    nothing it hides is shown."""
    prefixes: list[str] = []
    patterns: list[re.Pattern[str]] = []
    for folder in config_folders(root) if folders is None else folders:
        settings = read_settings(root, f"{folder}/app.json")
        if settings is None:
            continue
        found = parse_excluded_files(settings.get("userIgnoreFilters"))
        prefixes.extend(p for p in found.prefixes if p not in prefixes)
        patterns.extend(p for p in found.patterns if p not in patterns)
    return ExcludedFiles(prefixes=tuple(prefixes), patterns=tuple(patterns))
