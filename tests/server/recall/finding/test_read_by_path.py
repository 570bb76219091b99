"""read_note given a note's exact vault path reads that note without listing the vault; it
must answer exactly as resolving the argument on the whole vault did, in every exposure."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.depth import crossed
from tests.support.reference_tools import outcome, reference_read
from tests.support.tricky_names import scopes, tricky_names_vault
from tests.support.vaults import record, write_vault
from vault_recall.server.recall.answers import reading
from vault_recall.server.recall.finding import view
from vault_recall.server.recall.scope import Exposure, Scope
from vault_recall.server.vault.listing import list_notes


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tricky_names_vault(tmp_path_factory.mktemp("bypath"))


def exact_arguments(root: Path) -> list[str]:
    paths = list(list_notes(root).paths)
    chosen = [p for p in paths if not p.isascii() or "/" not in p] + paths[::6]
    return [*chosen, *(p.removesuffix(".md") for p in chosen), " " + chosen[0], chosen[0].upper()]


def test_read_note_by_exact_path_answers_as_the_whole_vault_index(vault: Path) -> None:
    # Every argument in every exposure under `ci`; a third of the pairs in the fast loop.
    for scope, argument in crossed(scopes(vault), exact_arguments(vault)):
        fast = outcome(reading.read_note, scope, argument, None, 16384)
        assert fast == outcome(reference_read, scope, argument, None, 16384), (scope.exposure.mode, argument)


def test_a_note_read_by_its_exact_path_needs_no_listing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_vault(
        tmp_path / "v",
        {
            "Projects/Build decision.md": record("build-system", "# We build with Bazel\n"),
            "Private/Plan.md": record("hiring", "# Hiring plan\n"),
            "Plain.md": "# No properties\n",
        },
    )
    records = Scope(client="t", vault=root, exposure=Exposure(mode="subjects", subjects=frozenset({"build-system"})))
    listings: list[Path] = []
    real = list_notes  # what view calls, before it is wrapped

    def counted(folder: Path) -> object:
        listings.append(folder)
        return real(folder)

    monkeypatch.setattr(view, "list_notes", counted)
    for argument in ("Projects/Build decision.md", "Projects/Build decision"):
        assert reading.read_note(records, argument)["path"] == "Projects/Build decision.md"
    assert listings == []
    # A note this client may not see, a name, a miss: the listing resolves them, as before.
    for argument in ("Private/Plan.md", "Plain.md", "Projects/Nowhere.md"):
        assert outcome(reading.read_note, records, argument, None, 16384).startswith("NoteNotFound")
    assert reading.read_note(records, "Build decision")["path"] == "Projects/Build decision.md"
    assert len(listings) == 4
