"""The headless desktop every test of this tier starts from (tests/support/headless.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.headless import Desktop, headless_desktop


@pytest.fixture
def desktop(tmp_path: Path, vault_recall_home: Path) -> Iterator[Desktop]:
    with headless_desktop(tmp_path, vault_recall_home) as session:
        yield session
