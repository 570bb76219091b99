"""Where the bundled sample vault lives (used on first run and by `vault-recall demo`)."""

from __future__ import annotations

import sys
from pathlib import Path


def sample_vault_path() -> Path:
    """The sample vault: beside the packages (a checkout, an editable install, the bundle), or
    in the environment's share/ folder (a wheel installed by pip, pipx or uv)."""
    for path in (
        Path(__file__).resolve().parent.parent / "assets" / "sample-vault",
        Path(sys.prefix) / "share" / "vault-recall" / "sample-vault",
    ):
        if path.is_dir():
            return path
    raise FileNotFoundError("the bundled sample vault is missing from this installation")
