"""`vault-recall desktop install|uninstall`, and `vault-recall doctor` on broken setups (doctor
starting installed entries: tests/e2e/test_doctor_probes.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.doctor import checks, own_home
from tests.support.parts import need
from vault_recall.app.cli.doctor import run_checks
from vault_recall.app.cli.main import main
from vault_recall.app.desktop import launcher_entry
from vault_recall.app.state.config_store import save_config
from vault_recall.server.config.config_file import Config, VaultEntry, activity_path, config_path


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return own_home(tmp_path, monkeypatch)


def test_the_launcher_installs_an_entry_and_icons_and_uninstalls_cleanly(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["desktop", "install"]) == 0
    entry = home / ".local/share/applications/vault-recall.desktop"
    assert entry.is_file() and "Exec=" in entry.read_text(encoding="utf-8")
    assert " tray\n" in entry.read_text(encoding="utf-8")
    icons = sorted((home / ".local/share/icons/hicolor").glob("*/apps/vault-recall.png"))
    assert len(icons) == len(launcher_entry.ICON_SIZES)
    assert main(["desktop", "uninstall"]) == 0
    assert not entry.exists() and not list((home / ".local/share/icons/hicolor").glob("*/apps/vault-recall.png"))
    assert "Added Vault Recall to the applications menu" in capsys.readouterr().out


def test_the_launchers_entry_is_a_valid_desktop_entry(home: Path) -> None:
    need("desktop-file-validate")
    assert main(["desktop", "install"]) == 0
    entry = home / ".local/share/applications/vault-recall.desktop"
    done = subprocess.run(["desktop-file-validate", str(entry)], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout == "", done.stdout


def test_doctor_names_each_broken_link(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    save_config(Config(vaults=(VaultEntry("Gone", str(home / "missing")),), active_vault="Gone"))
    cursor = home / ".cursor/mcp.json"
    cursor.parent.mkdir(parents=True)
    cursor.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "vault-recall": {"command": "/nowhere/vault-recall", "args": ["serve", "--client", "cursor"]}
                }
            }
        )
    )
    activity_path().mkdir(parents=True)  # a folder where the store's file should be
    code, found = checks(capsys)
    assert code == 1
    assert (found["vault"], found["activity"], found["client cursor"]) == ("FAIL", "FAIL", "FAIL")
    config_path().write_text("{", encoding="utf-8")
    code, found = checks(capsys)
    assert code == 1 and found["config"] == "FAIL" and "vault" not in found


def test_doctor_says_when_the_tray_or_the_clipboard_cannot_work(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("vault_recall.app.cli.doctor_desktop.graphical_session", lambda: True)  # a tray is expected
    monkeypatch.setattr(
        "vault_recall.app.cli.doctor_desktop.tray_problem", lambda: "the tray menu needs PyGObject with GTK 3"
    )
    monkeypatch.setattr("vault_recall.app.cli.doctor_desktop.clipboard.copy_command", lambda: None)
    code = main(["doctor"])
    out = capsys.readouterr().out
    assert code == 1
    assert "FAIL  tray" in out and "PyGObject" in out
    assert "FAIL  clipboard" in out and "fix: install xclip (X11) or wl-clipboard (Wayland)" in out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a graphical session is told by DISPLAY on Linux")
def test_with_no_graphical_session_the_desktop_checks_are_one_note_not_failures(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server or an SSH session runs `serve` and `http` with no desktop: nothing is broken."""
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    desktop = [c for c in run_checks() if c.what in ("tray", "folder dialog", "clipboard")]
    assert [(c.what, c.ok, c.note) for c in desktop] == [("tray", True, True)]
    main(["doctor"])
    out = capsys.readouterr().out
    assert "note  tray" in out and "FAIL" not in out.split("note  tray")[1].split("\n")[0]
    assert "no graphical session here (neither DISPLAY nor WAYLAND_DISPLAY is set)" in out
    checked = [line[6:].split("  ")[0] for line in out.splitlines() if not line.startswith(" ")]
    assert "clipboard" not in checked and "folder dialog" not in checked, checked


