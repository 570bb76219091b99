"""The settings that decide which files of a vault are notes and what they are — its config
folders, Excluded files, template folders and daily notes — read once for a whole tool call.

Each is read fresh on every call.  Within one call, though, the answer and what is told with
it (recall/changed_since.py) each read them on their own, and a restarted pass read them again:
three small files and a folder listing, several times over for one answer.  The MCP layer opens
`one_reading()` around a call, and every `vault_settings` inside it gets what the first read;
outside one (the command line, tests), every call reads them afresh.  Nothing outlives the call.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from vault_recall.server.vault.daily_notes import DailyNotes, read_daily_notes
from vault_recall.server.vault.settings import (
    ExcludedFiles,
    TemplateFolders,
    config_folders,
    read_excluded_files,
    read_template_folders,
)


@dataclass(frozen=True)
class VaultSettings:
    folders: tuple[str, ...]  # the config folders, most recently saved first
    excluded: ExcludedFiles
    templates: TemplateFolders
    root: Path

    @cached_property
    def daily(self) -> DailyNotes:
        """Read when first asked (only subject rules for daily notes need it), then kept for
        the rest of the call with the others."""
        return read_daily_notes(self.root, self.folders)


# The readings of the call under way, by vault folder (None: no call is under way).
_this_call: ContextVar[dict[Path, VaultSettings] | None] = ContextVar("vault_recall_vault_settings", default=None)


def vault_settings(root: Path) -> VaultSettings:
    """The vault's settings as this call first read them, or as they are now outside a call."""
    readings = _this_call.get()
    if readings is not None and (read := readings.get(root)) is not None:
        return read
    folders = config_folders(root)
    read = VaultSettings(
        tuple(folders),
        read_excluded_files(root, folders),
        read_template_folders(root, folders),
        root,
    )
    if readings is not None:
        readings[root] = read
    return read


@contextmanager
def one_reading() -> Iterator[None]:
    """Within this block (one tool call, on one thread), the settings are read once per vault."""
    token = _this_call.set({})
    try:
        yield
    finally:
        _this_call.reset(token)
