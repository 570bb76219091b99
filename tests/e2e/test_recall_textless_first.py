"""End to end over a real `serve`: a recall whose best record is too large for its budget gives
that record first without its text, within the budget — and, having handed out no text of it,
never tells the client later that it changed; once given whole, it does."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.support.e2e import call, serving
from tests.support.vaults import record, write_vault
from vault_recall.app.state.config_store import save_config
from vault_recall.server.config.config_file import ClientEntry, Config, VaultEntry

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

FIELD = "changed_since_recalled"
BIG = "Decisions/Postgres choice.md"
SMALL = "Decisions/Backups.md"
# One sentence of 6 KB: no passage of it is whole and fits.
LONG_BODY = "We chose Postgres for the main store, " + "replication and backups reasoned at length, " * 140 + "done.\n"


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


async def test_the_best_record_too_large_comes_first_without_text_and_is_not_told_as_changed(
    tmp_path: Path,
) -> None:
    vault = write_vault(
        tmp_path / "Team",
        {BIG: record("db", LONG_BODY), SMALL: record("db", "Postgres backups run nightly.")},
    )
    save_config(Config(vaults=(VaultEntry("Team", str(vault)),), active_vault="Team", clients=(ClientEntry("cursor"),)))
    async with serving("cursor", None) as cursor:
        args = {"subject": "db", "query": "postgres replication", "budget": 4096}
        first = await call(cursor, "recall_context", args)
        assert len(json.dumps(first, separators=(",", ":"), ensure_ascii=False).encode()) <= 4096
        big, small = first["records"]
        assert (big["path"], "text" in big, big["coverage"]) == (BIG, False, 1.0)
        assert big["bytes"] > 4096 and "read_note" in big["hint"]
        assert (small["path"], small["text"]) == (SMALL, "Postgres backups run nightly.\n")
        assert first["weak_match"] is False and first["omitted"] == 0

        # Both notes are corrected: only the one whose text the client was given is told.
        (vault / BIG).write_text(record("db", LONG_BODY + "\nCorrected."), encoding="utf-8")
        (vault / SMALL).write_text(record("db", "Postgres backups run hourly."), encoding="utf-8")
        told = await call(cursor, "list_subjects")
        expected = [(SMALL, small["revision"], sha(vault / SMALL))]
        assert [(c["path"], c["was"], c["now"]) for c in told[FIELD]] == expected

        # With room for it, the record comes whole; corrected after that, it is told.
        whole = await call(cursor, "recall_context", {**args, "budget": big["bytes"] + 1024})
        assert whole["records"][0]["path"] == BIG and whole["records"][0]["text"].endswith("Corrected.\n")
        (vault / BIG).write_text(record("db", LONG_BODY + "\nCorrected twice."), encoding="utf-8")
        again = await call(cursor, "list_subjects")
        assert [c["path"] for c in again[FIELD]] == [BIG]
