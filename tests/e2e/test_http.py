"""End to end over real HTTP on 127.0.0.1: a real `vault-recall http` process, the MCP SDK's
Streamable HTTP client, tokens made by the real commands, activity read from the real store."""

from __future__ import annotations

import dataclasses
import os
import sqlite3
import subprocess
from pathlib import Path

import anyio
import pytest
from mcp import Client

from tests.support.e2e import call, call_error, copy_sample_vault, vault_recall_command
from tests.support.http_e2e import http_client, running_endpoint
from tests.support.mid_call import caught_mid_call, no_pass_over
from tests.support.synthetic_vault import generate
from vault_recall.app.state.config_store import issue_token, update_config
from vault_recall.server.config.config_file import ClientEntry, ClientExposure, Config, VaultEntry, activity_path

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

TOOLS = {"recall_context", "list_subjects", "recall_activity", "read_note", "search_notes", "get_backlinks"}


def configure(vaults: dict[str, Path], clients: dict[str, tuple[str, ClientExposure]]) -> dict[str, str]:
    """Vaults by name (the first active), clients as id → (vault, exposure); a token for each."""

    def change(config: Config) -> Config:
        return dataclasses.replace(
            config,
            vaults=tuple(VaultEntry(name, str(path)) for name, path in vaults.items()),
            active_vault=next(iter(vaults)),
            clients=tuple(ClientEntry(cid, vault, exposure) for cid, (vault, exposure) in clients.items()),
        )

    update_config(change)
    return {cid: issue_token(cid)[0] for cid in clients}


def activity_rows() -> list[tuple[str, str | None, str, str | None]]:
    with sqlite3.connect(activity_path()) as db:
        return db.execute("SELECT client, client_name, tool, status FROM events ORDER BY id").fetchall()


async def wait_for_rows(count: int) -> list[tuple[str, str | None, str, str | None]]:
    """Events are written by the server's writer thread just after each answer: wait (bounded)."""
    rows: list[tuple[str, str | None, str, str | None]] = []
    with anyio.fail_after(20):
        while True:
            if activity_path().exists():
                try:
                    rows = activity_rows()
                except sqlite3.OperationalError:
                    rows = []  # the store is being created: its table is not there yet
            if len(rows) >= count:
                return rows
            await anyio.sleep(0.05)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_every_tool_answers_over_http_with_each_tokens_exposure_and_activity(tmp_path: Path, mode: str) -> None:
    vault = copy_sample_vault(tmp_path / "Sample vault")
    tokens = configure(
        {"Sample": vault},
        {"cursor": ("active", "records"), "zed": ("active", "vault"), "limited": ("active", ("release-process",))},
    )
    with running_endpoint() as endpoint:
        async with http_client(endpoint.url, tokens["cursor"], mode=mode, name="cursor-app") as cursor:
            assert {t.name for t in (await cursor.list_tools()).tools} == TOOLS
            recalled = await call(cursor, "recall_context", {"subject": "build-system", "query": "bazel"})
            assert recalled["records"][0]["path"] == "Projects/Build/Build decision.md"
            assert recalled["untrusted"] is True
            subjects = {s["subject"] for s in (await call(cursor, "list_subjects"))["subjects"]}
            assert {"build-system", "release-process"} <= subjects
            history = await call(cursor, "recall_activity", {"subject": "build-system"})
            assert [r["path"] for r in history["records"]] == ["Journal/2026-03-14 Build outage.md"]
            note = await call(cursor, "read_note", {"note": "Bazel decision"})
            assert note["text"].startswith("# We build with Bazel")
            found = await call(cursor, "search_notes", {"query": "remote cache"})
            assert "Projects/Build/CI cache.md" in {h["path"] for h in found["records"]}
            linked = await call(cursor, "get_backlinks", {"note": "CI cache"})
            assert "Projects/Build/Build decision.md" in {h["path"] for h in linked["records"]}
            # records only: the Welcome note is no record, so it is not there for cursor
            assert "no note 'Welcome'" in await call_error(cursor, "read_note", {"note": "Welcome"})
        async with http_client(endpoint.url, tokens["zed"], mode=mode, name="zed-app") as zed:
            assert (await call(zed, "read_note", {"note": "Welcome"}))["path"] == "Welcome.md"
        async with http_client(endpoint.url, tokens["limited"], mode=mode, name="limited-app") as limited:
            message = await call_error(limited, "recall_context", {"subject": "build-system", "query": "bazel"})
            assert "subject 'build-system' is not shared with client 'limited'" in message
            only = await call(limited, "list_subjects")
            assert [s["subject"] for s in only["subjects"]] == ["release-process"]
        rows = await wait_for_rows(10)
    assert [(client, name) for client, name, _, _ in rows] == [("cursor", "cursor-app")] * 7 + [
        ("zed", "zed-app"),
        ("limited", "limited-app"),
        ("limited", "limited-app"),
    ]
    assert [tool for _, _, tool, _ in rows[:7]] == [
        "recall_context",
        "list_subjects",
        "recall_activity",
        "read_note",
        "search_notes",
        "get_backlinks",
        "read_note",
    ]
    assert rows[8][3] == "error" and rows[9][3] == "ok"
    assert tokens["cursor"] not in endpoint.log()


