"""read_note and get_backlinks resolve names on an index that keeps no text and read notes
again as they need them; they must answer exactly as the versions that held every note."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.depth import cases, crossed
from tests.support.reference_tools import outcome, reference_backlinks, reference_read
from tests.support.synthetic_vault import generate
from tests.support.tricky_notes import TRICKY
from tests.support.vaults import write_vault
from vault_recall.server.recall.answers import reading
from vault_recall.server.recall.answers.backlinks import get_backlinks
from vault_recall.server.recall.scope import Exposure, ExposureMode, Scope


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("read") / "v"
    generate(root, 200, seed=9, invalid=5)
    write_vault(root / "Tricky", TRICKY)
    write_vault(root, {"Plain note.md": "# Plain\n\nno properties\n", "Other/Plain note.md": "# Second\n"})
    return root


def arguments(vault: Path) -> list[str]:
    """Paths and names of notes across the vault, and the arguments that make resolving hard."""
    notes = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md") if ".obsidian" not in p.parts)
    chosen = notes[::7] + [n.removesuffix(".md").rsplit("/", 1)[-1] for n in notes[::11]]
    return [*chosen, "Plain note", "Tricky/Broken ours", "Tricky/Quoted", "Missing", "../etc/passwd", "Cache note 3"]


@pytest.mark.parametrize("mode", ["records", "subjects", "vault"])
def test_read_note_answers_as_the_version_that_held_every_note(vault: Path, mode: ExposureMode) -> None:
    scope = Scope(client="t", vault=vault, exposure=Exposure(mode=mode, subjects=frozenset({"build-system"})))
    answered = 0
    chosen = cases(arguments(vault))  # every third in the fast loop (tests/support/depth.py)
    for argument in chosen:
        for section, budget in ((None, 16384), (None, 1024)):
            new = outcome(reading.read_note, scope, argument, section, budget)
            assert new == outcome(reference_read, scope, argument, section, budget), argument
            answered += isinstance(new, dict)
    assert answered * 4 > len(chosen)  # a good share are notes this client sees, not errors


@pytest.mark.parametrize("mode", ["records", "subjects", "vault"])
def test_backlinks_answer_as_the_version_that_held_every_note(vault: Path, mode: ExposureMode) -> None:
    scope = Scope(client="t", vault=vault, exposure=Exposure(mode=mode, subjects=frozenset({"build-system"})))
    linked = 0
    # Each argument with each page under `ci`; a third of them in the fast loop (depth.py).
    pages = ((50, 16384, 0), (1, 16384, 0), (2, 1024, 1))
    checked = crossed(arguments(vault)[:40], pages)
    for argument, (limit, budget, offset) in checked:
        new = outcome(get_backlinks, scope, argument, limit, budget, offset)
        assert new == outcome(reference_backlinks, scope, argument, limit, budget, offset), argument
        linked += isinstance(new, dict) and bool(new["records"])
    # Some answers hold links (4 of the 120 under `ci`); few links join the notes of one subject.
    assert linked * 30 >= len(checked) or mode == "subjects"
