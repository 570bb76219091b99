"""A tool call reads the config once — its scope and the keeping of its activity event come
from the same reading — and the vault's settings once, for its answer and the changes told
with it (second readings cost as much as the rest of a read by exact path, and could disagree
with the first when the person saves mid-call).  Nothing is kept from one call to the next."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.support.vaults import record, write_vault
from vault_recall.server.activity.queries import recent_events
from vault_recall.server.config import config_file
from vault_recall.server.config.call_scope import ServeOptions
from vault_recall.server.config.config_file import activity_path, config_path
from vault_recall.server.mcp.tools import build_server
from vault_recall.server.vault.settings import TEMPLATE_SETTINGS, read_settings


def _write_config(vault: Path, keep_query_text: bool) -> None:
    config = {
        "version": 1,
        "vaults": [{"name": "Notes", "path": str(vault)}],
        "active_vault": "Notes",
        "clients": [{"id": "cursor", "vault": "active", "exposure": "vault"}],
        "activity": {"keep_query_text": keep_query_text},
    }
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text(json.dumps(config), encoding="utf-8")


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("recall_context", {"subject": "build", "query": "bazel"}),
        ("read_note", {"note": "Build.md"}),
        ("search_notes", {"query": "bazel"}),
        ("list_subjects", {}),
    ],
)
def test_a_call_reads_the_config_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tool: str, arguments: dict[str, Any]
) -> None:
    vault = write_vault(tmp_path / "vault", {"Build.md": record("build", "We build with bazel.")})
    _write_config(vault, keep_query_text=True)
    reads: list[Path] = []
    real = config_file.parse_config

    # Counted where every reading of the file goes (load_config looks it up in its module).
    def counted(raw: bytes, path: Path) -> config_file.Config:
        reads.append(path)
        return real(raw, path)

    monkeypatch.setattr(config_file, "parse_config", counted)
    server = build_server(ServeOptions(client="cursor"))

    async def call() -> Any:
        return await server.call_tool(tool, arguments)

    result = anyio.run(call)
    server.activity.close()
    assert not result.is_error, result.content[0].text
    assert result.structured_content["status"] == "ok"
    assert len(reads) == 1, f"{tool} read the config {len(reads)} times"
    assert [event.tool for event in recent_events(activity_path())] == [tool]


def test_the_event_is_kept_as_the_config_the_call_read_says(tmp_path: Path) -> None:
    """With query text not kept, the event of a call keeps no query, as that call's config says."""
    vault = write_vault(tmp_path / "vault", {"Build.md": record("build", "We build with bazel.")})
    _write_config(vault, keep_query_text=False)
    server = build_server(ServeOptions(client="cursor"))

    async def call() -> Any:
        return await server.call_tool("recall_context", {"subject": "build", "query": "bazel"})

    result = anyio.run(call)
    server.activity.close()
    assert result.structured_content["records"][0]["path"] == "Build.md"
    events = recent_events(activity_path())
    assert [(event.tool, event.query) for event in events] == [("recall_context", None)]


ONE_READING = [".obsidian/app.json", *(f".obsidian/{name}" for name, _ in TEMPLATE_SETTINGS)]


def test_a_call_reads_the_vault_settings_once_and_the_next_call_reads_them_anew(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = write_vault(
        tmp_path / "vault",
        {
            "Build.md": record("build", "We build with bazel."),
            "Drafts/Idea.md": record("build", "Maybe make."),
            ".obsidian/app.json": "{}",
        },
    )
    _write_config(vault, keep_query_text=True)
    reads: list[str] = []

    def counted(root: Path, path: str) -> dict[str, object] | None:
        reads.append(path)
        return read_settings(root, path)

    # Where Excluded files (app.json) and the template folder's two settings are read: the module
    # looks the function up as it runs.
    monkeypatch.setattr("vault_recall.server.vault.settings.read_settings", counted)
    server = build_server(ServeOptions(client="cursor"))

    def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        async def go() -> Any:
            return await server.call_tool(tool, arguments)

        result = anyio.run(go)
        assert not result.is_error, result.content[0].text
        answer: dict[str, Any] = result.structured_content
        return answer

    assert call("read_note", {"note": "Drafts/Idea.md"})["path"] == "Drafts/Idea.md"
    # The next call both answers and checks the note handed out before: one reading for both.
    reads.clear()
    assert call("read_note", {"note": "Build.md"})["path"] == "Build.md"
    assert reads == ONE_READING
    # Excluded files saved between two calls: the next call reads them, and the note handed out
    # is told as gone for this client.
    (vault / ".obsidian/app.json").write_text('{"userIgnoreFilters": ["Drafts/"]}', encoding="utf-8")
    reads.clear()
    answer = call("search_notes", {"query": "make"})
    assert answer["records"] == []
    assert [(c["path"], c["now"]) for c in answer["changed_since_recalled"]] == [("Drafts/Idea.md", None)]
    assert reads == ONE_READING
    server.activity.close()
