"""The management CLI: each command, its errors as one sentence, its exit codes."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import pytest

from tests.support.activity_events import store_events
from tests.support.paths import SAMPLE_VAULT
from tests.support.vaults import write_vault
from vault_recall.app.cli.main import main
from vault_recall.app.tray.menu.snapshot import ensure_a_vault
from vault_recall.server.activity.events import ActivityEvent
from vault_recall.server.config.config_file import activity_path, config_path, load_config


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def two_vaults(tmp_path: Path) -> tuple[Path, Path]:
    work = write_vault(tmp_path / "Work", {".obsidian/app.json": "{}", "A.md": "a"})
    home = write_vault(tmp_path / "Home", {".obsidian/app.json": "{}", "B.md": "b"})
    return work, home


def test_vault_languages_shows_and_sets_a_vault_s_languages(
    capsys: pytest.CaptureFixture[str], two_vaults: tuple[Path, Path]
) -> None:
    work, _ = two_vaults
    run(capsys, "vault", "add", str(work))
    assert run(capsys, "vault", "languages", "Work")[1] == "Work: english\n"
    code, out, _ = run(capsys, "vault", "languages", "Work", "German", "english")
    assert code == 0 and "Work: recall now matches words in german, english" in out
    assert load_config().vault("Work").languages == ("german", "english")  # type: ignore[union-attr]
    code, _, err = run(capsys, "vault", "languages", "Work", "klingon")
    assert code == 1 and "'klingon' is not a language recall knows; use one of: english, german" in err
    assert "\n" not in err.strip()
    code, _, err = run(capsys, "vault", "languages", "Nope", "german")
    assert code == 1 and "there is no vault named 'Nope'" in err
    assert load_config().vault("Work").languages == ("german", "english")  # type: ignore[union-attr]


def test_vault_add_use_list_remove(capsys: pytest.CaptureFixture[str], two_vaults: tuple[Path, Path]) -> None:
    work, home = two_vaults
    assert run(capsys, "vault", "add", str(work))[0] == 0
    code, out, _ = run(capsys, "vault", "add", str(home), "--name", "Personal")
    assert code == 0 and "Added vault 'Personal'" in out and "now active" not in out
    assert load_config().active_vault == "Work"  # the first vault added becomes active
    assert run(capsys, "vault", "use", "Personal")[0] == 0
    assert load_config().active_vault == "Personal"
    _, out, _ = run(capsys, "vault", "list")
    assert "* Personal" in out and "  Work" in out
    assert run(capsys, "vault", "remove", "Personal")[0] == 0
    assert load_config().active_vault == "Work"
    assert home.is_dir() and (home / "B.md").exists()  # removing forgets, never deletes


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["vault", "add", "/no/such/folder"], "/no/such/folder is not a folder"),
        (["vault", "use", "Nope"], "there is no vault named 'Nope'"),
        (["vault", "remove", "Nope"], "there is no vault named 'Nope'"),
        (["client", "add", "Bad Id"], "client id 'Bad Id' is not valid"),
        (["client", "expose", "cursor", "Not-A-Slug!"], "is not a subject slug, nor 'records' or 'vault'"),
        (["client", "add", "zed", "--vault", "Nope"], "there is no vault named 'Nope'"),
        (["vault", "add", "/"], "this vault needs a name: give one with --name"),
        (["client", "expose", "zed", "records", "vault"], "'records' and 'vault' stand alone"),
    ],
)
def test_errors_are_one_sentence_and_exit_1(capsys: pytest.CaptureFixture[str], argv: list[str], words: str) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 1 and out == ""
    assert err.startswith("vault-recall: ") and words in err
    assert err.count("\n") == 1
    assert not config_path().exists()  # nothing written


def test_adding_a_vault_twice_is_refused(capsys: pytest.CaptureFixture[str], two_vaults: tuple[Path, Path]) -> None:
    work, _ = two_vaults
    run(capsys, "vault", "add", str(work))
    code, _, err = run(capsys, "vault", "add", str(work), "--name", "Again")
    assert code == 1 and "is added already" in err
    code, _, err = run(capsys, "vault", "add", str(two_vaults[1]), "--name", "Work")
    assert code == 1 and "a vault named 'Work' exists already" in err
    # Its own folder under its own name: the folder is what was added already, not the name.
    code, _, err = run(capsys, "vault", "add", str(work))
    assert code == 1 and err == f"vault-recall: {work} is added already, as 'Work' (vault-recall vault use Work)\n"


def test_a_folder_without_obsidian_is_added_with_one_note_and_a_refused_one_says_only_why(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    plain = write_vault(tmp_path / "Plain", {"A.md": "a"})
    code, out, err = run(capsys, "vault", "add", str(plain))
    assert code == 0 and out.startswith("Added vault 'Plain'")
    assert err == f"note: {plain} has no .obsidian folder; is it an Obsidian vault?\n"
    code, out, err = run(capsys, "vault", "add", str(plain), "--name", "Again")
    assert code == 1 and out == "" and err.count("\n") == 1 and "is added already" in err  # no "added" note


def test_removing_a_vault_a_client_uses_is_refused(
    capsys: pytest.CaptureFixture[str], two_vaults: tuple[Path, Path]
) -> None:
    run(capsys, "vault", "add", str(two_vaults[0]))
    run(capsys, "client", "add", "zed", "--vault", "Work")
    code, _, err = run(capsys, "vault", "remove", "Work")
    assert code == 1 and "client 'zed' uses vault 'Work'" in err


def test_client_add_expose_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "client", "add", "cursor")[0] == 0
    assert run(capsys, "client", "expose", "cursor", "build-system", "release-process")[0] == 0
    assert load_config().client("cursor").exposure == ("build-system", "release-process")  # type: ignore[union-attr]
    assert run(capsys, "client", "expose", "zed", "vault")[0] == 0  # registers it on the way
    assert load_config().client("zed").exposure == "vault"  # type: ignore[union-attr]
    _, out, _ = run(capsys, "client", "list")
    assert "cursor\tvault: active\tsees: records of build-system, release-process\tno calls yet" in out
    assert "zed" in out and "every note of the vault" in out
    code, _, err = run(capsys, "client", "add", "cursor")
    assert code == 1 and "is registered already" in err


def test_expose_notes_a_subject_the_vault_has_no_note_or_rule_for(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    work = write_vault(
        tmp_path / "Work",
        {"Build.md": "---\nsubject: build-system\n---\nWe build with Bazel.\n", "Ops/Deploy.md": "Argo.\n"},
    )
    run(capsys, "vault", "add", str(work))
    run(capsys, "subject", "add", "ops", "--folder", "Ops")
    code, out, err = run(capsys, "client", "expose", "cursor", "build-sytem", "ops", "build-system", "later")
    # Kept as asked (a subject may be shared before its first note), each unknown one noted.
    assert code == 0 and "now sees: records of build-sytem, ops, build-system, later" in out
    assert load_config().client("cursor").exposure == ("build-sytem", "ops", "build-system", "later")  # type: ignore[union-attr]
    assert err.splitlines() == [
        "note: vault 'Work' has no subject 'build-sytem' yet (did you mean 'build-system'? 'cursor' sees its "
        "records once a note's properties or a subject rule name it)",
        "note: vault 'Work' has no subject 'later' yet ('cursor' sees its records once a note's properties or a "
        "subject rule name it)",
    ]
    code, _, err = run(capsys, "client", "expose", "cursor", "ops", "build-system")
    assert code == 0 and err == ""


def test_every_command_reports_a_broken_config_and_leaves_it(capsys: pytest.CaptureFixture[str]) -> None:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"version": 1,\n "vaults": [}', encoding="utf-8")
    before = path.read_bytes()
    for argv in (
        ["vault", "list"],
        ["vault", "add", str(SAMPLE_VAULT)],
        ["client", "expose", "x", "vault"],
        ["client", "list"],
        ["status"],
    ):
        code, out, err = run(capsys, *argv)
        assert code == 1, argv
        assert f"{path}, line 2: is not valid JSON" in err + out, argv
    assert path.read_bytes() == before


def test_discover_lists_obsidians_vaults(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    listing = tmp_path / "xdg/obsidian/obsidian.json"
    listing.parent.mkdir(parents=True)
    listing.write_text(
        json.dumps({"vaults": {"abc": {"path": str(SAMPLE_VAULT), "ts": 1}, "def": {"path": "/gone/Old", "ts": 2}}}),
        encoding="utf-8",
    )
    code, out, _ = run(capsys, "vault", "discover")
    assert code == 0
    assert "Old\t/gone/Old   (folder not found)" in out
    assert f"sample-vault\t{SAMPLE_VAULT}" in out


def test_health_exits_0_when_healthy_1_when_degraded_2_when_unavailable(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert run(capsys, "health", "--vault", str(SAMPLE_VAULT))[0] == 0
    broken = write_vault(tmp_path / "b", {"X.md": "---\nsubject: s\nsubject: s\n---\n"})
    code, out, _ = run(capsys, "health", "--vault", str(broken))
    assert code == 1 and "X.md, line 3: property 'subject' is defined twice" in out
    code, out, _ = run(capsys, "health", "--vault", str(tmp_path / "none"), "--json")
    assert code == 2 and json.loads(out)["status"] == "unavailable"
    assert run(capsys, "health")[0] == 2  # nothing configured


def test_status_on_one_screen(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        run(capsys, "vault", "add", str(SAMPLE_VAULT))[1]
        == f"Added vault 'sample-vault' ({SAMPLE_VAULT}), now active\n"
    )
    run(capsys, "client", "add", "cursor")
    code, out, _ = run(capsys, "status")
    assert code == 0
    assert "* sample-vault" in out and "health: sample-vault — 10 notes, 7 records, no problems" in out
    assert "cursor: vault active, sees memory records of every subject; no calls" in out

    # One call is "1 call", not "1 calls"; two are "2 calls".
    for count in (1, 2):
        event = ActivityEvent(client="cursor", tool="list_subjects", duration_ms=1, ts=time.time() - 60, vault="x")
        assert store_events(activity_path(), event)
        out = run(capsys, "status")[1]
        calls = "1 call," if count == 1 else "2 calls,"
        assert f"cursor: vault active, sees memory records of every subject; {calls} last " in out


def test_status_says_the_trays_notices_in_the_same_sentences(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    build = "---\nsubject: build\n---\nWe build with Make.\n"
    work = write_vault(
        tmp_path / "Work",
        {"Build with Bazel.md": build, "Ops/Deploy.md": "---\nsubject: ops\ntags: [k8s, argo\nowner: me\n---\n"},
    )
    run(capsys, "vault", "add", str(work))
    run(capsys, "pause")
    given = hashlib.sha256(build.encode()).hexdigest()
    event = ActivityEvent(client="cursor", tool="recall_context", duration_ms=1, ts=time.time() - 60, vault="Work")
    assert store_events(
        activity_path(), event.__class__(**{**event.__dict__, "returned": (("Build with Bazel.md", given),)})
    )
    (work / "Build with Bazel.md").write_text(build.replace("Make", "Bazel"), encoding="utf-8")
    code, out, _ = run(capsys, "status")
    notices = out.split("Notices:\n", 1)[1].split("Clients:", 1)[0].splitlines()
    assert code == 0 and notices == [
        "  Recall is paused: clients get 'unavailable' — resume: vault-recall resume",
        "  Ops/Deploy.md — line 3: property 'tags' is not valid YAML: its '[' is never closed with ']'",
        "  Cursor recalled the old 'Build with Bazel' today. Cursor is told on its next call that it changed, and "
        "asked to read it again; a new conversation gets the new version anyway. Nothing for you to do.",
    ]


def test_status_on_a_vault_with_no_records_names_subject_suggest_not_only_editing_notes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    notes = write_vault(tmp_path / "Notes", {"Projects/A.md": "plain", "Projects/B.md": "plain"})
    added = run(capsys, "vault", "add", str(notes))[1]
    assert added.splitlines()[1] == (
        "None of its 2 notes is a memory record yet: `vault-recall subject suggest` proposes subjects from its "
        "folders, tags and properties, kept in Vault Recall's config (your notes are not edited)"
    )
    out = run(capsys, "status")[1]
    assert "  No memory records yet: `vault-recall subject suggest` proposes subjects from your folders" in out
    assert "(your notes are not edited)" in out
    (notes / "Projects/C.md").write_text("---\ntags: [unclosed\n---\n", encoding="utf-8")  # some notes are broken
    out = run(capsys, "status")[1]
    assert "  No memory records yet: `vault-recall subject suggest`" in out and "Projects/C.md" in out
    (notes / "Projects/D.md").write_text("---\nsubject: launch\nstatus: Active\n---\n", encoding="utf-8")
    out = run(capsys, "status")[1]  # a record, broken: its problem is the notice, not "no records"
    assert "No memory records yet" not in out and "Projects/D.md" in out
    (notes / "Projects/D.md").unlink()
    run(capsys, "subject", "add", "projects", "--folder", "Projects")
    assert "No memory records yet" not in run(capsys, "status")[1]


def test_status_on_the_sample_vault_names_the_vault_obsidian_has_open(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    mine = write_vault(tmp_path / "My Work", {"A.md": "a"})
    (tmp_path / "xdg/obsidian").mkdir(parents=True)
    vaults = {"vaults": {"1": {"path": str(mine), "ts": 1_700_000_000_000, "open": True}}}
    (tmp_path / "xdg/obsidian/obsidian.json").write_text(json.dumps(vaults), encoding="utf-8")
    ensure_a_vault()  # the tray's first run: the sample vault
    _, out, _ = run(capsys, "status")
    assert f"  This is the sample vault: example notes, not yours; use yours: vault-recall vault add '{mine}'" in out
    assert "  health: Sample vault — 10 notes, 7 records, no problems" in out  # as the tray's first line


def test_status_tells_a_vanished_vault_as_the_tray_does_once_with_its_recalled_notes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    notes = {f"N{n}.md": f"---\nsubject: build\n---\nNote {n}.\n" for n in range(3)}
    work = write_vault(tmp_path / "Work", notes)
    run(capsys, "vault", "add", str(work))
    for path, text in notes.items():
        given = hashlib.sha256(text.encode()).hexdigest()
        event = ActivityEvent(client="cursor", tool="recall_context", duration_ms=1, ts=time.time() - 60, vault="Work")
        assert store_events(activity_path(), event.__class__(**{**event.__dict__, "returned": ((path, given),)}))
    work.rename(tmp_path / "Work-moved")
    code, out, _ = run(capsys, "status")
    notices = out.split("Notices:\n", 1)[1].split("Clients:", 1)[0].splitlines()
    # The tray's notification (news/vault_health.py:unreadable_news), the menu's click as a command.
    assert code == 0 and notices == [
        f"  Work cannot be read. Vault folder {work} does not exist. It took with it the 3 notes clients "
        "recalled in the last day. Until it can be read again, clients get 'unavailable'. Put the folder back "
        "(or plug its disk in), or choose another vault with vault-recall vault use NAME.",
    ]
