"""search_notes tells, from a note's bytes, whether this client sees it and how many of its
lines hold the phrase, where its properties are of the plainest shape; it must answer exactly
as the search that read and kept every note, in every exposure, with every budget and limit —
and must really take that way for most notes, or the comparison proves nothing."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

from tests.support.depth import cases
from tests.support.reference_tools import reference_search
from tests.support.synthetic_vault import generate
from tests.support.tricky_notes import KELVIN, ODD, TRICKY
from tests.support.vaults import write_vault
from vault_recall.server.recall.answers import search
from vault_recall.server.recall.finding import scan
from vault_recall.server.recall.finding.looking import Looked, Verdict
from vault_recall.server.recall.packing import json_size
from vault_recall.server.recall.scope import Exposure, Scope
from vault_recall.server.vault.listing import VaultListing, list_notes


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("counted") / "v"
    generate(root, 120, seed=17, invalid=3)
    write_vault(root / "Tricky", TRICKY)
    write_vault(root / "Odd", ODD)
    write_vault(root / ".obsidian", {"templates.json": '{"folder": "Odd/Templates"}'})
    return root


def scopes(vault: Path) -> list[Scope]:
    return [
        Scope(client="t", vault=vault, exposure=Exposure(mode=mode, subjects=frozenset({"build-system"})))
        for mode in ("records", "subjects", "vault")
    ]


@pytest.mark.parametrize("subject", [None, "build-system"])
@pytest.mark.parametrize(
    "query",
    # Dashes alone may be on a properties block's '---' lines, which search does not look in.
    ["cache", "CACHE", "kelvin", KELVIN, "istanbul", "straße", '"quoted"', "x: 1", "2026-01", "zzz", "-", "---", "m-"],
)
def test_the_counted_search_answers_as_the_one_that_kept_every_note(
    vault: Path, query: str, subject: str | None
) -> None:
    for scope in scopes(vault):
        for limit, budget in cases(((20, 8192), (100, 65536), (3, 512), (50, 1500), (7, 2600))):
            found = search.search_notes(scope, query, limit, budget, subject)
            assert found == reference_search(scope, query, limit, budget, subject), (scope.exposure.mode, limit, budget)
            assert json_size(found) <= budget


T = TypeVar("T")


def test_most_notes_are_counted_from_their_bytes(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    looked: list[object] = []
    real = scan.each_looked_at

    def counting(root: Path, listing: VaultListing, look: Callable[[str, bytes], Verdict[T]]) -> Iterator[object]:
        for item in real(root, listing, look):
            looked.append(item)
            yield item

    monkeypatch.setattr(search, "each_looked_at", counting)
    notes = len(list_notes(vault).paths)
    for scope in scopes(vault):
        looked.clear()
        search.search_notes(scope, "cache")
        parsed = [item for item in looked if not isinstance(item, Looked)]
        assert len(parsed) < 0.35 * notes, scope.exposure.mode  # the tricky ones, mostly
