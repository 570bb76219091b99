"""End to end over a real `serve` process on the sample vault: the reading tools and freshness."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support.e2e import call, call_error, copy_sample_vault, serving
from tests.support.vaults import snapshot

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return copy_sample_vault(tmp_path / "Sample vault")


async def test_each_reading_tool_answers_on_the_sample_vault(shared_sample: Path) -> None:
    before = snapshot(shared_sample)
    async with serving("cursor", shared_sample) as session:
        note = await call(session, "read_note", {"note": "Bazel decision"})
        assert note["path"] == "Projects/Build/Build decision.md"
        assert note["text"].startswith("# We build with Bazel")
        assert note["uri"] == "obsidian://open?vault=Shared%20sample&file=Projects%2FBuild%2FBuild%20decision"
        assert note["properties"]["created"] == "2026-02-02"

        section = await call(
            session, "read_note", {"note": "Release cadence", "section": "Releases ship every second Tuesday"}
        )
        assert section["text"].startswith("# Releases ship every second Tuesday")

        found = await call(session, "search_notes", {"query": "remote cache"})
        assert {h["path"] for h in found["records"]} >= {"Projects/Build/CI cache.md"}
        assert all(h["uri"].startswith("obsidian://open?vault=Shared%20sample&file=") for h in found["records"])

        linked = await call(session, "get_backlinks", {"note": "CI cache"})
        assert [h["path"] for h in linked["records"]] == [
            "Journal/2026-03-14 Build outage.md",
            "Projects/Build/Build decision.md",
        ]  # Welcome.md and the meeting notes link too, but they are not records: not shared by default
        first = await call(session, "get_backlinks", {"note": "CI cache", "limit": 1})
        second = await call(session, "get_backlinks", {"note": "CI cache", "limit": 1, "offset": first["next_offset"]})
        assert first["records"] + second["records"] == linked["records"] and "next_offset" not in second

        history = await call(session, "recall_activity", {"subject": "build-system"})
        assert [(r["path"], r["date"]) for r in history["records"]] == [
            ("Journal/2026-03-14 Build outage.md", "2026-03-14")
        ]
        assert (await call(session, "recall_activity", {"subject": "build-system", "on_or_after": "2026-03-15"}))[
            "records"
        ] == []
        message = await call_error(session, "read_note", {"note": "Templates/Decision template"})
        assert "no note 'Templates/Decision template' that this client can read" in message
        assert message.replace("Templates/Decision template", "X") == (
            await call_error(session, "read_note", {"note": "No/Such note"})
        ).replace("No/Such note", "X")
    assert snapshot(shared_sample) == before


async def test_renames_aliases_and_exclusions_show_on_the_next_call(sample: Path) -> None:
    async with serving("cursor", sample) as session:
        assert (await call(session, "read_note", {"note": "Code review rules"}))["path"] == "Team/Code review rules.md"

        os.rename(sample / "Team/Code review rules.md", sample / "Team/Review policy v2.md")
        assert (await call(session, "read_note", {"note": "Review policy v2"}))["path"] == "Team/Review policy v2.md"
        assert "no note 'Code review rules'" in await call_error(session, "read_note", {"note": "Code review rules"})

        note = sample / "Projects/Release/Versioning.md"
        note.write_text(note.read_text(encoding="utf-8").replace("tags:", "aliases: [CalVer]\ntags:"), encoding="utf-8")
        assert (await call(session, "read_note", {"note": "calver"}))["path"] == "Projects/Release/Versioning.md"

        assert any(
            h["path"].startswith("Projects/Release/")
            for h in (await call(session, "search_notes", {"query": "release"}))["records"]
        )
        app_json = sample / ".obsidian/app.json"
        settings = json.loads(app_json.read_text(encoding="utf-8"))
        settings["userIgnoreFilters"].append("Projects/Release/")
        app_json.write_text(json.dumps(settings), encoding="utf-8")
        after = await call(session, "search_notes", {"query": "release", "limit": 100})
        assert not any(h["path"].startswith("Projects/Release/") for h in after["records"])
        assert "no note 'calver'" in await call_error(session, "read_note", {"note": "calver"})
