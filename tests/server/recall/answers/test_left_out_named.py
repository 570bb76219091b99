"""What did not fit is named, not only counted, whenever a name fits in what the records left
of the budget — not only in the eighth kept free for names, which at a small budget is narrower
than one name."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.vaults import record, write_vault
from vault_recall.server.recall.answers import recall_records
from vault_recall.server.recall.packing import json_size
from vault_recall.server.recall.results import RecallResult
from vault_recall.server.recall.scope import Exposure, Scope


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    # Twelve records on one word, each several hundred bytes: none fits a 512-byte budget.
    notes = {
        f"Decisions/Postgres decision number {i}.md": record(
            "db", f"We chose Postgres for service {i}. " + "Reasons at length. " * (20 + i)
        )
        for i in range(12)
    }
    return write_vault(tmp_path / "Team", notes)


def recall(vault: Path, budget: int) -> RecallResult:
    scope = Scope(client="test", vault=vault, exposure=Exposure())
    return recall_records.recall_context(scope, "db", "postgres", budget=budget)


@pytest.mark.parametrize("budget", [512, 768])
def test_a_small_budget_names_the_best_it_could_not_give(vault: Path, budget: int) -> None:
    result = recall(vault, budget)
    assert json_size(result) <= budget
    given = [r["path"] for r in result["records"]]
    named = [entry["path"] for entry in result["omitted_best"]]
    assert len(given) + result["omitted"] == 12
    # The best match comes first, given (without text) or named; nothing is both.
    assert (given + named)[0] == "Decisions/Postgres decision number 0.md"
    assert not set(given) & set(named)
    assert all(entry["bytes"] > budget - json_size(result) for entry in result["omitted_best"])


def test_names_take_no_more_than_the_budget_leaves(vault: Path) -> None:
    # The narrowest name any of these records could have (every one holds hundreds of bytes).
    narrowest = json_size(
        {
            "path": "Decisions/Postgres decision number 0.md",
            "title": "Postgres decision number 0",
            "bytes": 100,
            "matched": {"postgres": ["title", "body"]},
        }
    )
    for budget in range(512, 2600, 37):
        result = recall(vault, budget)
        assert json_size(result) <= budget, budget
        named = result.get("omitted_best", [])
        assert len(named) <= 5
        # Not named only when not even one more name would fit.
        if result["omitted"] and not named:
            assert json_size({**result, "omitted_best": []}) + narrowest > budget, budget
