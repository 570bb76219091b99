"""The installed `vault-recall` console script, as a person runs it: help for every command, and
the status (not a traceback) where no tray can show."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.support.e2e import vault_recall_command

pytestmark = [pytest.mark.e2e]


def test_the_console_script_prints_help_for_every_command() -> None:
    for argv in (
        ["--help"],
        ["vault", "--help"],
        ["client", "expose", "--help"],
        ["activity", "--help"],
        ["health", "--help"],
        ["status", "--help"],
        ["serve", "--help"],
        ["demo", "--help"],
    ):
        done = subprocess.run([*vault_recall_command(), *argv], capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 0 and done.stdout.startswith("usage: vault-recall"), argv


def test_without_a_graphical_session_the_command_shows_the_status_instead_of_a_traceback() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    done = subprocess.run(vault_recall_command(), capture_output=True, text=True, env=env, timeout=60, check=False)
    assert done.returncode == 1
    assert "cannot show the tray: there is no graphical session" in done.stderr
    assert "Traceback" not in done.stderr and done.stdout.startswith("Config:")
