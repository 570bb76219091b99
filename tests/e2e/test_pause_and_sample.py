"""Pausing recall and the sample vault's notice, through real processes: `vault-recall pause`
and `resume` as a person types them, a real `serve` over stdio and a real `http` endpoint
answering, and the refusals read back from the real activity store."""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

import anyio
import pytest

from tests.support.e2e import call, copy_sample_vault, serving, vault_recall_command
from tests.support.http_e2e import http_client, running_endpoint
from vault_recall.app.state.config_store import issue_token, save_config
from vault_recall.server.config.call_scope import SAMPLE_NOTICE
from vault_recall.server.config.config_file import Config, VaultEntry, activity_path, load_config

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

QUESTION = {"subject": "build-system", "query": "bazel"}


def cli(*words: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*vault_recall_command(), *words], capture_output=True, text=True, timeout=60, check=False)


async def statuses(count: int) -> list[tuple[str, str | None, str | None]]:
    """The activity store's (client, status, error) rows once there are `count` (bounded wait)."""
    rows: list[tuple[str, str | None, str | None]] = []
    with anyio.fail_after(20):
        while len(rows) < count:
            if activity_path().exists():
                try:
                    with sqlite3.connect(activity_path()) as db:
                        rows = db.execute("SELECT client, status, error FROM events ORDER BY id").fetchall()
                except sqlite3.OperationalError:
                    rows = []
            await anyio.sleep(0.05)
    return rows


async def test_while_paused_every_server_answers_unavailable_and_the_activity_records_it(tmp_path: Path) -> None:
    vault = copy_sample_vault(tmp_path / "Work")
    save_config(Config(vaults=(VaultEntry("Work", str(vault)),), active_vault="Work"))
    token, _ = issue_token("cursor")

    paused = cli("pause")
    assert paused.returncode == 0 and paused.stdout.startswith("Recall is paused:"), paused.stderr
    assert load_config().paused is True
    assert "paused" in cli("status").stdout

    with running_endpoint() as endpoint:
        async with serving("claude-code", None) as stdio:
            answer = await call(stdio, "recall_context", QUESTION)
            assert answer["status"] == "unavailable" and answer["reason"] == "paused by the person"
            assert answer["records"] == []
        # A pinned vault is paused too: the pause is the person's, for every server.
        async with serving("zed", vault) as pinned:
            assert (await call(pinned, "list_subjects"))["reason"] == "paused by the person"
        async with http_client(endpoint.url, token) as by_url:
            answer = await call(by_url, "search_notes", {"query": "bazel"})
            assert answer["status"] == "unavailable" and answer["reason"] == "paused by the person"

        rows = await statuses(3)
        assert [(client, status) for client, status, _ in rows] == [
            ("claude-code", "unavailable"),
            ("zed", "unavailable"),
            ("cursor", "unavailable"),
        ]

        resumed = cli("resume")
        assert resumed.returncode == 0 and resumed.stdout.startswith("Recall resumed"), resumed.stderr
        assert cli("resume").stdout.startswith("Recall was not paused")
        # The same running endpoint answers again: nothing was restarted.
        async with http_client(endpoint.url, token) as by_url:
            answer = await call(by_url, "recall_context", QUESTION)
            assert answer["status"] == "ok" and answer["records"]


async def test_answers_from_the_bundled_sample_vault_say_it_is_the_sample(tmp_path: Path) -> None:
    sample = copy_sample_vault(tmp_path / "sample-vault")
    mine = copy_sample_vault(tmp_path / "Mine")
    save_config(Config(vaults=(VaultEntry("Sample vault", str(sample), sample=True),), active_vault="Sample vault"))
    async with serving("cursor", None) as client:
        asked: list[tuple[str, dict[str, str]]] = [
            ("recall_context", QUESTION),
            ("list_subjects", {}),
            ("read_note", {"note": "Build decision"}),
        ]
        for tool, args in asked:
            answer = await call(client, tool, args)
            assert answer["status"] == "ok" and answer["notice"] == SAMPLE_NOTICE, tool
        # The first vault of the person's own replaces the sample as the active one …
        added = cli("vault", "add", str(mine))
        assert added.returncode == 0 and "now active" in added.stdout, added.stderr
        # … and the same server's next answer comes from it, without the notice.
        answer = await call(client, "recall_context", QUESTION)
        assert answer["vault"] == "Mine" and "notice" not in answer
    listed = cli("vault", "list").stdout
    assert "bundled sample" in listed.splitlines()[0] and "bundled sample" not in listed.splitlines()[1]
