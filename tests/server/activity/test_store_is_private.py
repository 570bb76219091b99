"""The activity store, which says which notes each client read and what it asked, is readable
by its owner only, like the config: its file and SQLite's -wal and -shm beside it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from vault_recall.server.activity.database import connect

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX file modes")


def modes(folder: Path) -> dict[str, int]:
    return {p.name: stat.S_IMODE(p.stat().st_mode) for p in folder.iterdir() if p.name.startswith("activity.sqlite3")}


def test_a_new_store_and_its_wal_and_shm_are_readable_by_their_owner_only(tmp_path: Path) -> None:
    store = tmp_path / "state" / "activity.sqlite3"
    old = os.umask(0o022)
    try:
        connection = connect(store)
        connection.execute("INSERT INTO events (ts, client, pid, tool, duration_ms) VALUES (1, 'c', 1, 'x', 1)")
    finally:
        os.umask(old)
    found = modes(store.parent)
    connection.close()
    assert set(found) >= {"activity.sqlite3", "activity.sqlite3-wal", "activity.sqlite3-shm"}
    assert set(found.values()) == {0o600}
    assert stat.S_IMODE(store.parent.stat().st_mode) == 0o700


def test_a_store_an_older_version_left_readable_by_others_is_narrowed_when_opened(tmp_path: Path) -> None:
    store = tmp_path / "activity.sqlite3"
    connect(store).close()
    for path in tmp_path.iterdir():
        path.chmod(0o644)
    connect(store).close()
    assert set(modes(tmp_path).values()) == {0o600}
