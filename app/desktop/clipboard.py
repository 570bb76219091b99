"""Copying text to the clipboard with the platform's own tool."""

from __future__ import annotations

import shutil
import subprocess
import sys

_LINUX_TOOLS = (
    ["wl-copy"],
    ["xclip", "-selection", "clipboard"],
    ["xsel", "--clipboard", "--input"],
)


def copy_command() -> list[str] | None:
    """The command that takes text on stdin into the clipboard here, or None."""
    if sys.platform == "darwin":
        return ["pbcopy"]
    if sys.platform.startswith("win"):
        return ["clip"]
    for command in _LINUX_TOOLS:
        if shutil.which(command[0]) and (command[0] != "wl-copy" or _wayland()):
            return command
    return None


def _wayland() -> bool:
    import os

    return bool(os.environ.get("WAYLAND_DISPLAY"))


HAS_CLIPBOARD = copy_command() is not None


def copy_text(text: str) -> bool:
    command = copy_command()
    if command is None:
        return False
    try:
        # xclip stays in the background to serve the selection; its pipes must not hold us.
        subprocess.run(
            command,
            input=text.encode("utf-8"),
            timeout=10,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return True
