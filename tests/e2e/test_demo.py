"""`vault-recall demo` runs end to end and leaves the bundled sample vault untouched."""

from __future__ import annotations

import subprocess

import pytest

from tests.support.e2e import vault_recall_command
from tests.support.paths import SAMPLE_VAULT
from tests.support.vaults import snapshot

pytestmark = pytest.mark.e2e


def test_the_demo_passes_every_step_without_touching_the_sample_vault() -> None:
    before = snapshot(SAMPLE_VAULT)
    done = subprocess.run([*vault_recall_command(), "demo"], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert sum(line.startswith("PASS") for line in lines) == 11, done.stdout
    assert not any(line.startswith("FAIL") for line in lines)
    assert lines[-1] == "demo: all steps passed"
    assert snapshot(SAMPLE_VAULT) == before


def test_serve_refuses_a_bad_client_id_on_stderr_with_nothing_on_stdout() -> None:
    done = subprocess.run(
        [*vault_recall_command(), "serve", "--client", "Not Valid!"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert "client id 'Not Valid!' is not valid" in done.stderr
