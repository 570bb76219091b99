"""Where the bundled sample vault lives (used on first run and by `vault-recall demo`)."""

from __future__ import annotations

import sys
from pathlib import Path


def sample_vault_path() -> Path:
    """The sample vault: in the PyInstaller bundle's own folder; beside the sources (a checkout
    or an editable install: this file is app/state/ of the checkout, the vault assets/); or
    inside the installed package, as `vault_recall/sample_vault/` (a wheel, wherever pip,
    pipx, uv or `pip install --user` put it: pyproject.toml ships it as package data)."""
    bundle = getattr(sys, "_MEIPASS", None)
    here = Path(__file__).resolve()
    for path in (
        *([Path(bundle) / "assets" / "sample-vault"] if bundle else []),
        here.parents[2] / "assets" / "sample-vault",
        here.parents[2] / "sample_vault",
    ):
        if path.is_dir():
            return path
    raise FileNotFoundError("the bundled sample vault is missing from this installation")
