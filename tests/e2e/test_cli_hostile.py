"""The command line with broken shared files: every command answers, in one sentence, and
never hangs or shows a traceback."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.support.e2e import vault_recall_command
from tests.support.parts import as_nobody_if_root
from tests.support.posix import make_fifo

pytestmark = pytest.mark.e2e


def run(home: Path, *args: str, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "VAULT_RECALL_HOME": str(home)}
    return subprocess.run(
        [*prefix, *vault_recall_command(), *args], capture_output=True, text=True, timeout=60, env=env, check=False
    )


def one_sentence(stderr: str) -> str:
    assert "Traceback" not in stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    return lines[0]


@pytest.mark.parametrize(("command", "code"), [(("activity",), 1), (("status",), 1), (("client", "list"), 0)])
def test_a_fifo_in_the_stores_place_is_reported_not_waited_on(
    tmp_path: Path, command: tuple[str, ...], code: int
) -> None:
    make_fifo(tmp_path / "activity.sqlite3")
    done = run(tmp_path, *command)  # timeout=60 in run(): a hang fails the test
    assert done.returncode == code
    assert "is not a regular file" in done.stdout + done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("command", [("activity",), ("status",), ("doctor",)])
def test_a_store_full_of_garbage_is_not_shown_as_no_activity(tmp_path: Path, command: tuple[str, ...]) -> None:
    (tmp_path / "activity.sqlite3").write_bytes(os.urandom(8192))
    done = run(tmp_path, *command)
    assert done.returncode == 1
    out = done.stdout + done.stderr
    assert "No activity yet" not in out and "writable" not in out
    assert "is not an SQLite database" in out and "Traceback" not in out


def test_activity_with_a_broken_config_says_so(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text('{"version": 1,\n', encoding="utf-8")
    done = run(tmp_path, "activity")
    assert done.returncode == 0
    assert "config.json, line" in one_sentence(done.stderr)


def test_install_into_json_nested_100000_deep_is_one_sentence_and_the_snippet(tmp_path: Path) -> None:
    deep = tmp_path / "mcp.json"
    deep.write_text('{"a":' * 100_000 + "1" + "}" * 100_000, encoding="utf-8")
    before = deep.read_bytes()
    done = run(tmp_path, "install", "cursor", "--config-file", str(deep))
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and "nests too deeply" in done.stderr
    assert '"mcpServers"' in done.stderr  # the snippet to paste instead
    assert deep.read_bytes() == before


def test_install_into_a_folder_it_cannot_write_is_one_sentence_and_the_snippet(world_readable_tmp: Path) -> None:
    locked = world_readable_tmp / "locked"
    locked.mkdir(mode=0o555)
    locked.chmod(0o555)
    home = world_readable_tmp / "home"
    home.mkdir(mode=0o777)
    home.chmod(0o777)
    prefix = tuple(as_nobody_if_root())
    done = run(home, "install", "cursor", "--config-file", str(locked / "mcp.json"), prefix=prefix)
    assert done.returncode == 1, done.stdout
    assert "Traceback" not in done.stderr and "Permission denied" not in done.stderr
    assert "cannot be written (permission denied)" in done.stderr
    assert json.loads(done.stderr.split("yourself:", 1)[1].rsplit("vault-recall:", 1)[0])["mcpServers"]
    assert not (locked / "mcp.json").exists()