def test_a_vault_with_no_records_is_told_the_rule_its_largest_folder_suggests(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = home / "Notes"
    for name in ("Projects/A.md", "Projects/B.md", "Projects/C.md", "Areas/D.md", "Areas/E.md", "Inbox.md"):
        (vault / name).parent.mkdir(parents=True, exist_ok=True)
        (vault / name).write_text("# A note\nplain text, no properties\n", encoding="utf-8")
    save_config(Config(vaults=(VaultEntry("Notes", str(vault)),), active_vault="Notes"))
    (check,) = [c for c in run_checks() if c.what == "vault"]
    assert not check.ok and "no note names a `subject` in its properties and no subject rule takes one" in check.detail
    assert check.fix.startswith("`vault-recall subject add projects --folder Projects` (3 notes), or see ")
    # Once a rule takes notes, the vault has records and nothing is to fix.
    assert main(["subject", "add", "projects", "--folder", "Projects"]) == 0
    (check,) = [c for c in run_checks() if c.what == "vault"]
    assert check.ok, check.detail


def test_a_vault_with_no_records_is_told_the_most_useful_rule_not_the_largest_folder(home: Path) -> None:
    # obsidian-hub's largest folder takes 3,535 of its 6,571 notes: no one thing to ask about.
    vault = home / "Notes"
    notes = {**{f"Everything/N{i}.md": "n" for i in range(30)}, **{f"Recipes/R{i}.md": "r" for i in range(6)}}
    for name, text in {**notes, **{f"Loose {i}.md": "l" for i in range(4)}}.items():
        (vault / name).parent.mkdir(parents=True, exist_ok=True)
        (vault / name).write_text(text, encoding="utf-8")
    save_config(Config(vaults=(VaultEntry("Notes", str(vault)),), active_vault="Notes"))
    (check,) = [c for c in run_checks() if c.what == "vault"]
    assert check.fix.startswith("`vault-recall subject add recipes --folder Recipes` (6 notes), or see ")


def test_a_vault_with_no_records_and_a_broken_note_is_told_both(home: Path) -> None:
    # A real vault has a few notes whose properties YAML cannot read (15 of obsidian-hub's
    # 6,571): having no records is still what keeps every client from recalling anything.
    vault = home / "Notes"
    (vault / "Projects").mkdir(parents=True)
    (vault / "Projects/A.md").write_text("# A note\nplain text\n", encoding="utf-8")
    (vault / "Projects/B.md").write_text("---\naliases: [unclosed\n---\nbroken properties\n", encoding="utf-8")
    save_config(Config(vaults=(VaultEntry("Notes", str(vault)),), active_vault="Notes"))
    (check,) = [c for c in run_checks() if c.what == "vault"]
    assert not check.ok and "0 records, 1 problem (see vault-recall health): no note names a `subject`" in check.detail
    assert check.fix.startswith("`vault-recall subject add projects --folder Projects`")
    assert main(["subject", "add", "projects", "--folder", "Projects"]) == 0
    (check,) = [c for c in run_checks() if c.what == "vault"]
    assert check.ok and check.detail.endswith("1 problem (see vault-recall health)"), check.detail


def test_a_vault_whose_only_record_is_broken_is_told_to_fix_it_not_to_add_a_subject(home: Path) -> None:
    vault = home / "Notes"
    vault.mkdir()
    (vault / "Plan.md").write_text("---\nsubject: launch\nstatus: Active\n---\nThe plan\n", encoding="utf-8")
    (vault / "Loose.md").write_text("plain\n", encoding="utf-8")
    save_config(Config(vaults=(VaultEntry("Notes", str(vault)),), active_vault="Notes"))
    (check,) = [c for c in run_checks() if c.what == "vault"]
    assert not check.ok and check.detail.endswith(
        "0 records, 1 problem: no record can be read — broken notes name a subject or a rule may take them, "
        "or a folder cannot be read"
    ), check.detail
    assert "subject suggest" not in check.fix and "vault-recall health" in check.fix
    # A tag rule whose one note is broken: that note is what to fix, too.
    (vault / "Plan.md").unlink()
    (vault / "Dune.md").write_text("---\ntags: [book\n---\n#book Dune\n", encoding="utf-8")
    assert main(["subject", "add", "books", "--tag", "book"]) == 0
    (check,) = [c for c in run_checks() if c.what == "vault"]
    assert not check.ok and "no record can be read" in check.detail, check.detail


def test_no_folder_dialog_is_a_note_not_a_thing_to_fix(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("vault_recall.app.cli.doctor_desktop.graphical_session", lambda: True)
    monkeypatch.setattr("vault_recall.app.cli.doctor_desktop.tray_problem", lambda: "no panel")  # no X server is asked
    monkeypatch.setattr("vault_recall.app.cli.doctor_desktop.folder_picker.can_pick_folder", lambda: False)
    (check,) = [c for c in run_checks() if c.what == "folder dialog"]
    assert check.ok and check.note
    main(["doctor"])
    out = capsys.readouterr().out
    assert "note  folder dialog" in out and "FAIL  folder dialog" not in out
    assert "the tray's menu copies the `vault-recall vault add` command instead" in out
    assert "tip: for a dialog, install xdg-desktop-portal-gtk or zenity" in out


def test_doctor_says_when_the_activity_store_could_not_be_made_and_makes_nothing(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = home / "state"
    blocker.write_text("a file where the state folder would go", encoding="utf-8")
    monkeypatch.setenv("VAULT_RECALL_HOME", str(blocker / "vault-recall"))
    main(["doctor"])
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line[6:].startswith("activity "))
    assert line.startswith("FAIL") and f"cannot be made: {blocker} is not a folder you may write in" in line, out
    assert f"fix: move {blocker} away: a folder goes there" in out, out
    assert blocker.is_file()
