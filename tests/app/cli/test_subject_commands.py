"""`vault-recall subject add/list/remove/suggest`: rules kept in the config, never the vault."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.vaults import snapshot, write_vault
from vault_recall.app.cli.main import main
from vault_recall.server.config.config_file import load_config


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_add_list_remove_and_suggest(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    vault = write_vault(
        tmp_path / "Mine",
        {
            "Reading/A.md": "one #book\n",
            "Reading/B.md": "two #book\n",
            "Reading/C.md": "three #book/sci-fi\n",
            "Work/D.md": "four\n",
            "Work/E.md": "five\n",
            "Work/F.md": "six #book\n",  # the tag is not the folder's notes under another name
        },
    )
    assert run(capsys, "vault", "add", str(vault))[0] == 0
    before = snapshot(vault)
    code, out, _ = run(capsys, "subject", "suggest")
    assert code == 0 and "subject add reading --folder Reading" in out and "subject add book --tag book" in out
    code, out, _ = run(capsys, "subject", "add", "reading", "--folder", "Reading", "--tag", "book")
    assert code == 0 and "reading now takes 4 notes" in out
    rules = load_config().vault("Mine").subject_rules  # type: ignore[union-attr]
    assert [r.describe() for r in rules] == ["--folder Reading", "--tag book"]
    code, out, _ = run(capsys, "subject", "list")
    assert out.startswith("reading\t4 notes\t--folder Reading  --tag book")
    assert run(capsys, "subject", "remove", "reading", "--tag", "book")[0] == 0
    assert [r.describe() for r in load_config().vault("Mine").subject_rules] == ["--folder Reading"]  # type: ignore[union-attr]
    assert snapshot(vault) == before  # the vault is never written


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["subject", "add", "Bad", "--folder", "Reading"], "'Bad' is not a subject slug"),
        (["subject", "add", "x", "--folder", "Nope"], "has no folder 'Nope'"),
        (["subject", "add", "x"], "say which notes"),
        (["subject", "add", "x", "--property", "categories"], "must be NAME=VALUE"),
        (["subject", "add", "x", "--folder", "../up"], "inside the vault"),
        (["subject", "remove", "zzz"], "has no rule for subject 'zzz'"),
        (["subject", "list", "--vault", "nope"], "there is no vault named 'nope'"),
    ],
)
def test_bad_arguments_are_one_sentence_and_change_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], words: str
) -> None:
    vault = write_vault(tmp_path / "Mine", {"Reading/A.md": "one\n"})
    run(capsys, "vault", "add", str(vault))
    before = load_config()
    code, _, err = run(capsys, *argv)
    assert code == 1 and words in err and err.count("\n") == 1
    assert load_config() == before


def test_suggest_says_when_every_proposal_is_already_a_rule(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "Mine", {"Reading/A.md": "one\n", "Reading/B.md": "two\n"})
    assert run(capsys, "vault", "add", str(vault))[0] == 0
    assert run(capsys, "subject", "add", "reading", "--folder", "Reading")[0] == 0
    code, out, _ = run(capsys, "subject", "suggest")
    # Before: "no folder, tag or list property shared by enough notes".
    assert (
        code == 0
        and out
        == "Every rule proposed for vault 'Mine' is already one of its rules "
        "(`vault-recall subject list` shows them).\n"
    )


def test_daily_notes_taking_nothing_says_why(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    settings = {".obsidian/daily-notes.json": json.dumps({"folder": "Journal/Daily", "format": "YYYY-MM-DD"})}
    vault = write_vault(tmp_path / "Mine", {**settings, "A.md": "a\n"})
    assert run(capsys, "vault", "add", str(vault))[0] == 0
    code, out, _ = run(capsys, "subject", "add", "days", "--daily-notes")
    assert code == 0 and "days now takes 0 notes of vault 'Mine'" in out
    assert "its daily notes' folder 'Journal/Daily'" in out and "does not exist yet" in out
    (vault / "Journal/Daily").mkdir(parents=True)
    (vault / "Journal/Daily/Monday.md").write_text("not a date\n", encoding="utf-8")
    code, out, _ = run(capsys, "subject", "add", "days", "--daily-notes")
    assert "no note in folder 'Journal/Daily/' is named as a date in the daily notes' format 'YYYY-MM-DD'" in out
    (vault / "Journal/Daily/2026-03-02.md").write_text("a day\n", encoding="utf-8")
    code, out, _ = run(capsys, "subject", "add", "days", "--daily-notes")
    assert out.rstrip().endswith("days now takes 1 note of vault 'Mine' — from every client's next call")
