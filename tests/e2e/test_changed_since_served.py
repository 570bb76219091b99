"""End to end over real processes: a client that recalled a note is told, on its next call of
any tool, that the person changed it since — and a client that never recalled it is told
nothing.  Real `serve` processes over stdio, and one real `vault-recall http` endpoint."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.e2e import call, serving
from tests.support.http_e2e import http_client, running_endpoint
from tests.support.vaults import record, write_vault
from vault_recall.app.cli.main import main
from vault_recall.app.state.config_store import issue_token, save_config, update_config
from vault_recall.server.config.config_file import ClientEntry, Config, VaultEntry

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

FIELD = "changed_since_recalled"
BUILD = "Projects/Build decision.md"
RELEASE = "Projects/Release.md"


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def team_vault(root: Path) -> Path:
    return write_vault(
        root,
        {
            BUILD: record("build-system", "We build with Bazel. See [[Release]]."),
            RELEASE: record("release-process", "Release on Tuesdays, after the Bazel build is green."),
            "Journal/Outage.md": record("build-system", "The cache broke.", kind="event", date="2026-03-14"),
        },
    )


def configure(vault: Path, *clients: ClientEntry) -> None:
    save_config(Config(vaults=(VaultEntry("Team", str(vault)),), active_vault="Team", clients=clients))


def told(result: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    return [(entry["path"], entry["was"], entry["now"]) for entry in result.get(FIELD, [])]


# Every tool, with arguments that hand out no whole note the test is watching.
ANY_TOOL: list[tuple[str, dict[str, Any]]] = [
    ("list_subjects", {}),
    ("recall_activity", {"subject": "build-system"}),
    ("search_notes", {"query": "tuesdays"}),
    ("get_backlinks", {"note": "Release"}),
    ("read_note", {"note": "Release", "budget": 1024}),
    ("recall_context", {"subject": "release-process", "query": "tuesdays"}),
]


async def test_a_client_that_recalled_a_note_is_told_on_its_next_call_of_any_tool_and_no_other_client_is(
    tmp_path: Path,
) -> None:
    vault = team_vault(tmp_path / "Team")
    configure(vault, ClientEntry("cursor"), ClientEntry("zed"))
    build = vault / BUILD
    async with serving("cursor", None) as cursor, serving("zed", None) as zed:
        # The model is told what the field means and what to do: in the instructions, and in
        # the description of every tool, since any of them may carry it.
        assert cursor.instructions is not None and FIELD in cursor.instructions
        assert "read_note it again before relying on it" in cursor.instructions
        for listed in (await cursor.list_tools()).tools:
            assert listed.description and FIELD in listed.description and "again first" in listed.description
        first = await call(cursor, "recall_context", {"subject": "build-system", "query": "bazel"})
        assert [r["path"] for r in first["records"]] == [BUILD] and FIELD not in first
        await call(zed, "recall_context", {"subject": "release-process", "query": "tuesdays"})
        # Nothing changed: nobody is told anything.
        assert FIELD not in await call(cursor, "list_subjects")
        assert FIELD not in await call(zed, "list_subjects")

        # The person corrects the note, again and again; each time cursor's very next call,
        # whichever tool it is, carries the change — once.
        was = first["records"][0]["revision"]
        for number, (tool, args) in enumerate(ANY_TOOL):
            build.write_text(record("build-system", f"We build with Bazel (correction {number})."), encoding="utf-8")
            now = sha(build)
            result = await call(cursor, tool, args)
            assert told(result) == [(BUILD, was, now)], tool
            assert result[FIELD][0]["uri"] == "obsidian://open?vault=Team&file=Projects%2FBuild%20decision"
            assert FIELD not in await call(cursor, "list_subjects")
            was = now

        # zed recalled only the release note, which did not change: it is told nothing.
        assert FIELD not in await call(zed, "list_subjects")
        assert FIELD not in await call(zed, "search_notes", {"query": "bazel"})

        # A recall that returns the corrected note says so too: the record is the new text.
        build.write_text(record("build-system", "We build with Bazel and Make."), encoding="utf-8")
        again = await call(cursor, "recall_context", {"subject": "build-system", "query": "bazel"})
        assert told(again) == [(BUILD, was, sha(build))]
        assert again["records"][0]["revision"] == sha(build) and "Make" in again["records"][0]["text"]


async def test_a_deleted_note_is_told_as_gone_to_each_client_that_recalled_it(tmp_path: Path) -> None:
    vault = team_vault(tmp_path / "Team")
    configure(vault)
    async with serving("cursor", None) as cursor, serving("zed", None) as zed:
        for client in (cursor, zed):
            await call(client, "read_note", {"note": "Release"})
        was = sha(vault / RELEASE)
        (vault / RELEASE).unlink()
        for client in (cursor, zed):
            assert told(await call(client, "list_subjects")) == [(RELEASE, was, None)]
            assert FIELD not in await call(client, "list_subjects")  # forgotten once told


async def test_a_note_out_of_the_clients_sight_since_it_was_recalled_is_told_as_gone_and_nothing_more(
    tmp_path: Path,
) -> None:
    vault = team_vault(tmp_path / "Team")
    configure(vault, ClientEntry("cursor"))
    async with serving("cursor", None) as cursor:
        await call(cursor, "recall_context", {"subject": "build-system", "query": "bazel"})
        await call(cursor, "recall_context", {"subject": "release-process", "query": "tuesdays"})
        build_was, release_was = sha(vault / BUILD), sha(vault / RELEASE)
        # The person shares only the release process with cursor now, and edits the build
        # decision meanwhile: cursor learns the note is gone for it, not its new revision.
        (vault / BUILD).write_text(record("build-system", "Secret correction."), encoding="utf-8")

        def only_release(config: Config) -> Config:
            return dataclasses.replace(config, clients=(ClientEntry("cursor", exposure=("release-process",)),))

        update_config(only_release)
        result = await call(cursor, "list_subjects")
        assert told(result) == [(BUILD, build_was, None)]
        assert "Secret" not in str(result)
        # Obsidian's Excluded files hide the release note too: gone as well.
        (vault / ".obsidian").mkdir()
        (vault / ".obsidian/app.json").write_text('{"userIgnoreFilters": ["Projects/Release"]}', encoding="utf-8")
        assert told(await call(cursor, "list_subjects")) == [(RELEASE, release_was, None)]
        assert FIELD not in await call(cursor, "list_subjects")


async def test_over_http_each_token_is_told_only_of_the_notes_its_own_client_recalled(tmp_path: Path) -> None:
    vault = team_vault(tmp_path / "Team")
    configure(vault, ClientEntry("cursor"), ClientEntry("zed"))
    tokens = {client: issue_token(client)[0] for client in ("cursor", "zed")}
    with running_endpoint() as endpoint:
        async with (
            http_client(endpoint.url, tokens["cursor"]) as cursor,
            http_client(endpoint.url, tokens["zed"]) as zed,
        ):
            await call(cursor, "recall_context", {"subject": "build-system", "query": "bazel"})
            await call(zed, "recall_context", {"subject": "release-process", "query": "tuesdays"})
            was = sha(vault / BUILD)
            (vault / BUILD).write_text(record("build-system", "We build with Bazel 8."), encoding="utf-8")
            assert FIELD not in await call(zed, "list_subjects")
            assert told(await call(cursor, "list_subjects")) == [(BUILD, was, sha(vault / BUILD))]
        # Another session of the same client (the same token): remembered per client.
        (vault / BUILD).write_text(record("build-system", "We build with Bazel 9."), encoding="utf-8")
        async with http_client(endpoint.url, tokens["cursor"]) as cursor_again:
            result = await call(cursor_again, "list_subjects")
            assert [entry["now"] for entry in result[FIELD]] == [sha(vault / BUILD)]


async def test_vault_recall_activity_marks_each_note_changed_or_gone_since_as_it_is_now(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = team_vault(tmp_path / "Team")
    configure(vault)
    async with serving("cursor", None) as cursor:
        recalled = await call(cursor, "recall_context", {"subject": "build-system", "query": "bazel"})
        await call(cursor, "read_note", {"note": "Release"})
        await call(cursor, "search_notes", {"query": "bazel"})  # lines of notes: never marked
    # The process has ended: its events are in the store.
    was, release_was = recalled["records"][0]["revision"], sha(vault / RELEASE)
    original = (vault / BUILD).read_bytes()
    (vault / BUILD).write_text(record("build-system", "We build with Bazel 8."), encoding="utf-8")
    (vault / RELEASE).unlink()

    def activity() -> tuple[list[str], list[dict[str, Any]]]:
        assert main(["activity"]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert main(["activity", "--json"]) == 0
        return lines, [json.loads(line) for line in capsys.readouterr().out.splitlines()]

    lines, events = activity()
    assert [e["tool"] for e in events] == ["recall_context", "read_note", "search_notes"]
    assert f"[{BUILD} (changed since)]" in lines[0]
    assert f"[{RELEASE} (gone since)]" in lines[1]
    assert "since" not in lines[2]
    assert events[0]["changed_since"] == [{"path": BUILD, "was": was, "now": sha(vault / BUILD)}]
    assert events[1]["changed_since"] == [{"path": RELEASE, "was": release_was, "now": None}]
    assert events[2]["changed_since"] == [] and events[2]["returned"]
    # Read fresh each time, never stored: the person undoes the edit, and the mark is gone.
    (vault / BUILD).write_bytes(original)
    lines, events = activity()
    assert "since" not in lines[0] and events[0]["changed_since"] == []
