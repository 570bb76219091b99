"""Every documented command, run as a subprocess in a fresh home, prints its output whatever
the console's encoding: under cp1252 (a Windows console piped) none shows a traceback, and what
the code page lacks ("→", emoji) comes out as a backslash escape (app/cli/main.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli_walk import APP_NAME, walk

pytestmark = pytest.mark.e2e


def test_every_command_survives_a_cp1252_console(tmp_path: Path) -> None:
    ran = walk(tmp_path, cp1252=True, windows=False)
    assert [f"{' '.join(each.argv)}: {each.problem}\n{each.err}" for each in ran if each.problem] == []
    by_command = {each.argv: each for each in ran}
    # The arrow the list of clients shows, escaped; the grant for an app named with an emoji is
    # made and said, and the command succeeds (it used to crash after the grant, exit 1).
    assert "Settings \\u2192 Tools" in by_command[("snippet", "--list")].out
    approved = next(each for each in ran if each.argv[:2] == ("client", "approve"))
    assert approved.code == 0 and APP_NAME.encode("cp1252", "backslashreplace").decode("cp1252") in approved.out
    assert by_command[("demo",)].code == 0, by_command[("demo",)].out
