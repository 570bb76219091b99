"""Excluded files compare names in Unicode NFC: a folder or note named with an accent is
excluded whichever form (composed, as typed; decomposed, as macOS writes names) the setting and
the file's name on disk are each in."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest

from tests.support.vaults import record, write_vault
from vault_recall.server.recall.answers import search
from vault_recall.server.recall.answers.changed_since import Handed, changed_since
from vault_recall.server.recall.scope import Exposure, Scope
from vault_recall.server.vault.listing import list_notes
from vault_recall.server.vault.settings import parse_excluded_files

CAFE = "Café"
FORMS = {"NFC": unicodedata.normalize("NFC", CAFE), "NFD": unicodedata.normalize("NFD", CAFE)}
PAIRS = [(disk, setting) for disk in FORMS for setting in FORMS]


def vault_with(tmp_path: Path, disk: str, entries: list[str]) -> Path:
    folder = FORMS[disk]
    return write_vault(
        tmp_path / "Work",
        {
            f"{folder}/Secret menu.md": record("alpha", "The secret menu decision."),
            f"Notes/{folder} opening.md": record("alpha", "The opening decision."),
            "Kept.md": record("alpha", "A decision anyone may see."),
            ".obsidian/app.json": json.dumps({"userIgnoreFilters": entries}),
        },
    )


@pytest.mark.parametrize(("disk", "setting"), PAIRS)
def test_a_folder_is_excluded_whichever_form_its_name_and_the_setting_are_in(
    tmp_path: Path, disk: str, setting: str
) -> None:
    vault = vault_with(tmp_path, disk, [f"{FORMS[setting]}/", f"/{FORMS[setting]} opening/"])
    listing = list_notes(vault)
    assert listing.paths == ("Kept.md",)
    whole = Scope(client="c", vault=vault, exposure=Exposure(mode="vault"))
    found = search.search_notes(whole, "decision")
    assert [hit["path"] for hit in found["records"]] == ["Kept.md"]


@pytest.mark.parametrize(("disk", "setting"), PAIRS)
def test_a_note_handed_out_and_then_excluded_in_either_form_is_told_as_gone(
    tmp_path: Path, disk: str, setting: str
) -> None:
    vault = vault_with(tmp_path, disk, [])
    path = f"{FORMS[disk]}/Secret menu.md"
    handed = [Handed(vault, path, "was")]
    (vault / ".obsidian/app.json").write_text(json.dumps({"userIgnoreFilters": [f"{FORMS[setting]}/"]}))
    scope = Scope(client="c", vault=vault, exposure=Exposure())
    assert [(c.path, c.now) for c in changed_since(scope, handed)] == [(path, None)]


def test_the_settings_prefixes_and_patterns_are_kept_in_nfc() -> None:
    excluded = parse_excluded_files([FORMS["NFD"] + "/", f"/^{FORMS['NFD']}/"])
    assert excluded.prefixes == (FORMS["NFC"] + "/",)
    assert excluded.patterns[0].pattern == f"^{FORMS['NFC']}"
    assert excluded.hides_folder(FORMS["NFD"]) and excluded.covers_folder(FORMS["NFD"])
    assert excluded.matches(f"{FORMS['NFD']}/x.md") and not excluded.matches("Cafe/x.md")
