"""End to end: the config and the activity store shared by many real `serve` processes (and
by CLI commands running at once)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path

import anyio
import pytest

from tests.support.e2e import call, call_error, copy_sample_vault, paths, serving, vault_recall_command
from tests.support.parts import as_nobody_if_root
from tests.support.paths import REPO_ROOT
from tests.support.vaults import record, write_vault
from vault_recall.app.state.config_store import save_config
from vault_recall.server.activity.database import BUSY_TIMEOUT_MS
from vault_recall.server.activity.queries import count_events, latest_per_client, recent_events
from vault_recall.server.config.config_file import (
    ClientEntry,
    Config,
    VaultEntry,
    activity_path,
    config_path,
    load_config,
)

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


def event_count(client: str | None = None) -> int:
    """Events in the store, read-only (0 while it does not exist or has no tables yet)."""
    if client is None:
        return count_events(activity_path())
    return sum(s.calls for s in latest_per_client(activity_path()) if s.client == client)


async def test_eight_servers_two_hundred_calls_each_every_call_recorded(shared_sample: Path) -> None:
    answered: dict[str, int] = {}

    async def client(number: int) -> None:
        name = f"client-{number}"
        async with serving(name, shared_sample) as session:
            for call_number in range(200):
                if call_number % 2:
                    result = await call(session, "list_subjects")
                else:
                    result = await call(session, "recall_context", {"subject": "build-system", "query": "bazel"})
                assert result["status"] == "ok"
                answered[name] = answered.get(name, 0) + 1

    async with anyio.create_task_group() as group:
        for number in range(8):
            group.start_soon(client, number)
    assert answered == {f"client-{n}": 200 for n in range(8)}
    assert event_count() == 1600
    for number in range(8):
        assert event_count(f"client-{number}") == 200
    summaries = {s.client: s for s in latest_per_client(activity_path())}
    assert {name: s.calls for name, s in summaries.items()} == answered
    events = recent_events(activity_path(), limit=1600)
    recalled = Counter(e.client for e in events if "Projects/Build/Build decision.md" in e.returned)
    assert recalled == {f"client-{n}": 100 for n in range(8)}


async def test_switching_the_active_vault_reaches_running_servers(tmp_path: Path) -> None:
    work = write_vault(tmp_path / "Work", {"W.md": record("s", "work decision")})
    home = write_vault(tmp_path / "Home", {"H.md": record("s", "home decision")})
    cli = vault_recall_command()
    for folder in (work, home):
        subprocess.run([*cli, "vault", "add", str(folder)], check=True, capture_output=True, timeout=60)
    async with serving("cursor", None) as cursor, serving("zed", None) as zed:
        for session in (cursor, zed):
            result = await call(session, "recall_context", {"subject": "s", "query": "decision"})
            assert (result["vault"], paths(result)) == ("Work", ["W.md"])
        subprocess.run([*cli, "vault", "use", "Home"], check=True, capture_output=True, timeout=60)
        for session in (cursor, zed):
            result = await call(session, "recall_context", {"subject": "s", "query": "decision"})
            assert (result["vault"], paths(result)) == ("Home", ["H.md"])


async def test_a_client_limited_to_one_subject_cannot_reach_another(tmp_path: Path) -> None:
    vault = copy_sample_vault(tmp_path / "Sample")
    save_config(
        Config(
            vaults=(VaultEntry("Sample", str(vault)),),
            active_vault="Sample",
            clients=(ClientEntry("limited", exposure=("build-system",)),),
        )
    )
    rule = "subject 'release-process' is not shared with client 'limited' (it may see: build-system)"
    async with serving("limited", None) as session:
        assert [s["subject"] for s in (await call(session, "list_subjects"))["subjects"]] == ["build-system"]
        for tool, args in (
            ("recall_context", {"subject": "release-process", "query": "release"}),
            ("recall_activity", {"subject": "release-process"}),
            ("search_notes", {"query": "release", "subject": "release-process"}),
        ):
            assert rule in await call_error(session, tool, args)
        for argument in (
            "Release cadence",
            "Projects/Release/Release cadence",
            "Release schedule",
            "Welcome",
            "Team/Code review rules.md",
            "../Sample/Projects/Release/Release cadence",
        ):
            assert "that this client can read" in await call_error(session, "read_note", {"note": argument})
            assert "that this client can read" in await call_error(session, "get_backlinks", {"note": argument})
        searched = await call(session, "search_notes", {"query": "e", "limit": 100, "budget": 65536})
        assert {h["path"] for h in searched["records"]} <= {
            "Projects/Build/Build decision.md",
            "Projects/Build/CI cache.md",
            "Projects/Release/Versioning.md",
            "Journal/2026-03-14 Build outage.md",
            "Projects/Build/Old Makefile plan.md",
        }
        linked = await call(session, "get_backlinks", {"note": "Build decision"})
        assert "Projects/Release/Release cadence.md" not in paths(linked)
        # A record of both subjects is shared through the one the client may see.
        assert (await call(session, "read_note", {"note": "Versioning"}))["path"] == "Projects/Release/Versioning.md"


async def test_a_broken_config_makes_running_servers_unavailable_until_fixed(shared_sample: Path) -> None:
    save_config(Config(vaults=(VaultEntry("Sample", str(shared_sample)),), active_vault="Sample"))
    good = config_path().read_bytes()
    async with serving("cursor", None) as session:
        assert (await call(session, "list_subjects"))["status"] == "ok"
        for broken, words in (
            (good[: len(good) // 2], "is not valid JSON"),
            (b"", "is empty"),
            (good.replace(b'"version": 1', b'"version": 7'), "has version 7"),
            (
                good.replace(b'"active_vault": "Sample"', b'"active_vault": 3'),
                "active_vault 3 is not one of the vaults",
            ),
        ):
            config_path().write_bytes(broken)
            result = await call(session, "recall_context", {"subject": "build-system", "query": "bazel"})
            assert result["status"] == "unavailable" and result["records"] == []
            assert result["reason"].startswith(f"{config_path()}, line ") and words in result["reason"]
        config_path().write_bytes(good)
        assert (await call(session, "recall_context", {"subject": "build-system", "query": "bazel"}))["status"] == "ok"


async def wait_for_events(count: int, timeout: float = 20) -> None:
    """Events are written by each server's writer thread just after the call answers."""
    with anyio.fail_after(timeout):
        while event_count() < count:
            await anyio.sleep(0.05)


