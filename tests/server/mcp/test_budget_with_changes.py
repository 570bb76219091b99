"""Every tool's whole answer stays within its `budget`, `changed_since_recalled` included,
through the tool functions the MCP server calls: random budgets, note names and numbers of
changed notes."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import anyio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.depth import costly_cases
from tests.support.vaults import record, write_vault
from vault_recall.server.config.call_scope import ServeOptions
from vault_recall.server.mcp.tools import build_server
from vault_recall.server.recall.answers.changed_since import FIELD, MAX_TOLD

# Every tool and the budgets it takes; list_subjects has none (only MAX_TOLD bounds it).
TOOLS: dict[str, tuple[int, int] | None] = {
    "list_subjects": None,
    "recall_context": (512, 65536),
    "recall_activity": (512, 65536),
    "read_note": (1024, 65536),
    "search_notes": (512, 65536),
    "get_backlinks": (1024, 65536),
}

# Names as people write them: long, with spaces, accents and symbols Obsidian allows.
name_chars = st.sampled_from(list("abcdefghijklmnopqrstuvwxyz ABCDEFGH0123456789éüßæ漢字-_'&()!"))
names = st.text(name_chars, min_size=1, max_size=120).map(str.strip).filter(lambda n: n and not n.startswith("."))


def arguments(tool: str, budget: int | None) -> dict[str, Any]:
    sized: dict[str, Any] = {} if budget is None else {"budget": budget}
    fixed: dict[str, dict[str, Any]] = {
        "list_subjects": {},
        "recall_context": {"subject": "alpha", "query": "decision", "limit": 20},
        "recall_activity": {"subject": "alpha", "limit": 20},
        "read_note": {"note": "Target"},
        "search_notes": {"query": "decision", "limit": 100},
        "get_backlinks": {"note": "Target", "limit": 200},
    }
    return fixed[tool] | sized


def answer(server: Any, tool: str, args: dict[str, Any]) -> tuple[dict[str, Any], int]:
    async def go() -> Any:
        return await server.call_tool(tool, args)

    result = anyio.run(go)
    assert not result.is_error, result.content[0].text
    text = result.content[0].text
    return json.loads(text), len(text.encode("utf-8"))


@settings(max_examples=costly_cases(), deadline=None, suppress_health_check=list(HealthCheck))
@given(
    tool=st.sampled_from(sorted(TOOLS)),
    note_names=st.lists(names, min_size=3, max_size=18, unique_by=str.casefold),
    changed=st.integers(min_value=0, max_value=18),
    # Mostly near the smallest budget, where the answer fills it and a change told overflows.
    over_minimum=st.one_of(st.integers(0, 1024), st.integers(0, 8192)),
)
def test_every_tools_answer_with_the_changes_it_tells_stays_within_its_budget(
    tool: str, note_names: list[str], changed: int, over_minimum: int
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        notes: dict[str, str | bytes] = {"Target.md": record("alpha", "The decision everyone links to.")}
        for n, name in enumerate(note_names):  # decisions and events, each linking to Target
            dated = {"kind": "event", "date": "2026-01-02"} if n % 2 else {}
            notes[f"Recalled/{name}.md"] = record("alpha", f"A decision about {name}. See [[Target]].", **dated)
        vault = write_vault(Path(folder) / "Vault", notes)
        server = build_server(ServeOptions(client="prop", pinned_vault=vault))
        # Hand every note out, then change some of them.
        answer(server, "recall_context", {"subject": "alpha", "limit": 20, "budget": 65536})
        answer(server, "recall_activity", {"subject": "alpha", "limit": 50, "budget": 65536})
        for name in note_names[:changed]:
            path = vault / "Recalled" / f"{name}.md"
            path.write_text(path.read_text(encoding="utf-8") + "\nCorrected.\n", encoding="utf-8")
        bounds = TOOLS[tool]
        budget = None if bounds is None else bounds[0] + over_minimum
        result, size = answer(server, tool, arguments(tool, budget))
        if budget is not None:
            assert size <= budget, (tool, budget, size, len(result.get(FIELD, [])))
        assert len(result.get(FIELD, [])) <= MAX_TOLD
