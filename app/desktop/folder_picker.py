"""The native 'choose a folder' dialog, shown on a thread of its own so the tray never blocks.

On Linux the desktop portal's dialog first (any desktop, X11 or Wayland, nothing to install),
then zenity or kdialog; AppleScript on macOS, PowerShell on Windows.
"""

from __future__ import annotations

import logging
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from vault_recall.app.app_errors import SessionBusError
from vault_recall.app.desktop import folder_portal

log = logging.getLogger(__name__)

_POWERSHELL = (
    "Add-Type -AssemblyName System.Windows.Forms;"
    "$d = New-Object System.Windows.Forms.FolderBrowserDialog;"
    "$d.Description = 'Choose your Obsidian vault';"
    "if ($d.ShowDialog() -eq 'OK') { $d.SelectedPath }"
)


def picker_command() -> list[str] | None:
    if sys.platform == "darwin":
        return ["osascript", "-e", 'POSIX path of (choose folder with prompt "Choose your Obsidian vault")']
    if sys.platform.startswith("win"):
        return ["powershell", "-NoProfile", "-Command", _POWERSHELL]
    if shutil.which("zenity"):
        return ["zenity", "--file-selection", "--directory", "--title=Choose your Obsidian vault"]
    if shutil.which("kdialog"):
        return ["kdialog", "--getexistingdirectory", str(Path.home()), "--title", "Choose your Obsidian vault"]
    return None


def _ask(command: list[str]) -> Path | None:
    try:
        result = subprocess.run(command, capture_output=True, text=True, check=False)
    except OSError:
        return None
    chosen = result.stdout.strip()
    return Path(chosen) if result.returncode == 0 and chosen else None


def can_pick_folder() -> bool:
    """Is there any way to show a folder dialog here?"""
    return picker_command() is not None or folder_portal.available()


def choose_folder(done: Callable[[Path | None], None]) -> bool:
    """Show the dialog on a thread; `done` gets the folder, or None if cancelled.  False when
    this desktop has no dialog at all."""
    portal = folder_portal.available()
    command = picker_command()
    if not portal and command is None:
        return False

    def run() -> None:
        if portal:
            try:
                done(folder_portal.choose_folder())
                return
            except SessionBusError as exc:
                log.warning("the desktop portal could not show a folder dialog: %s", exc)
        done(_ask(command) if command is not None else None)

    threading.Thread(target=run, name="folder-picker", daemon=True).start()
    return True
