"""read_note, search_notes and get_backlinks read only what can matter (names on the listing,
byte tests before parsing, links resolved among the notes sharing the target's name); on a
vault full of the cases that make those shortcuts hard, in every exposure, they must answer
exactly as the versions that read and held every note (tests/support/reference_tools.py).
The vault is tests/support/tricky_names.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.depth import cases
from tests.support.reference_tools import outcome, reference_backlinks, reference_read, reference_search
from tests.support.tricky_names import KELVIN, NFC, NFD, scopes, tricky_names_vault
from vault_recall.server.recall.answers import reading, search
from vault_recall.server.recall.answers.backlinks import get_backlinks
from vault_recall.server.recall.scope import Exposure, Scope


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tricky_names_vault(tmp_path_factory.mktemp("fastpaths"))


NOTE_ARGUMENTS = [
    NFC,
    NFD,
    "café",
    "CAFÉ",
    f"Names/{NFC}",
    f"Names/{NFD}.md",
    f"Sub/{NFC}",
    "Kelvin notes",
    f"{KELVIN}elvin notes",
    "kelvin NOTES",
    "Straße",
    "strasse",
    "C# notes",
    "C# notes#Heading",
    "Pl   an",
    "Plan",
    "Plan#Heading",
    "[[Plan|shown]]",
    "Dup",
    "Shared/Dup",
    "Private/Dup",
    "Bazel decision",
    "Kelvin alias",
    "Links/Too large",
    "Links/Latin-1",
    "Links/Broken",
    "Broken no link",
    "Templates/Excluded",
    "Excluded",
    ".hidden/Hidden",
    "Hidden",
    "Names/Linked",
    "Linked",
    "Linked folder/Secret",
    "Secret",
    "Tricky/Broken ours",
    "Unreadable",
    "../outside/Secret",
    "Nowhere at all",
]


@pytest.mark.parametrize("argument", cases(NOTE_ARGUMENTS))  # a third in the fast loop
def test_read_note_on_the_listing_answers_as_the_whole_vault_index(vault: Path, argument: str) -> None:
    for scope in scopes(vault):
        for budget in (16384, 1024):
            fast = outcome(reading.read_note, scope, argument, None, budget)
            assert fast == outcome(reference_read, scope, argument, None, budget), (scope.exposure.mode, budget)


@pytest.mark.parametrize("argument", cases(NOTE_ARGUMENTS))  # a third in the fast loop
def test_backlinks_from_the_notes_that_name_the_target_answer_as_every_note(vault: Path, argument: str) -> None:
    for scope in scopes(vault):
        fast = outcome(get_backlinks, scope, argument, 200, 65536, 0)
        assert fast == outcome(reference_backlinks, scope, argument, 200, 65536, 0), scope.exposure.mode


def test_the_tricky_links_are_found_at_all(vault: Path) -> None:
    # The equivalence above would hold for a tool that found nothing: these must be found.
    everything = Scope(client="t", vault=vault, exposure=Exposure(mode="vault"))
    links = get_backlinks(everything, f"Names/{NFC}", 200, 65536)
    lines = {(hit["path"], hit["line"]) for hit in links["records"]}
    assert ("Links/Plain links.md", 3) in lines and ("Links/Plain links.md", 4) in lines
    assert ("Links/All links.md", 3) in lines  # the property's own line
    assert {"Links/CRLF.md", "Links/BOM.md", "Links/Long line.md"} <= {path for path, _ in lines}
    assert {p["path"] for p in links["problems"]} >= {"Links/Too large.md", "Links/Latin-1.md", "Links/Broken.md"}
    assert "Links/Broken no link.md" not in {p["path"] for p in links["problems"]}
    # Line 11: inline code blanked out inside a link makes it name 'Pl   an'.
    masked = get_backlinks(everything, "Pl   an", 200, 65536)
    assert [hit["line"] for hit in masked["records"] if hit["path"] == "Links/Plain links.md"] == [11]
    # Line 12: an escaped bar; line 13: a percent-encoded letter in a markdown link.
    plan = get_backlinks(everything, "Names/Plan", 200, 65536)
    assert [hit["line"] for hit in plan["records"] if hit["path"] == "Links/Plain links.md"] == [12, 13]
    assert [hit["line"] for hit in plan["records"] if hit["path"] == "Links/Encoded.md"] == [3]
    assert "Links/Encoded broken.md" in {p["path"] for p in links["problems"]}
    excluded = get_backlinks(everything, "Excluded", 200, 65536)
    assert excluded["note"] == "Visible/Excluded.md"
    assert [(hit["path"], hit["line"]) for hit in excluded["records"]] == [("Links/To excluded.md", 2)]
    straße = get_backlinks(everything, "Straße", 200, 65536)
    assert [hit["line"] for hit in straße["records"] if hit["path"] == "Links/Plain links.md"] == [14]


PHRASES = ["cache", "CAFÉ", NFD, "kelvin", KELVIN, "secret", "istanbul", "İstanbul", "strasse", "ß", "[[café]]", "zzz"]


@pytest.mark.parametrize("phrase", cases(PHRASES))
@pytest.mark.parametrize("subject", [None, "build-system"])
def test_search_after_the_byte_test_answers_as_every_note(vault: Path, phrase: str, subject: str | None) -> None:
    for scope in scopes(vault):
        fast = search.search_notes(scope, phrase, 100, 65536, subject)
        assert fast == reference_search(scope, phrase, 100, 65536, subject), scope.exposure.mode


def test_the_tricky_phrases_are_found_at_all(vault: Path) -> None:
    everything = Scope(client="t", vault=vault, exposure=Exposure(mode="vault"))

    def paths(phrase: str) -> set[str]:
        return {hit["path"] for hit in search.search_notes(everything, phrase, 100, 65536)["records"]}

    assert f"Names/{KELVIN}elvin notes.md" in paths("kelvin")  # the Kelvin sign is a K
    assert "Names/Kelvin notes.md" in paths("secret")  # the long s is an s
    assert "Names/Kelvin notes.md" in paths("istanbul")  # İ is an i
    assert "Links/Long line.md" in paths("cache") and "Links/CRLF.md" in paths("cache")
    found = search.search_notes(everything, "cache", 100, 65536)
    assert "Links/Too large.md" in {p["path"] for p in found["problems"]}
    assert not any("Secret" in path or "Excluded" in path or "Hidden" in path for path in paths("secret"))
