"""End to end: a Chinese question finds a Chinese note through a real `vault-recall serve`,
and a question mixing a Latin word with Chinese keeps its Chinese words (ranking/words.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.e2e import call, paths, serving
from tests.support.vaults import write_vault
from vault_recall.app.state.config_store import save_config
from vault_recall.server.config.config_file import ClientEntry, Config

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

NOTE = "会议/项目预算讨论.md"


async def test_a_chinese_question_finds_the_chinese_note_over_serve(tmp_path: Path) -> None:
    vault = write_vault(
        tmp_path / "Vault",
        {
            NOTE: "本季度的项目预算需要重新分配\n",
            "插件/启动.md": "Obsidian启动太慢的时候，先关掉社区插件。\n",
            "Obsidian startup.md": "Obsidian starts slowly with many plugins.\n",
        },
    )
    save_config(Config(clients=(ClientEntry(id="zed", exposure="vault"),)))
    async with serving("zed", vault) as session:
        for query in ("项目预算", "预算"):
            found = await call(session, "recall_context", {"query": query})
            assert found["status"] == "ok" and paths(found)[0] == NOTE, found
            assert found["records"][0]["coverage"] == 1.0
        held = (await call(session, "recall_context", {"query": "项目预算"}))["records"][0]["matched"]
        assert held == {"项目": ["title", "body"], "目预": ["title", "body"], "预算": ["title", "body"]}
        mixed = await call(session, "recall_context", {"query": "Obsidian启动太慢怎么办"})
        assert paths(mixed)[0] == "插件/启动.md"
        assert {"obsidian", "启动", "太慢"} <= set(mixed["records"][0]["matched"])
        assert not any("→" in word for record in mixed["records"] for word in record["matched"])
        english = next(r for r in mixed["records"] if r["path"] == "Obsidian startup.md")
        assert english["coverage"] < 1.0
