"""Hostile and unlucky vaults over real `serve` processes: nothing leaks that a client may not
see, and no query text is kept when the person said not to."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from pathlib import Path

import anyio
import pytest

from tests.support.e2e import call, call_error, serving, vault_recall_command
from tests.support.parts import as_nobody_if_root
from tests.support.vaults import record, write_vault
from vault_recall.app.state.config_store import save_config
from vault_recall.server.config.config_file import ActivitySettings, ClientEntry, Config, VaultEntry, activity_path

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]


async def test_a_leftover_obsidian_folder_does_not_unhide_the_renamed_config_folders_exclusions(
    tmp_path: Path,
) -> None:
    vault = write_vault(
        tmp_path / "Renamed",
        {
            ".obsidian/app.json": "{}",
            ".myconfig/app.json": json.dumps({"userIgnoreFilters": ["Private/"]}),
            "Private/Plans.md": record("hiring", "SECRETWORD salary bands"),
            "Open.md": record("hiring", "open hiring notes"),
        },
    )
    os.utime(vault / ".obsidian/app.json", (1_000_000_000, 1_000_000_000))  # the old, leftover one
    save_config(Config(clients=(ClientEntry(id="zed", exposure="vault"),)))
    async with serving("zed", vault) as session:
        hits = await call(session, "search_notes", {"query": "SECRETWORD"})
        assert hits["records"] == [] and hits["status"] == "ok"
        missing = await call_error(session, "read_note", {"note": "Private/Plans"})
        assert "no note" in missing
        subjects = await call(session, "list_subjects")
        assert subjects["subjects"][0]["active"] == 1
    health = subprocess.run(
        [*vault_recall_command(), "health", "--vault", str(vault), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert health.returncode == 0, health.stderr
    assert "Private" not in health.stdout and json.loads(health.stdout)["notes"] == 1


async def test_unreadable_files_are_named_only_to_clients_that_could_see_them(
    world_readable_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = write_vault(
        world_readable_tmp / "vault",
        {
            ".obsidian/app.json": json.dumps({"userIgnoreFilters": ["/^Rx/"]}),
            "Rx/Secret plans/Plan.md": record("build-system", "bazel plan"),
            "HR/Salary of Bob.md": "a plain note, not a record",
            "Build.md": record("build-system", "we build with bazel"),
        },
    )
    for folder in (vault, *[p for p in vault.rglob("*") if p.is_dir()]):
        folder.chmod(0o755)
    for note in vault.rglob("*.md"):
        note.chmod(0o644)
    (vault / "HR/Salary of Bob.md").chmod(0)
    (vault / "Rx/Secret plans").chmod(0)
    home = world_readable_tmp / "home"
    home.mkdir(mode=0o777)
    home.chmod(0o777)
    monkeypatch.setenv("VAULT_RECALL_HOME", str(home))
    save_config(Config(clients=(ClientEntry(id="zed", exposure="vault"),)))
    home.chmod(0o777)  # saving made it the owner's only; the server runs as another user here
    (home / "config.json").chmod(0o644)
    prefix = as_nobody_if_root()
    try:
        async with serving("cursor", vault, prefix=prefix) as records_client:
            answers = [
                await call(records_client, "list_subjects"),
                await call(records_client, "recall_context", {"subject": "build-system", "query": "bazel"}),
                await call(records_client, "search_notes", {"query": "bazel"}),
            ]
            for answer in answers:
                text = json.dumps(answer)
                assert "Salary" not in text and "Secret plans" not in text and "Rx" not in text, text
                assert answer["status"] == "ok", text
            missing = await call_error(records_client, "read_note", {"note": "Salary of Bob"})
            assert "no note 'Salary of Bob' that this client can read" in missing  # as for a missing note
        async with serving("zed", vault, prefix=prefix) as vault_client:
            found = await call(vault_client, "search_notes", {"query": "bazel"})
            named = [p["path"] for p in found.get("problems", [])]
            assert named == ["HR/Salary of Bob.md"] and found["status"] == "degraded"  # Rx/ stays hidden
    finally:
        (vault / "HR/Salary of Bob.md").chmod(0o644)
        (vault / "Rx/Secret plans").chmod(0o755)


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("recall_context", {"subject": "build-system", "query": ["payroll of bob"]}),
        ("search_notes", {"query": ["payroll of bob"]}),
        ("read_note", {"note": ["payroll of bob"]}),
        ("read_note", {"note": "payroll of bob"}),
        ("search_notes", {"query": {"payroll": "of bob"}}),
    ],
)
async def test_no_query_text_is_kept_in_errors_when_it_is_off(
    tmp_path: Path, tool: str, arguments: dict[str, object]
) -> None:
    vault = write_vault(tmp_path / "v", {"A.md": record("build-system", "a")})
    save_config(
        Config(
            vaults=(VaultEntry(name="v", path=str(vault)),),
            active_vault="v",
            activity=ActivitySettings(keep_query_text=False),
        )
    )
    async with serving("cursor", None) as session:
        error = await call_error(session, tool, arguments)
    assert "payroll" in error  # the client is told what it sent...
    store = activity_path()
    for _ in range(100):  # the event is written by the server's writer thread, just after the answer
        if store.exists():
            with sqlite3.connect(store) as db:
                rows = db.execute("SELECT query, error FROM events").fetchall()
            if rows:
                break
        await anyio.sleep(0.05)
    assert rows and rows[0][1]
    assert all(query is None and "payroll" not in error and "bob" not in error for query, error in rows), rows
