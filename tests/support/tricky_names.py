"""A vault of the names and links that make the fast paths hard: one name in NFC and NFD, the
Kelvin sign, ß, a hash, a name inline code makes, duplicates in folders of different exposure,
aliases, every way of writing a link, broken and oversized notes, an Excluded folder, a hidden
one and symlinks out of the vault; the read_note, search_notes and get_backlinks equivalence
tests run on it in every exposure."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.support.synthetic_vault import generate
from tests.support.tricky_notes import TRICKY
from tests.support.vaults import record, write_vault
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


def tricky_names_vault(base: Path) -> Path:
    """Writes the vault under `base` (beside a folder outside it the symlinks point into)."""
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
