"""A number in a name or phrase rules notes out on their raw bytes before they are lowered; a
note that writes the number percent-encoded must still be found."""

from __future__ import annotations

from pathlib import Path

from tests.support.reference_tools import reference_backlinks, reference_search
from tests.support.vaults import record, write_vault
from vault_recall.server.recall.answers import search
from vault_recall.server.recall.answers.backlinks import get_backlinks
from vault_recall.server.recall.finding.text_prefilter import digits_in
from vault_recall.server.recall.scope import Exposure, Scope


def test_the_longest_run_of_three_digits_or_more_is_looked_for() -> None:
    assert digits_in(b"report 2024-03 v12") == b"2024"
    assert digits_in(b"no 12 numbers 34") == b""


def test_links_and_hits_that_spell_the_number_otherwise_are_found(tmp_path: Path) -> None:
    vault = write_vault(
        tmp_path / "v",
        {
            "Report 2024.md": record("build-system", "# Report 2024\n"),
            "Wiki.md": record("build-system", "[[Report 2024]]\n"),
            "Encoded blank.md": record("build-system", "[x](Report%202024.md)\n"),
            "Encoded digit.md": record("build-system", "[x](Report%20%32024.md)\n"),
            "Encoded all.md": "[x](%52eport%20%32%30%32%34.md)\n",
            "Other number.md": record("build-system", "[[Report 2025]] report 2025\n"),
            "Split number.md": record("build-system", "report 20 24\n"),
        },
    )
    for mode in ("records", "vault"):
        scope = Scope(client="t", vault=vault, exposure=Exposure(mode=mode))
        links = get_backlinks(scope, "Report 2024", 50, 16384)
        assert links == reference_backlinks(scope, "Report 2024", 50, 16384, 0)
        linking = {hit["path"] for hit in links["records"]}
        assert {"Wiki.md", "Encoded blank.md", "Encoded digit.md"} <= linking
        assert ("Encoded all.md" in linking) == (mode == "vault")
        for phrase in ("report 2024", "2024", "REPORT%202024"):
            assert search.search_notes(scope, phrase, 50, 16384) == reference_search(scope, phrase, 50, 16384, None)
