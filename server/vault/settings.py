"""Obsidian's settings files in the vault's config folder, read fresh on every call, and the
one of them every listing reads: *Excluded files* (`userIgnoreFilters` in app.json).

The config folder is `.obsidian`, or the hidden top-level folder a person renamed it to
(Settings → Files and links → Override config folder).  Nothing here writes, follows a
symlink or keeps anything between calls; a settings file that is missing, not a regular file,
absurdly large or not a JSON object counts as absent (Obsidian itself starts without them).

Excluded files are read on every listing: they are part of the vault, and the person may
change them at any time; a missing or broken app.json means "nothing excluded".  Names are
compared in Unicode NFC, the setting's and the paths' alike: macOS writes a file's name
decomposed (NFD: 'e' and a combining accent) where a person types it composed, and a folder
named 'Café' on disk must be excluded by 'Café/' in the setting whichever form each is in.

The other one every listing reads: the vault's template folder, where Obsidian's Templates
core plugin (`templates.json`: `{"folder": "Templates"}`) and the Templater community plugin
(`plugins/templater-obsidian/data.json`: `"templates_folder": "Templates"`) keep templates.
A template holds placeholder properties by design (`subject:` left empty for the note made
from it), so the notes in it are never memory records nor problems; they stay notes, read and
searched as Obsidian shows them.  Read from every config folder (as Excluded files are): a
missing, broken or oversized settings file means no template folder.  A folder counts whether
or not its plugin is switched on now: the notes in it were written as templates all the same,
Obsidian keeps the setting while the plugin is off, and a person who turns the plugin off for
a while has not turned their templates into records.
"""

from __future__ import annotations

import json
import logging
import os
import re
import stat
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
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


# (settings file inside a config folder, the key naming the template folder)
TEMPLATE_SETTINGS = (
    ("templates.json", "folder"),
    ("plugins/templater-obsidian/data.json", "templates_folder"),
)


@dataclass(frozen=True)
class TemplateFolders:
    """The template folders of a vault, as vault paths in Unicode NFC with a trailing '/'."""

    prefixes: tuple[str, ...] = ()

    def holds(self, path: str) -> bool:
        """Is the vault path (a note's, or a folder's with its trailing '/') inside a template
        folder?  Compared in NFC: macOS may write a folder's name decomposed (NFD)."""
        if not self.prefixes:
            return False
        if path.isascii():  # NFC already
            return path.startswith(self.prefixes)
        return unicodedata.normalize("NFC", path).startswith(self.prefixes)


NO_TEMPLATES = TemplateFolders()


def template_folder(value: object) -> str | None:
    """A folder setting as a vault path prefix ('Meta/Templates/'), or None when it names no
    folder inside the vault: not text, empty or only '/' (the vault itself is no template
    folder: Templater's unset value is '' or '/'), or climbing out with '..'."""
    if not isinstance(value, str):
        return None
    parts = [part for part in unicodedata.normalize("NFC", value.strip()).split("/") if part and part != "."]
    if not parts or ".." in parts:
        return None
    return "/".join(parts) + "/"


def read_template_folders(root: Path, folders: Sequence[str] | None = None) -> TemplateFolders:
    """Every template folder any config folder names (`folders`, when the caller has found
    them already; `.obsidian` is always looked in, even without an app.json)."""
    found = list(config_folders(root) if folders is None else folders)
    if DEFAULT_CONFIG_FOLDER not in found:
        found.append(DEFAULT_CONFIG_FOLDER)
    prefixes: list[str] = []
    for config in found:
        for name, key in TEMPLATE_SETTINGS:
            settings = read_settings(root, f"{config}/{name}")
            folder = template_folder(settings.get(key)) if settings is not None else None
            if folder is not None and folder not in prefixes:
                prefixes.append(folder)
    return TemplateFolders(tuple(prefixes))
