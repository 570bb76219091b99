"""Where things are: the repository's root and the bundled sample vault, for every test and
benchmark (one place, whatever folder a test module sits in)."""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
SAMPLE_VAULT = REPO_ROOT / "assets" / "sample-vault"
