"""End to end over real `serve` processes: the template folder's notes are no records and no
problems, yet a client that sees the whole vault reads and searches them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.support.e2e import call, call_error, copy_sample_vault, serving, vault_recall_command
from vault_recall.app.state.config_store import save_config
from vault_recall.server.config.config_file import ClientEntry, Config

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


async def test_templates_cost_no_answer_anything_and_stay_readable(tmp_path: Path) -> None:
    vault = copy_sample_vault(tmp_path / "Templated")
    # The sample vault names Templates/ in templates.json and also excludes it: here it is not
    # excluded, so only the template setting keeps its notes out of recall.
    (vault / ".obsidian/app.json").write_text(json.dumps({"userIgnoreFilters": []}), encoding="utf-8")
    (vault / "Templates/Empty subject.md").write_text(
        "---\nsubject:\nkind: decision\n---\n# Title\n\nBazel placeholder\n", encoding="utf-8"
    )
    save_config(Config(clients=(ClientEntry(id="zed", exposure="vault"),)))
    async with serving("cursor", vault) as session:
        subjects = await call(session, "list_subjects")
        assert subjects["status"] == "ok" and subjects["problems"] == []
        recalled = await call(session, "recall_context", {"subject": "build-system", "query": "bazel", "match": "any"})
        assert recalled["status"] == "ok" and "problems" not in recalled
        assert recalled["records"] and not any(r["path"].startswith("Templates/") for r in recalled["records"])
        history = await call(session, "recall_activity", {"subject": "build-system"})
        assert history["status"] == "ok" and "problems" not in history
        assert "no note" in await call_error(session, "read_note", {"note": "Templates/Empty subject"})
    async with serving("zed", vault) as session:
        read = await call(session, "read_note", {"note": "Templates/Empty subject"})
        assert read["status"] == "ok" and read["text"] == "# Title\n\nBazel placeholder\n"
        found = await call(session, "search_notes", {"query": "placeholder"})
        assert found["status"] == "ok" and "problems" not in found
        assert {hit["path"] for hit in found["records"]} == {
            "Templates/Decision template.md",
            "Templates/Empty subject.md",
        }
        assert (await call(session, "list_subjects"))["problems"] == []
    health = subprocess.run(
        [*vault_recall_command(), "health", "--vault", str(vault), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert health.returncode == 0, health.stdout + health.stderr
    report = json.loads(health.stdout)
    assert report["status"] == "ok" and report["problems"] == [] and report["records"] == 7