async def test_calls_answer_when_the_activity_store_is_deleted_or_locked(shared_sample: Path) -> None:
    async with serving("cursor", shared_sample) as session:
        await call(session, "list_subjects")
        await wait_for_events(1)
        for suffix in ("", "-wal", "-shm"):
            Path(f"{activity_path()}{suffix}").unlink(missing_ok=True)
        assert (await call(session, "list_subjects"))["status"] == "ok"
        await wait_for_events(1)  # a new store, created by the writer for that call

        locker = sqlite3.connect(activity_path(), isolation_level=None)
        locker.execute("BEGIN EXCLUSIVE")
        try:
            # While the store is locked every call still answers, without waiting on it: a call
            # that waited would take the writer's busy timeout, three of them three times that.
            with anyio.fail_after(3 * BUSY_TIMEOUT_MS / 1000):
                for _ in range(3):
                    assert (await call(session, "list_subjects"))["status"] == "ok"
        finally:
            locker.execute("ROLLBACK")
            locker.close()
        before = event_count()
        await call(session, "recall_context", {"subject": "build-system", "query": "bazel"})
        await wait_for_events(before + 1)  # and recording resumes


async def test_calls_answer_when_the_activity_store_cannot_be_written(
    world_readable_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = copy_sample_vault(world_readable_tmp / "Sample")
    home = world_readable_tmp / "home"
    home.mkdir(mode=0o755)
    monkeypatch.setenv("VAULT_RECALL_HOME", str(home))
    prefix = as_nobody_if_root()  # as 'nobody', 'home' is root's: read-only
    if not prefix:
        home.chmod(0o555)
    try:
        async with serving("cursor", vault, prefix=prefix) as session:
            for _ in range(3):
                result = await call(session, "recall_context", {"subject": "build-system", "query": "bazel"})
                assert result["status"] == "ok" and paths(result)
    finally:
        home.chmod(0o755)
    assert not activity_path().exists()
    assert recent_events(activity_path()) == []


def test_commands_running_at_once_keep_every_change() -> None:
    save_config(Config())
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "vault_recall.app", "client", "add", f"c{n}"],
            cwd=REPO_ROOT,
            env=dict(os.environ),
            stdout=subprocess.DEVNULL,
        )
        for n in range(10)
    ]
    assert all(p.wait(timeout=60) == 0 for p in processes)
    assert sorted(c.id for c in load_config().clients) == sorted(f"c{n}" for n in range(10))
