"""Where the bundled sample vault lives (used on first run and by `vault-recall demo`)."""

from __future__ import annotations

import sys
from pathlib import Path


def sample_vault_path() -> Path:
    """The sample vault: in the bundle's own folder, beside the sources (a checkout or an
    editable install: this file is app/state/ of the checkout), or in the environment's share/
    folder (a wheel installed by pip, pipx or uv)."""
    bundle = getattr(sys, "_MEIPASS", None)
    for path in (
        *([Path(bundle) / "assets" / "sample-vault"] if bundle else []),
        Path(__file__).resolve().parents[2] / "assets" / "sample-vault",
        Path(sys.prefix) / "share" / "vault-recall" / "sample-vault",
    ):
        if path.is_dir():
            return path
    raise FileNotFoundError("the bundled sample vault is missing from this installation")
