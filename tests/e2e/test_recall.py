"""End to end: real `vault-recall serve` subprocesses, the SDK's stdio client, real files."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.e2e import call, call_error, copy_sample_vault, paths, serving, vault_recall_command
from tests.support.parts import as_nobody_if_root
from tests.support.posix import IS_ROOT
from tests.support.vaults import record, snapshot, write_vault
from vault_recall.server.recall.packing import json_size

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

NOTE = "Projects/Build/Build decision.md"


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return copy_sample_vault(tmp_path / "Sample vault")


def save_like_an_editor(path: Path, text: str) -> None:
    temp = path.with_name(path.name + ".tmp~")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


async def test_two_clients_see_a_completed_edit_on_their_next_call(sample: Path) -> None:
    async with serving("cursor", sample) as cursor, serving("claude-code", sample) as claude:
        before = [
            await call(c, "recall_context", {"subject": "build-system", "query": "bazel"}) for c in (cursor, claude)
        ]
        old = {r["revision"] for b in before for r in b["records"] if r["path"] == NOTE}
        assert len(old) == 1

        note = sample / NOTE
        save_like_an_editor(note, note.read_text(encoding="utf-8").replace("Bazel", "Pants"))
        after = [
            await call(c, "recall_context", {"subject": "build-system", "query": "pants"}) for c in (cursor, claude)
        ]
        for payload in after:
            assert paths(payload)[0] == NOTE
            rec = payload["records"][0]
            assert "Pants" in rec["text"] and "Bazel" not in rec["text"]
            assert rec["revision"] not in old
        assert after[0]["records"][0]["revision"] == after[1]["records"][0]["revision"]

        # A new note and a deleted one are seen just as fast.
        (sample / "Projects/Build/New.md").write_text(record("build-system", "Pants everywhere."), encoding="utf-8")
        (sample / "Projects/Build/CI cache.md").unlink()
        for c in (claude, cursor):
            found = paths(await call(c, "recall_context", {"subject": "build-system", "query": "pants", "limit": 20}))
            assert "Projects/Build/New.md" in found
            cache = await call(c, "recall_context", {"subject": "build-system", "query": "cache", "limit": 20})
            assert "Projects/Build/CI cache.md" not in paths(cache)


async def test_other_subjects_archived_records_events_and_excluded_notes_stay_out(shared_sample: Path) -> None:
    async with serving("cursor", shared_sample) as session:
        build = await call(
            session, "recall_context", {"subject": "build-system", "query": "build", "limit": 20, "budget": 65536}
        )
        assert sorted(paths(build)) == [
            "Projects/Build/Build decision.md",
            "Projects/Build/CI cache.md",
            "Projects/Release/Versioning.md",
        ]
        for query in ("outage", "placeholder", "tuesday"):
            payload = await call(session, "recall_context", {"subject": "build-system", "query": query, "limit": 20})
            # What those notes hold is found nowhere else: ok and empty, never other records.
            assert (payload["status"], payload["records"], payload["omitted"]) == ("ok", [], 0), query
            assert (payload["weak_match"], payload["current_records"]) == (True, 3), query
        # 'ccache' is held by no current record either, and no language knows it: it is taken for
        # the nearest word they hold ('cache', spelling.py), said so in `matched` — never the
        # notes that hold it. The correction counts as the word asked (docs/tools.md): not weak.
        taken = await call(session, "recall_context", {"subject": "build-system", "query": "ccache", "limit": 20})
        assert "Projects/Build/CI cache.md" in paths(taken) and set(paths(taken)) <= set(paths(build))
        assert taken["weak_match"] is False
        assert all(list(r["matched"]) == ["ccache → cache"] for r in taken["records"])
        release = await call(session, "recall_context", {"subject": "release-process", "query": "tuesday"})
        assert paths(release) == ["Projects/Release/Release cadence.md"]
        subjects = await call(session, "list_subjects")
        assert [(s["subject"], s["active"], s["archived"], s["events"]) for s in subjects["subjects"]] == [
            ("build-system", 3, 1, 1),
            ("release-process", 2, 0, 0),
            ("team-practices", 1, 0, 0),
        ]


async def test_an_oversized_record_comes_as_whole_sentences_or_is_omitted_and_the_answer_fits(tmp_path: Path) -> None:
    big_body = "Deploy " + "with care and many words. " * 200
    vault = write_vault(
        tmp_path / "v",
        {"Big deploy.md": record("ops", big_body), "Small deploy.md": record("ops", "Deploy on Mondays.")},
    )
    async with serving("cursor", vault) as session:
        for budget in (512, 1024, 4096):
            payload = await call(session, "recall_context", {"subject": "ops", "query": "deploy", "budget": budget})
            assert json_size(payload) <= budget
            assert payload["records"][0] == {
                **payload["records"][0],
                "path": "Small deploy.md",
                "text": "Deploy on Mondays.\n",
            }
            # The large note: its best whole sentences where some fit beside the small one
            # (docs/tools.md, passages), never a cut one; else counted in `omitted`.
            assert paths(payload) == (["Small deploy.md"] if budget == 512 else ["Small deploy.md", "Big deploy.md"])
            assert len(payload["records"]) + payload["omitted"] == 2
            for big in payload["records"][1:]:
                assert "text" not in big and big["passages"] and big["bytes"] > budget
                assert all(p["text"] in big_body and p["text"].endswith(".") for p in big["passages"])
        roomy = await call(session, "recall_context", {"subject": "ops", "query": "deploy", "budget": 65536})
        assert sorted(paths(roomy)) == ["Big deploy.md", "Small deploy.md"]
        big = next(r for r in roomy["records"] if r["path"] == "Big deploy.md")
        assert big["text"] == big_body.strip() + "\n"


async def test_unavailable_vaults_differ_from_an_empty_answer(tmp_path: Path, sample: Path) -> None:
    (tmp_path / "a file").write_text("not a vault", encoding="utf-8")
    cases = {tmp_path / "missing": "does not exist", tmp_path / "a file": "is a file, not a folder"}
    for vault, words in cases.items():
        async with serving("cursor", vault) as session:
            payload = await call(session, "recall_context", {"subject": "build-system", "query": "bazel"})
            assert payload["status"] == "unavailable"
            assert words in payload["reason"] and str(vault) in payload["reason"]
            assert payload["records"] == []
            assert (await call(session, "list_subjects"))["status"] == "unavailable"
    async with serving("cursor", sample) as session:
        payload = await call(session, "recall_context", {"subject": "hiring", "query": "kubernetes"})
        assert (payload["status"], payload["records"], payload["weak_match"]) == ("ok", [], True)
        assert "reason" not in payload and "problems" not in payload


@pytest.mark.skipif(sys.platform == "win32", reason="Windows denies no folder by its mode")
async def test_an_unreadable_vault_folder_is_unavailable(
    world_readable_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Root reads any folder, so when the tests run as root (as CI does) the server runs as
    # 'nobody' instead, against a vault only root may open: a real permission denial.
    vault = copy_sample_vault(world_readable_tmp / "Private vault")
    monkeypatch.setenv("VAULT_RECALL_HOME", str(world_readable_tmp / "home"))  # readable by 'nobody' too
    prefix = as_nobody_if_root()
    vault.chmod(0o700 if IS_ROOT else 0)
    try:
        async with serving("cursor", vault, prefix=prefix) as session:
            payload = await call(session, "recall_context", {"subject": "build-system", "query": "bazel"})
    finally:
        vault.chmod(0o755)
    assert payload["status"] == "unavailable"
    assert "permission denied" in payload["reason"]


BROKEN_NOTES: dict[str, bytes] = {
    "duplicate key": b"---\nsubject: build-system\nsubject: build-system\n---\nBazel\n",
    # (A name written as a number, `2024: year`, is no problem: Obsidian reads it as that text.)
    "template subject": b"---\nsubject: {{subject}}\n---\nBazel\n",
    "unterminated block": b"---\nsubject: build-system\nBazel\n",
    "non-UTF-8": b"---\nsubject: build-system\n---\nBazel caf\xe9\n",
    "yaml syntax": b"---\nsubject: [build-system\n---\nBazel\n",
    "bad subject value": b"---\nsubject: Build System\n---\nBazel\n",
    "bad status": b"---\nsubject: build-system\nstatus: finished\n---\nBazel\n",
    "bad kind": b"---\nsubject: build-system\nkind: memo\n---\nBazel\n",
    "event without date": b"---\nsubject: build-system\nkind: event\n---\nBazel\n",
    "impossible date": b"---\nsubject: build-system\nkind: event\ndate: 2026-02-30\n---\nBazel\n",
}


async def test_each_invalid_note_case_degrades_the_answer_naming_the_file(sample: Path) -> None:
    broken = sample / "Projects/Build/Broken note.md"
    async with serving("cursor", sample) as session:
        for case, data in BROKEN_NOTES.items():
            broken.write_bytes(data)
            payload = await call(session, "recall_context", {"subject": "build-system", "query": "bazel"})
            assert payload["status"] == "degraded", case
            assert [p["path"] for p in payload["problems"]] == ["Projects/Build/Broken note.md"], case
            assert payload["problems"][0]["reason"].startswith("Projects/Build/Broken note.md"), case
            assert NOTE in paths(payload), case  # the valid records still come back
            other = await call(session, "recall_context", {"subject": "team-practices", "query": "approvals"})
            expected = "degraded" if case in ("yaml syntax", "bad subject value", "template subject") else "ok"
            assert other["status"] == expected, case  # only unreadable subjects could be about anything
        broken.unlink()
        healed = await call(session, "recall_context", {"subject": "build-system", "query": "bazel"})
        assert healed["status"] == "ok" and "problems" not in healed


async def test_recall_leaves_the_vault_byte_for_byte_unchanged(sample: Path) -> None:
    before = snapshot(sample)
    async with serving("cursor", sample) as cursor, serving("zed", sample) as zed:
        for session in (cursor, zed):
            await call(session, "list_subjects")
            for subject, query in (("build-system", "bazel"), ("release-process", "release"), ("nobody", "x")):
                for match in ("all", "any"):
                    await call(session, "recall_context", {"subject": subject, "query": query, "match": match})
            await call_error(session, "recall_context", {"subject": "BAD", "query": "x"})
    assert snapshot(sample) == before


async def test_tools_are_read_only_documented_and_the_server_says_notes_are_evidence(shared_sample: Path) -> None:
    async with serving("cursor", shared_sample) as session:
        assert session.instructions is not None
        assert "evidence" in session.instructions and "not instructions" in session.instructions
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert set(tools) == {
            "recall_context",
            "list_subjects",
            "recall_activity",
            "read_note",
            "search_notes",
            "get_backlinks",
        }
        for tool in tools.values():
            assert tool.annotations is not None
            assert tool.annotations.read_only_hint is True
            assert tool.annotations.destructive_hint is False
            assert tool.annotations.idempotent_hint is True
            assert tool.annotations.open_world_hint is False
            assert tool.description and "Returns" in tool.description
        schema = tools["recall_context"].input_schema["properties"]
        assert (schema["budget"]["minimum"], schema["budget"]["maximum"]) == (512, 65536)
        assert (schema["limit"]["minimum"], schema["limit"]["maximum"]) == (1, 20)
        assert schema["match"]["enum"] == ["any", "all"]


def test_stdout_carries_only_protocol_messages(shared_sample: Path) -> None:
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "recall_context", "arguments": {"subject": "BAD", "query": ""}},
        },
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "recall_context", "arguments": {"subject": "build-system", "query": "bazel"}},
        },
    ]
    messages: dict[int, dict[str, Any]] = {}
    with subprocess.Popen(
        [*vault_recall_command(), "serve", "--client", "raw", "--vault", str(shared_sample)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as server:
        assert server.stdin is not None and server.stdout is not None and server.stderr is not None
        server.stdin.write("".join(json.dumps(r) + "\n" for r in requests))
        server.stdin.flush()
        deadline = time.monotonic() + 120  # bounded, and generous: a loaded machine may take a while
        while not {2, 3} <= messages.keys() and time.monotonic() < deadline:  # answers may come in any order
            ready, _, _ = select.select([server.stdout], [], [], max(0.0, deadline - time.monotonic()))
            line = server.stdout.readline() if ready else ""
            if not line:
                break
            message = json.loads(line)  # every stdout line must be a JSON-RPC message
            assert message["jsonrpc"] == "2.0"
            messages[message.get("id", -1)] = message
        server.stdin.close()
        rest = server.stdout.read()
        stderr = server.stderr.read()
        server.wait(timeout=30)
    assert rest == ""  # nothing after the answers either
    assert messages[2]["result"]["isError"] is True
    assert messages[3]["result"]["structuredContent"]["status"] == "ok"
    assert "Traceback" not in stderr
