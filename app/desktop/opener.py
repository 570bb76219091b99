"""Opening an obsidian:// link, a page or a folder the way the desktop does, without waiting on it.

Whether anything handles the link is the desktop's business, but a failure is the person's:
xdg-open exits non-zero (3 on Linux when nothing handles the link) within moments, so the exit
is awaited on a thread of its own, and `failed` is told when it says so.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import threading
from collections.abc import Callable

# A command to use instead of the desktop's opener (tests, unusual desktops): it gets the
# link or folder as its last argument.
OPEN_COMMAND_ENV = "VAULT_RECALL_OPEN_COMMAND"
# How long an opener may take to say it failed; one still running then opened something.
FAIL_SECONDS = 20.0


def opener() -> list[str]:
    override = os.environ.get(OPEN_COMMAND_ENV)
    if override:
        return shlex.split(override)
    if sys.platform == "darwin":
        return ["open"]
    if sys.platform.startswith("win"):
        return ["explorer"]
    return ["xdg-open"]


def open_target(
    target: str, failed: Callable[[], None] | None = None, judged: Callable[[], None] | None = None
) -> bool:
    """Start the opener; False when it cannot even start.  `failed` is called (on another
    thread) if it then exits with an error; `judged` once that is decided either way (tests
    wait for it).  Windows' explorer exits 1 even when it opened the target, so its exit code
    says nothing."""
    try:
        process = subprocess.Popen(
            [*opener(), target], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
    except OSError:
        if failed is not None:
            failed()
        return False
    if failed is not None and opener()[0] != "explorer":

        def wait() -> None:
            try:
                code = process.wait(FAIL_SECONDS)
            except subprocess.TimeoutExpired:
                code = 0  # still running: a handler that stays (a browser started in the foreground)
            if code != 0:
                failed()
            if judged is not None:
                judged()

        threading.Thread(target=wait, name="opener", daemon=True).start()
    return True
