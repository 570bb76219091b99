"""What every test shares: Hypothesis's two profiles, a config and state folder of its own, and
the checks that nothing wrote into the sample vault."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.support import head_start
from tests.support.depth import CI_EXAMPLES
from tests.support.e2e import copy_sample_vault
from tests.support.paths import SAMPLE_VAULT
from tests.support.vaults import snapshot

# Property tests run as many cases as the profile says, chosen by HYPOTHESIS_PROFILE: `ci` (the
# default, what `pytest -q` and CI run) tries 500 cases per test (tests/support/depth.py); `dev` tries 100, for the
# fast loop (tests/README.md), which also races and compares less (tests/support/depth.py).
# No deadline in either: a case's time depends on the machine's load, and the tests that care
# about time count work instead.  The health checks on how hard cases are to make are off (the
# generated vaults, property blocks and hostile paths are slow or picky to draw by design);
# those that flag a mistake in a test itself stay on.
PROFILE_ENV = "HYPOTHESIS_PROFILE"
PROFILES = {"ci": CI_EXAMPLES, "dev": 100}
SUPPRESSED = [
    HealthCheck.too_slow,
    HealthCheck.filter_too_much,
    HealthCheck.data_too_large,
    HealthCheck.large_base_example,
]
for _name, _examples in PROFILES.items():
    settings.register_profile(_name, max_examples=_examples, deadline=None, suppress_health_check=SUPPRESSED)
_chosen = os.environ.get(PROFILE_ENV, "ci")
if _chosen not in PROFILES:
    raise pytest.UsageError(f"{PROFILE_ENV} must be one of {', '.join(PROFILES)}; got {_chosen!r}")
settings.load_profile(_chosen)


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


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """How many processes `-n auto` (pyproject's default) starts: two, or one on a single core.
    Two is what the end-to-end and desktop tests (and the fast loop) were shown to pass with,
    their real servers, desktops and clients side by side (docs/benchmarks.md#the-test-loops);
    `-n N` or PYTEST_XDIST_AUTO_NUM_WORKERS chooses otherwise, `-n 0` runs everything in this
    process (as `--pdb` does by itself)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # pytest-xdist reads it
    return min(2, os.cpu_count() or 1)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the slow preparations of the selected tests now, beside the tests that run first
    (tests/support/head_start.py).  Not in a pytest-xdist worker (the default): every worker collects
    every test, and two would build the same bundle side by side (PyInstaller's --clean empties
    the cache the other is using); there the worker that runs such a test prepares it then."""
    if "PYTEST_XDIST_WORKER" in os.environ:
        return
    head_start.begin({item.module.__name__ for item in session.items if isinstance(item, pytest.Function)}, os.environ)
