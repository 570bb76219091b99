"""The activity store a real `vault-recall serve` writes is readable by its owner only, like
the config: its file and SQLite's -wal and -shm beside it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.support.e2e import call, serving

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(os.name == "nt", reason="POSIX file modes")]


def modes(folder: Path) -> dict[str, int]:
    return {p.name: stat.S_IMODE(p.stat().st_mode) for p in folder.iterdir() if p.name.startswith("activity.sqlite3")}


@pytest.mark.anyio
async def test_the_store_a_real_server_writes_is_readable_by_its_owner_only(
    shared_sample: Path, vault_recall_home: Path
) -> None:
    async with serving("private", shared_sample) as client:
        await call(client, "list_subjects")
    found = modes(vault_recall_home)
    assert "activity.sqlite3" in found and set(found.values()) == {0o600}, found