async def test_an_edit_is_what_the_next_call_recalls_over_http(tmp_path: Path) -> None:
    vault = copy_sample_vault(tmp_path / "Sample vault")
    tokens = configure({"Sample": vault}, {"cursor": ("active", "records")})
    note = vault / "Projects/Build/Build decision.md"
    with running_endpoint() as endpoint:
        async with http_client(endpoint.url, tokens["cursor"]) as session:
            before = await call(session, "recall_context", {"subject": "build-system", "query": "bazel"})
            note.write_text(note.read_text(encoding="utf-8").replace("Bazel", "Buck2"), encoding="utf-8")
            after = await call(session, "recall_context", {"subject": "build-system", "query": "buck2"})
            assert after["records"][0]["path"] == "Projects/Build/Build decision.md"
            assert after["records"][0]["revision"] != before["records"][0]["revision"]


async def test_switching_the_active_vault_reaches_a_running_endpoint_on_the_next_call(tmp_path: Path) -> None:
    first = copy_sample_vault(tmp_path / "First")
    second = tmp_path / "Second"
    second.mkdir()
    tokens = configure({"First": first, "Second": second}, {"cursor": ("active", "records")})
    with running_endpoint() as endpoint:
        async with http_client(endpoint.url, tokens["cursor"]) as session:
            assert (await call(session, "list_subjects"))["vault"] == "First"
            update_config(lambda c: dataclasses.replace(c, active_vault="Second"))
            assert (await call(session, "list_subjects"))["vault"] == "Second"


async def test_an_endpoint_started_before_any_vault_says_so_and_serves_one_added_later(tmp_path: Path) -> None:
    update_config(lambda c: dataclasses.replace(c, clients=(ClientEntry("cursor", "active", "records"),)))
    token = issue_token("cursor")[0]
    with running_endpoint() as endpoint:
        async with http_client(endpoint.url, token) as session:
            first = await call(session, "list_subjects")
            assert first["status"] == "unavailable" and "vault-recall vault add PATH" in first["reason"]
            assert "--vault" not in first["reason"]  # `http` has no such option
            vault = copy_sample_vault(tmp_path / "Sample vault")
            update_config(
                lambda c: dataclasses.replace(c, vaults=(VaultEntry("Sample", str(vault)),), active_vault="Sample")
            )
            assert (await call(session, "list_subjects"))["status"] == "ok"
    # Said once, at the start, to the person who started it (the log is whole once it has stopped).
    said = [line for line in endpoint.log().splitlines() if "answered 'unavailable'" in line]
    assert said == [f"vault-recall http: every client is answered 'unavailable' for now: {first['reason']}"]

    with running_endpoint() as endpoint:
        async with http_client(endpoint.url, token) as session:
            assert (await call(session, "list_subjects"))["status"] == "ok"
    assert "unavailable" not in endpoint.log()


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*vault_recall_command(), *args], capture_output=True, text=True, env=dict(os.environ), timeout=60
    )


