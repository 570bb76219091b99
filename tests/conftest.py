from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.e2e import SAMPLE_VAULT
from tests.vaults import snapshot


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session", autouse=True)
def bundled_sample_vault_is_never_written() -> Iterator[None]:
    """Across the whole run (demo and every end-to-end test) the bundled vault stays as it was."""
    before = snapshot(SAMPLE_VAULT)
    yield
    assert snapshot(SAMPLE_VAULT) == before, "something wrote inside assets/sample-vault"
