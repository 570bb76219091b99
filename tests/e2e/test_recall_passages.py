"""End to end over a real `serve`: a note larger than its share of a recall's budget comes as its
best passages, within the budget, and read_note given a passage's `section` returns that whole
section of the same revision."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.e2e import call, serving
from tests.support.vaults import record, write_vault
from vault_recall.app.state.config_store import save_config
from vault_recall.server.config.config_file import ClientEntry, Config, VaultEntry

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

FILLER = "Nothing in this sentence bears on the question asked. " * 10
HANDBOOK = (
    "# Handbook\n\nHow the team works.\n\n"
    + "".join(f"## Chapter {n}\n\n{FILLER}\n\n" for n in range(12))
    + "## Backups\n\nBackups run nightly to the second region. Restores are drilled monthly.\n\n"
    + "### Retention\n\nWe keep backups for ninety days.\n\n"
    + "".join(f"## Appendix {n}\n\n{FILLER}\n\n" for n in range(6))
)


async def test_a_large_note_comes_as_passages_and_read_note_gives_their_section(tmp_path: Path) -> None:
    vault = write_vault(
        tmp_path / "Team",
        {"Handbook.md": record("ops", HANDBOOK), "Restores.md": record("ops", "Restores take an hour.")},
    )
    save_config(Config(vaults=(VaultEntry("Team", str(vault)),), active_vault="Team", clients=(ClientEntry("cursor"),)))
    async with serving("cursor", None) as cursor:
        answer = await call(cursor, "recall_context", {"subject": "ops", "query": "backup retention", "budget": 4096})
        assert len(json.dumps(answer, separators=(",", ":"), ensure_ascii=False).encode()) <= 4096
        first = answer["records"][0]
        assert first["path"] == "Handbook.md" and "text" not in first and first["bytes"] > 4096
        sections = [passage.get("section") for passage in first["passages"]]
        assert "Handbook#Backups" in sections
        whole_file = (vault / "Handbook.md").read_text(encoding="utf-8").split("\n")
        for passage in first["passages"]:
            start, end = passage["lines"]
            assert passage["text"] in "\n".join(whole_file[start - 1 : end])
            read = await call(cursor, "read_note", {"note": first["path"], "section": passage["section"]})
            assert read["revision"] == first["revision"] and passage["text"] in read["text"]
        backups = await call(cursor, "read_note", {"note": first["path"], "section": "Handbook#Backups"})
        assert backups["text"].startswith("## Backups\n") and "ninety days" in backups["text"]
