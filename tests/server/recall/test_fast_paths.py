"""read_note, search_notes and get_backlinks read only what can matter (names on the listing,
byte tests before parsing, links resolved among the notes sharing the target's name); on a
vault full of the cases that make those shortcuts hard, in every exposure, they must answer
exactly as the versions that read and held every note (tests/support/reference_tools.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support.reference_tools import outcome, reference_backlinks, reference_read, reference_search
from tests.support.synthetic_vault import generate
from tests.support.tricky_notes import TRICKY
from tests.support.vaults import record, write_vault
from vault_recall.server.recall import reading, search
from vault_recall.server.recall.backlinks import get_backlinks
from vault_recall.server.recall.scope import Exposure, Scope

NFC, NFD = "Caf\u00e9", "Cafe\u0301"
KELVIN = "\u212a"  # folds (NFC, then casefold) to 'k'; re.IGNORECASE matches it with 'k'
BIG = 1024 * 1024 + 10

LINKS = f"""# Links of every kind

[[{NFC}]] and [[{NFD}]] and [[CAFÉ|shown]] and [[caf\u00c9#Heading]]
[md](Caf%C3%A9.md) and [angled](<{NFC}.md>) and [rel](./Sub/{NFC}.md) and [[../Names/{NFC}]]
`[[{NFC}]]` is code, and so is this:

```
[[Plan]] [[{NFC}]]
```

[[Pl`x`an]] blanks the code out
[[Plan\\|shown]] escapes the bar
[x](%50lan.md) encodes a letter
[[{KELVIN}elvin notes]] and [[kelvin NOTES]] and [[Stra\u00dfe]] and [[STRASSE]]
[[C# notes]] [[Dup]] [[Bazel decision]] [[Shared/Dup]] [[Sub/{NFC}]]
"""

NOTES: dict[str, str | bytes] = {
    f"Names/{NFC}.md": record("build-system", "Café, the NFC one: cache and caching.\n"),
    f"Names/{NFD}.md": record("build-system", "Café, the NFD one.\n"),
    f"Names/Sub/{NFC}.md": record("hiring", "Another café, deeper.\n"),
    f"Names/{KELVIN}elvin notes.md": record("build-system", "Kelvin sign in the name; \u212aelvin in the text.\n"),
    "Names/Kelvin notes.md": "# Plain kelvin\n\nkelvin in plain text; ſecret with a long s; İstanbul.\n",
    "Names/Stra\u00dfe.md": record("build-system", "Straße und STRASSE.\n"),
    "Names/C# notes.md": record("build-system", "A name with a hash.\n"),
    "Names/Pl   an.md": record("build-system", "A name that masked code makes.\n"),
    "Names/Plan.md": record("build-system", "The plan.\n"),
    "Shared/Dup.md": record("build-system", "Shared duplicate.\n"),
    "Private/Dup.md": record("hiring", "Private duplicate: [[Café]] [[Shared/Dup]].\n"),
    "Aliased.md": record("build-system", "An aliased record.\n", aliases="[Bazel decision, Kelvin alias]"),
    "Links/All links.md": record("build-system", LINKS, related='"[[Café]]"'),
    "Links/Plain links.md": LINKS,
    "Links/CRLF.md": record("build-system", "cache [[Café]] line\n").replace("\n", "\r\n"),
    "Links/BOM.md": "\ufeff" + record("build-system", "cache [[Café]] line\n"),
    "Links/Long line.md": record("build-system", "x" * 300_000 + " cache [[Café]] " + "y" * 300_000 + "\n"),
    "Links/Too large.md": record("build-system", "cache [[Café]] " + "z" * BIG + "\n"),
    "Links/Latin-1.md": b"---\nsubject: build-system\n---\ncaf\xe9 cache [[Caf\xc3\xa9]]\n",
    "Links/Broken.md": "---\nsubject: build-system\nsubject: hiring\n---\ncache [[Café]] [[Plan]]\n",
    # ASCII only: read by the byte test's ASCII path.
    "Links/Encoded.md": "# Encoded\n\n[x](%50lan.md)\n",
    "Links/Encoded broken.md": "---\nsubject: build-system\nx: [\n---\n[x](Caf%C3%A9.md)\n",
    "Links/Broken no link.md": "---\nsubject: build-system\nx: [\n---\nnothing here\n",
    "Templates/Excluded.md": record("build-system", "cache [[Café]] [[Plan]] kelvin\n"),
    # Links into an excluded folder resolve there (Obsidian hides such notes from search, not
    # from links), so only the second line links to the visible note of the same name.
    "Visible/Excluded.md": "# A visible note named as the excluded one\n",
    "Links/To excluded.md": "[[Templates/Excluded]]\n[[Excluded#gone]]\n[x](Templates/Excluded.md#^gone)\n",
    ".hidden/Hidden.md": record("build-system", "cache [[Café]] [[Plan]] kelvin\n"),
}


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("fastpaths")
    root = base / "v"
    generate(root, 150, seed=11, invalid=4)  # its app.json excludes Templates/
    write_vault(root / "Tricky", TRICKY)
    write_vault(root, NOTES)
    outside = write_vault(base / "outside", {"Secret.md": record("build-system", "cache [[Café]] kelvin secret\n")})
    os.symlink(outside / "Secret.md", root / "Names" / "Linked.md")
    os.symlink(outside, root / "Linked folder")
    settings = json.loads((root / ".obsidian/app.json").read_text(encoding="utf-8"))
    assert "Templates/" in settings["userIgnoreFilters"]
    return root


def scopes(vault: Path) -> list[Scope]:
    return [
        Scope(client="t", vault=vault, exposure=Exposure(mode=mode, subjects=frozenset({"build-system"})))
        for mode in ("records", "subjects", "vault")
    ]


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


@pytest.mark.parametrize("argument", NOTE_ARGUMENTS)
def test_read_note_on_the_listing_answers_as_the_whole_vault_index(vault: Path, argument: str) -> None:
    for scope in scopes(vault):
        for budget in (16384, 1024):
            fast = outcome(reading.read_note, scope, argument, None, budget)
            assert fast == outcome(reference_read, scope, argument, None, budget), (scope.exposure.mode, budget)


@pytest.mark.parametrize("argument", NOTE_ARGUMENTS)
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


@pytest.mark.parametrize("phrase", PHRASES)
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
