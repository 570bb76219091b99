"""The vaults a person already has, from Obsidian's own `obsidian.json` (read, never written)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class KnownVault:
    name: str  # Obsidian names a vault after its folder
    path: Path
    last_opened_ms: int | None
    open: bool
    source: Path  # the obsidian.json it came from


def obsidian_json_locations(home: Path | None = None, platform: str | None = None) -> list[Path]:
    """Every place Obsidian keeps its vault list on this platform (desktop, Flatpak, Snap)."""
    home = home or Path.home()
    platform = platform or sys.platform
    if platform == "darwin":
        return [home / "Library/Application Support/obsidian/obsidian.json"]
    if platform.startswith("win"):
        appdata = os.environ.get("APPDATA")
        return (
            [Path(appdata) / "obsidian/obsidian.json"] if appdata else [home / "AppData/Roaming/obsidian/obsidian.json"]
        )
    xdg = os.environ.get("XDG_CONFIG_HOME")
    config = Path(xdg) if xdg else home / ".config"
    return [
        config / "obsidian/obsidian.json",
        home / ".var/app/md.obsidian.Obsidian/config/obsidian/obsidian.json",
        home / "snap/obsidian/current/.config/obsidian/obsidian.json",
    ]


def discover_vaults(locations: list[Path] | None = None) -> list[KnownVault]:
    """Vaults listed by any Obsidian install, most recently opened first; a missing or broken
    file just means no vaults from it."""
    found: dict[Path, KnownVault] = {}
    for source in locations if locations is not None else obsidian_json_locations():
        for vault in _read_vault_list(source):
            if vault.path not in found:
                found[vault.path] = vault
    return sorted(found.values(), key=lambda v: (-(v.last_opened_ms or 0), v.name.casefold()))


def _read_vault_list(source: Path) -> list[KnownVault]:
    try:
        with open(source, "rb") as f:
            data = json.loads(f.read(4 * 1024 * 1024).decode("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return []
    vaults = data.get("vaults") if isinstance(data, dict) else None
    if not isinstance(vaults, dict):
        return []
    found = []
    for entry in vaults.values():
        if not isinstance(entry, dict) or not isinstance(entry.get("path"), str) or not entry["path"]:
            continue
        path = Path(entry["path"])
        ts = entry.get("ts")
        found.append(
            KnownVault(
                name=path.name or str(path),
                path=path,
                last_opened_ms=ts if isinstance(ts, int) and not isinstance(ts, bool) else None,
                open=entry.get("open") is True,
                source=source,
            )
        )
    return found


def last_opened(vaults: Sequence[KnownVault]) -> KnownVault | None:
    """The vault Obsidian last had open: one it says is open, else the one it opened last (its
    `ts`); None when it knows none."""
    return max(vaults, key=lambda v: (v.open, v.last_opened_ms or 0), default=None)
