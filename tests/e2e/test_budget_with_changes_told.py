"""Over a real `serve` process: a small budget holds the whole answer, the changes told in it
included, whichever tool it is."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.e2e import call, serving, text_of
from tests.support.vaults import record, write_vault

pytestmark = [pytest.mark.e2e]

LONG = "A decision with a long name that somebody wrote out in full, as people do, number"


@pytest.mark.anyio
async def test_ten_changed_notes_with_long_names_fit_every_tools_small_budget(tmp_path: Path) -> None:
    names = [f"{LONG} {n}" for n in range(10)]
    vault = write_vault(
        tmp_path / "Work",
        {
            "Target.md": record("alpha", "The decision."),
            **{f"{name}.md": record("alpha", "A decision. See [[Target]].") for name in names},
        },
    )
    async with serving("budgets", vault) as client:
        for round_, (tool, args) in enumerate(
            (
                ("get_backlinks", {"note": "Target", "budget": 1024}),
                ("search_notes", {"query": "decision", "budget": 1024}),
                ("recall_context", {"subject": "alpha", "budget": 1024}),
                ("read_note", {"note": "Target", "budget": 1024}),
            )
        ):
            handed = await call(client, "recall_context", {"subject": "alpha", "limit": 20, "budget": 65536})
            assert len(handed["records"]) == 11
            for name in names:  # each of the ten changes since it was handed out
                text = record("alpha", f"Corrected {round_}. See [[Target]].")
                (vault / f"{name}.md").write_text(text, encoding="utf-8")
            answer = text_of(await client.call_tool(tool, args))
            assert len(answer.encode("utf-8")) <= 1024, (tool, len(answer.encode("utf-8")))
