"""Start at login: an XDG autostart entry on Linux, a LaunchAgent on macOS, a Startup script on
Windows.  Each is one small file written atomically and removed cleanly."""

from __future__ import annotations

import os
import plistlib
import sys
from pathlib import Path

from app.atomic_write import write_atomically
from app.launch import launcher

DESKTOP_ENTRY = """[Desktop Entry]
Type=Application
Name=Vault Recall
GenericName=AI memory from your Obsidian vault
Comment=Lets every AI client recall the decisions kept in your Obsidian vault
Exec={exec}
Icon=vault-recall
Terminal=false
Categories=Utility;
X-GNOME-Autostart-enabled=true
"""
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


def _exec_line(argv: list[str]) -> str:
    """argv as a Desktop Entry Exec value: arguments with reserved characters double-quoted with
    `"`, backquote, `$` and backslash escaped; then backslashes escaped again (the value is a
    'string'), and `%` doubled (field codes)."""

    def quote(arg: str) -> str:
        if arg and all(c.isalnum() or c in "/._-+=:," for c in arg):
            return arg
        return '"' + "".join("\\" + c if c in '"`$\\' else c for c in arg) + '"'

    value = " ".join(quote(a) for a in argv).replace("\\", "\\\\").replace("%", "%%")
    return value.replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")


def autostart_content(platform: str | None = None, argv: list[str] | None = None) -> bytes:
    platform = platform or sys.platform
    argv = [*(argv or launcher()), "tray"]
    if platform == "darwin":
        return plistlib.dumps(
            {"Label": LAUNCH_AGENT_LABEL, "ProgramArguments": argv, "RunAtLoad": True, "ProcessType": "Interactive"}
        )
    if platform.startswith("win"):
        return ('@start "" ' + " ".join(f'"{a}"' for a in argv) + "\r\n").encode("utf-8")
    return DESKTOP_ENTRY.format(exec=_exec_line(argv)).encode("utf-8")


def is_enabled(home: Path | None = None) -> bool:
    return autostart_file(home).is_file()


def enable(home: Path | None = None) -> Path:
    path = autostart_file(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, autostart_content(), 0o644)
    return path


def disable(home: Path | None = None) -> None:
    autostart_file(home).unlink(missing_ok=True)
