"""The vault's template folder: where Obsidian's Templates core plugin (`templates.json`:
`{"folder": "Templates"}`) and the Templater community plugin
(`plugins/templater-obsidian/data.json`: `"templates_folder": "Templates"`) keep templates.

A template holds placeholder properties by design (`subject:` left empty for the note made
from it), so the notes in it are never memory records nor problems; they stay notes, read and
searched as Obsidian shows them.  Read fresh on every listing, from every config folder (as
Excluded files are): a missing, broken or oversized settings file means no template folder.

A folder counts whether or not its plugin is switched on now: the notes in it were written as
templates all the same, Obsidian keeps the setting while the plugin is off, and a person who
turns the plugin off for a while has not turned their templates into records.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from vault_recall.server.vault.settings import DEFAULT_CONFIG_FOLDER, config_folders, read_settings

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
