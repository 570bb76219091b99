"""A tool call reads the config once: its scope and the keeping of its activity event come
from the same reading (a second reading cost as much as the rest of a read by exact path, and
could disagree with the first when the person saves the config mid-call)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.support.vaults import record, write_vault
from vault_recall.app.state.activity_view import recent_events
from vault_recall.server.config import config_file
from vault_recall.server.config.call_scope import ServeOptions
from vault_recall.server.config.config_file import activity_path, config_path
from vault_recall.server.mcp.tools import build_server


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
