from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.e2e import copy_sample_vault
from tests.support.paths import SAMPLE_VAULT
from tests.support.vaults import snapshot


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def vault_recall_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test (and every server it starts) gets its own empty config and state folder,
    never the real user's."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("VAULT_RECALL_HOME", str(home))
    return home


@pytest.fixture(scope="session", autouse=True)
def bundled_sample_vault_is_never_written() -> Iterator[None]:
    """Across the whole run (demo and every end-to-end test) the bundled vault stays as it was."""
    before = snapshot(SAMPLE_VAULT)
    yield
    assert snapshot(SAMPLE_VAULT) == before, "something wrote inside assets/sample-vault"


@pytest.fixture(scope="session")
def shared_sample(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One copy of the sample vault that every read-only end-to-end test recalls from; when
    the whole run is over, its file list, bytes and mtimes must be exactly as they were."""
    vault = copy_sample_vault(tmp_path_factory.mktemp("shared") / "Shared sample")
    before = snapshot(vault)
    yield vault
    assert snapshot(vault) == before, "a server process changed the vault it recalled from"


@pytest.fixture
def world_readable_tmp() -> Iterator[Path]:
    """A temporary folder another user ('nobody', for the tests that drop to it) can traverse:
    pytest's tmp_path is private to root."""
    folder = Path(tempfile.mkdtemp(prefix="vault-recall-test-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)
