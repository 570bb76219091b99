"""The command an AI client runs to start `vault-recall serve`: absolute, so it works from GUI
apps that do not inherit the shell's PATH."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def launcher() -> list[str]:
    """How to start Vault Recall from anywhere.

    A frozen bundle: its own executable.  Otherwise the installed console script beside the
    interpreter (its shebang or .exe launcher pins the right environment).  Failing that, the
    interpreter in isolated mode (-I) so nothing in the client's working directory can
    shadow ours.
    """
    if getattr(sys, "frozen", False):
        return [sys.executable]
    script = Path(sys.executable).with_name("vault-recall.exe" if os.name == "nt" else "vault-recall")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-I", "-m", "vault_recall.app"]


def serve_argv(client_id: str, pinned_vault: Path | None = None, base: list[str] | None = None) -> list[str]:
    argv = [*(base if base is not None else launcher()), "serve", "--client", client_id]
    if pinned_vault is not None:
        argv += ["--vault", str(pinned_vault)]
    return argv