async def test_a_revoked_or_replaced_token_fails_on_its_next_request_without_a_restart(tmp_path: Path) -> None:
    vault = copy_sample_vault(tmp_path / "Sample vault")
    configure({"Sample": vault}, {"cursor": ("active", "records")})
    made = run_cli("client", "token", "cursor")
    assert made.returncode == 0, made.stderr
    token = made.stdout.strip()
    assert token.startswith("vrt_") and len(token) > 40
    assert "shown only this once" in made.stderr
    assert token not in (Path(os.environ["VAULT_RECALL_HOME"]) / "config.json").read_text(encoding="utf-8")
    with running_endpoint() as endpoint:
        async with http_client(endpoint.url, token) as session:
            await call(session, "list_subjects")
            rotated = run_cli("client", "token", "cursor")
            assert "old one stops working" in rotated.stderr
            with pytest.raises(Exception):  # noqa: B017 - the SDK reports the 401 as its own error
                await session.call_tool("list_subjects", {})
        new = rotated.stdout.strip()
        async with http_client(endpoint.url, new) as session:
            await call(session, "list_subjects")
            revoked = run_cli("client", "token", "cursor", "--revoke")
            assert "Revoked" in revoked.stdout
            with pytest.raises(Exception):  # noqa: B017
                await session.call_tool("list_subjects", {})
        rows = await wait_for_rows(2)
        assert [client for client, *_ in rows] == ["cursor", "cursor"]  # the refused calls reached no tool
        assert token not in endpoint.log() and new not in endpoint.log()


async def test_a_slow_vault_does_not_hold_up_another_clients_calls(tmp_path: Path) -> None:
    """Client 'big' reads a vault of 3,000 notes (each search a few hundred ms) four calls at a
    time; client 'small' reads the sample vault meanwhile: all its calls answer while big's are
    still running (an order, not a time, is asserted)."""
    big_vault = tmp_path / "Big"
    generate(big_vault, 3000)
    small_vault = copy_sample_vault(tmp_path / "Small")
    tokens = configure(
        {"Big": big_vault, "Small": small_vault}, {"big": ("Big", "vault"), "small": ("Small", "records")}
    )
    finished: list[str] = []
    with running_endpoint() as endpoint:
        async with (
            http_client(endpoint.url, tokens["big"]) as big,
            http_client(endpoint.url, tokens["small"]) as small,
        ):
            await call(small, "list_subjects")  # both sessions open before the race starts

            async def slow_search(index: int) -> None:
                await call(big, "search_notes", {"query": "e", "limit": 100})  # on most lines: slow
                finished.append(f"big-{index}")

            async def quick_recalls() -> None:
                for _ in range(5):
                    await call(small, "recall_context", {"subject": "build-system", "query": "bazel"})
                finished.append("small")

            async with anyio.create_task_group() as group:
                for index in range(8):
                    group.start_soon(slow_search, index)
                group.start_soon(quick_recalls)  # started last: the big calls are sent first
    assert "small" in finished and finished.index("small") < 4, finished


async def gave_up_mid_search(session: Client, pid: int, vault: Path) -> bool:
    """Search `vault`, and give up while the endpoint (process `pid`) is held in the middle of
    it: True when the call ended given up, with no answer."""
    given_up = anyio.CancelScope()
    ended = anyio.Event()
    answers: list[object] = []

    async def search() -> None:
        with given_up:
            answers.append(await session.call_tool("search_notes", {"query": "e", "limit": 100}))
        ended.set()

    await no_pass_over(pid, vault)
    async with anyio.create_task_group() as group:
        group.start_soon(search)
        async with caught_mid_call(pid, vault):
            given_up.cancel()
            with anyio.fail_after(30):  # a bound for a hang: giving up waits for no answer
                await ended.wait()
    return given_up.cancelled_caught and answers == []


async def test_a_client_that_disconnects_mid_call_leaves_the_endpoint_serving_and_its_call_recorded(
    tmp_path: Path,
) -> None:
    """The client gives up while the endpoint is held in the middle of its search (stopped
    there, so the answer cannot come first, however fast the search), then leaves."""
    vault = tmp_path / "Big"
    generate(vault, 3000)  # a search long enough to be seen under way (each note is one more look)
    tokens = configure({"Big": vault}, {"gone": ("Big", "vault"), "stays": ("Big", "records")})
    with running_endpoint() as endpoint:
        for given_up, mode in enumerate(("legacy", "auto"), 1):
            async with http_client(endpoint.url, tokens["gone"], mode=mode) as gone:
                assert await gave_up_mid_search(gone, endpoint.process.pid, vault), mode
            assert len(await wait_for_rows(given_up)) == given_up, mode  # recorded all the same
        async with http_client(endpoint.url, tokens["stays"]) as stays:
            assert (await call(stays, "list_subjects"))["status"] == "ok"
        rows = await wait_for_rows(3)
    assert [client for client, *_ in rows].count("stays") == 1
    assert "Traceback" not in endpoint.log(), endpoint.log()
