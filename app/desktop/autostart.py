"""Start at login: an XDG autostart entry on Linux, a LaunchAgent on macOS, a Startup script on
Windows.  Each is one small file written atomically and removed cleanly."""

from __future__ import annotations

import os
import plistlib
import sys
from pathlib import Path

from vault_recall.app.clients.launch import launcher
from vault_recall.app.desktop.desktop_entry import desktop_entry
from vault_recall.app.state.atomic_write import write_atomically

LAUNCH_AGENT_LABEL = "app.vault-recall.tray"


def autostart_file(home: Path | None = None, platform: str | None = None) -> Path:
    home = home or Path.home()
    platform = platform or sys.platform
    if platform == "darwin":
        return home / "Library/LaunchAgents" / f"{LAUNCH_AGENT_LABEL}.plist"
    if platform.startswith("win"):
        appdata = Path(os.environ.get("APPDATA") or home / "AppData/Roaming")
        return appdata / "Microsoft/Windows/Start Menu/Programs/Startup/Vault Recall.cmd"
    config = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    return config / "autostart/vault-recall.desktop"


def autostart_content(platform: str | None = None, argv: list[str] | None = None) -> bytes:
    platform = platform or sys.platform
    argv = [*(argv or launcher()), "tray"]
    if platform == "darwin":
        return plistlib.dumps(
            {"Label": LAUNCH_AGENT_LABEL, "ProgramArguments": argv, "RunAtLoad": True, "ProcessType": "Interactive"}
        )
    if platform.startswith("win"):
        return ('@start "" ' + " ".join(f'"{a}"' for a in argv) + "\r\n").encode("utf-8")
    return desktop_entry(argv, autostart=True).encode("utf-8")


def is_enabled(home: Path | None = None) -> bool:
    return autostart_file(home).is_file()


def enable(home: Path | None = None) -> Path:
    path = autostart_file(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, autostart_content(), 0o644)
    return path


def disable(home: Path | None = None) -> None:
    autostart_file(home).unlink(missing_ok=True)
