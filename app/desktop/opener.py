"""Opening an obsidian:// link or a folder the way the desktop does, without waiting on it."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys

# A command to use instead of the desktop's opener (tests, unusual desktops): it gets the
# link or folder as its last argument.
OPEN_COMMAND_ENV = "VAULT_RECALL_OPEN_COMMAND"


def opener() -> list[str]:
    override = os.environ.get(OPEN_COMMAND_ENV)
    if override:
        return shlex.split(override)
    if sys.platform == "darwin":
        return ["open"]
    if sys.platform.startswith("win"):
        return ["explorer"]
    return ["xdg-open"]


def open_target(target: str) -> bool:
    """True when the opener started; whether a handler exists is the desktop's business."""
    try:
        subprocess.Popen(
            [*opener(), target], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
    except OSError:
        return False
    return True
