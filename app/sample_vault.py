"""Where the bundled sample vault lives (used on first run and by `vault-recall demo`)."""

from __future__ import annotations

from pathlib import Path


def sample_vault_path() -> Path:
    """The sample vault shipped beside the packages (a source checkout or editable install)."""
    path = Path(__file__).resolve().parent.parent / "assets" / "sample-vault"
    if not path.is_dir():
        raise FileNotFoundError(f"the bundled sample vault is missing (looked in {path})")
    return path
