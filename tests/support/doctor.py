"""A person's own home for `vault-recall doctor` and the launcher, and doctor's verdicts read
back from what it prints."""

from __future__ import annotations

from pathlib import Path

import pytest

from vault_recall.app.cli.main import main


def own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A person's home of its own: the clients' config files and XDG folders live there."""
    monkeypatch.setenv("HOME", str(tmp_path / "me"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "me/.config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "me/.local/share"))
    (tmp_path / "me").mkdir()
    return tmp_path / "me"


def checks(capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, str]]:
    code = main(["doctor"])
    lines = [line for line in capsys.readouterr().out.splitlines() if not line.startswith(" ")]
    return code, {
        line[6:].split()[0] + (" " + line[6:].split()[1] if line[6:].startswith("client") else ""): line[:4].strip()
        for line in lines
    }


def detail_of(capsys: pytest.CaptureFixture[str], what: str) -> tuple[str, str]:
    main(["doctor"])
    line = next(line for line in capsys.readouterr().out.splitlines() if line[6:].startswith(what + " "))
    return line[:4].strip(), line


def doctor_line(client: str, env: dict[str, str] | None = None) -> tuple[str, str, str]:
    """`vault-recall doctor` run as a process, as the person runs it (in `env`, default this
    process's): (ok | FAIL, the client's line, its fix line or '')."""
    import subprocess

    from tests.support.e2e import vault_recall_command

    done = subprocess.run(
        [*vault_recall_command(), "doctor"], capture_output=True, text=True, timeout=120, env=env, check=False
    )
    lines = done.stdout.splitlines()
    index = next((i for i, line in enumerate(lines) if line[6:].startswith(f"client {client} ")), None)
    assert index is not None, f"doctor has no line for {client}:\n{done.stdout}\n{done.stderr}"
    fix = lines[index + 1].strip() if index + 1 < len(lines) and lines[index + 1].startswith(" ") else ""
    return lines[index][:4].strip(), lines[index], fix
