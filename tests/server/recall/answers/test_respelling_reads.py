"""A misspelt query word's correction (answers/respelling.py): the notes that cannot hold one
are read once, by the pass that ranks, and the answer is the one the passes made anew give."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.support.synthetic_vault import generate_realistic
from tests.support.vaults import write_vault
from vault_recall.server.recall.answers import recall_records, respelling
from vault_recall.server.recall.scope import Exposure, ExposureMode, Scope
from vault_recall.server.recall.subject_rules import SubjectRule, SubjectRules
from vault_recall.server.vault.folders import FolderChain


def opened(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How many times each note is opened from now on."""
    counted: Counter[str] = Counter()
    open_note = FolderChain.open_note

    def counting(self: FolderChain, path: str) -> int:
        counted[path] += 1
        return open_note(self, path)

    monkeypatch.setattr(FolderChain, "open_note", counting)
    return counted


def test_a_misspelt_query_reads_again_only_the_notes_that_could_hold_its_correction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes: dict[str, str | bytes] = {f"Field {n}.md": f"Irrigation runs at dawn on field {n}.\n" for n in range(12)}
    notes["Sprint.md"] = "The kanban board holds the sprint.\n"
    notes["Games.md"] = "Morning “card” games — at dawn ☀\n"  # not ASCII, but nothing folds to a letter
    notes["Cafe.md"] = "Le café: dawn.\n"  # 'é' folds to 'e', a letter of no gate of 'kanbam'
    notes["Ecole.md"] = "École: a board of kañban cards.\n"  # 'ñ' folds to 'n': could hold a gate
    vault = write_vault(tmp_path / "v", notes)
    scope = Scope(client="t", vault=vault, exposure=Exposure(mode="vault"))
    counted = opened(monkeypatch)
    result = recall_records.recall_context(scope, None, "kanbam board")
    assert {r["path"] for r in result["records"][:2]} == {"Sprint.md", "Ecole.md"}
    assert all("kanbam → kanban" in r["matched"] for r in result["records"][:2])
    # Read once, by the pass that ranks: no gate of 'kanbam' ('kan', 'bam') in them.
    assert {counted[f"Field {n}.md"] for n in range(12)} == {1}
    assert counted["Games.md"] == counted["Cafe.md"] == 1
    # Read again for the words a correction is taken from, to be measured with it, and as returned.
    assert counted["Sprint.md"] == counted["Ecole.md"] == 4


def test_a_query_spelled_right_is_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    notes: dict[str, str | bytes] = {f"Field {n}.md": f"Irrigation runs at dawn on field {n}.\n" for n in range(5)}
    notes["Sprint.md"] = "The kanban board holds the sprint.\n"
    vault = write_vault(tmp_path / "v", notes)
    scope = Scope(client="t", vault=vault, exposure=Exposure(mode="vault"))
    counted = opened(monkeypatch)
    result = recall_records.recall_context(scope, None, "kanban board")
    assert [r["path"] for r in result["records"]] == ["Sprint.md"]
    assert {counted[f"Field {n}.md"] for n in range(5)} == {1}
    assert counted["Sprint.md"] == 2  # and once more as returned


# Broken notes that hold the correction, the misspelling, or neither; notes not ASCII.
AROUND: dict[str, str | bytes] = {
    "Broken kanban.md": "---\naliases:\n- @kanban\n---\nthe kanban board, its properties broken\n",
    "Broken kanbam.md": "---\nstatus: archived\naliases: [@x\n---\nthe kanbam, archived and broken\n",
    "Broken other.md": "---\nkind: [event\n---\nnothing of it\n",
    "Kanban ñ.md": "---\nsubject: build-system\n---\nkañban, the board — déjà vu\n",
    "Sprint.md": "---\nsubject: build-system\ntags: [kanban]\n---\nThe board holds the sprint.\r\n",
    "Pesticides.md": "No pesticides on the east field.\n",
    "Deploy.md": "---\nsubject: build-system\n---\nDeploy latency is measured.\n",
}
QUERIES = (
    "kanbam board",
    "kanbam",
    "pestisides east",
    "deploy latncy",
    "latncy",
    "colour kanbam",
    "xqzvy flurbing",
)


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("respelling") / "v"
    generate_realistic(root, 200, seed=21)
    write_vault(root / "Around", AROUND)
    return root


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize(("mode", "subject"), [("vault", None), ("records", None), ("records", "build-system")])
def test_the_answer_is_that_of_the_passes_made_anew(
    vault: Path, query: str, mode: ExposureMode, subject: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = SubjectRules((SubjectRule("around", folder="Around"),), vault)
    scope = Scope(client="t", vault=vault, exposure=Exposure(mode=mode, rules=rules))
    asked = [recall_records.recall_context(scope, subject, query, budget=budget) for budget in (4096, 65536)]
    monkeypatch.setattr(respelling.Watch, "of", classmethod(lambda cls, ranked: None))  # nothing noted
    assert asked == [recall_records.recall_context(scope, subject, query, budget=budget) for budget in (4096, 65536)]
