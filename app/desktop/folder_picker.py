"""The native 'choose a folder' dialog, run as a separate process so the tray never blocks."""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

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


HAS_FOLDER_PICKER = picker_command() is not None


def choose_folder(done: Callable[[Path | None], None]) -> bool:
    """Show the dialog on a thread; `done` gets the folder, or None if cancelled.  False when
    this desktop has no dialog tool."""
    command = picker_command()
    if command is None:
        return False

    def run() -> None:
        try:
            result = subprocess.run(command, capture_output=True, text=True, check=False)
        except OSError:
            done(None)
            return
        chosen = result.stdout.strip()
        done(Path(chosen) if result.returncode == 0 and chosen else None)

    threading.Thread(target=run, name="folder-picker", daemon=True).start()
    return True
