"""Over a real `serve` process: a folder whose name macOS wrote decomposed (NFD), excluded in
Obsidian's setting as typed (NFC), is neither recalled nor searched."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest

from tests.support.e2e import call, paths, serving
from tests.support.vaults import record, write_vault

pytestmark = [pytest.mark.e2e]


@pytest.mark.anyio
async def test_a_folder_named_in_nfd_and_excluded_in_nfc_is_neither_recalled_nor_searched(tmp_path: Path) -> None:
    on_disk = unicodedata.normalize("NFD", "Résumés privés")
    typed = unicodedata.normalize("NFC", "Résumés privés")
    vault = write_vault(
        tmp_path / "Work",
        {
            f"{on_disk}/Salary decision.md": record("hiring", "We pay the salary band we publish."),
            "Hiring decision.md": record("hiring", "We publish every salary band."),
            ".obsidian/app.json": json.dumps({"userIgnoreFilters": [f"{typed}/"]}),
        },
    )
    async with serving("nfd", vault) as client:
        assert paths(await call(client, "recall_context", {"subject": "hiring", "limit": 5})) == ["Hiring decision.md"]
        found = await call(client, "search_notes", {"query": "salary"})
        assert [hit["path"] for hit in found["records"]] == ["Hiring decision.md"]
