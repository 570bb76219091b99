"""`vault-recall subject add/list/remove/suggest`: rules kept in the config, never the vault."""

from __future__ import annotations

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
        },
    )
    assert run(capsys, "vault", "add", str(vault))[0] == 0
    before = snapshot(vault)
    code, out, _ = run(capsys, "subject", "suggest")
    assert code == 0 and "subject add reading --folder Reading" in out and "subject add book --tag book" in out
    code, out, _ = run(capsys, "subject", "add", "reading", "--folder", "Reading", "--tag", "book")
    assert code == 0 and "reading now takes 3 notes" in out
    rules = load_config().vault("Mine").subject_rules  # type: ignore[union-attr]
    assert [r.describe() for r in rules] == ["--folder Reading", "--tag book"]
    code, out, _ = run(capsys, "subject", "list")
    assert out.startswith("reading\t3 notes\t--folder Reading  --tag book")
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
