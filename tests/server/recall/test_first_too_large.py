"""A recall whose best record does not fit its budget names that record instead of passing it
over in silence: `first_too_large` {path, bytes}, within the budget like the rest."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.vaults import record, write_vault
from vault_recall.server.recall import context
from vault_recall.server.recall.packing import json_size
from vault_recall.server.recall.scope import Exposure, Scope

LONG_BODY = "We chose Postgres for the main store.\n\n" + "Replication and backups, reasoned at length. " * 140


def scope(vault: Path) -> Scope:
    return Scope(client="test", vault=vault, exposure=Exposure())


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_vault(
        tmp_path / "Team",
        {
            "Postgres choice.md": record("db", LONG_BODY),
            "Backups.md": record("db", "Postgres backups run nightly."),
            "Migrations.md": record("db", "Migrations live in the repository."),
        },
    )


def test_the_best_record_too_large_is_named_with_its_size(vault: Path) -> None:
    small = context.recall_context(scope(vault), "db", "postgres replication", budget=4096)
    assert [r["path"] for r in small["records"]] == ["Backups.md"]
    assert small["first_too_large"]["path"] == "Postgres choice.md"
    assert json_size(small) <= 4096

    # Asked again with a budget above `bytes` (and the envelope), the record comes back first.
    needed = small["first_too_large"]["bytes"]
    large = context.recall_context(scope(vault), "db", "postgres replication", budget=needed + 1024)
    assert large["records"][0]["path"] == "Postgres choice.md"
    assert "first_too_large" not in large
    shown = large["records"][0]
    assert json_size(shown) <= needed  # `bytes` is the record's size in an answer, at most
    assert needed - json_size(shown) < 16


def test_nothing_is_named_when_the_first_record_is_returned(vault: Path) -> None:
    result = context.recall_context(scope(vault), "db", "backups nightly", budget=4096)
    assert result["records"][0]["path"] == "Backups.md"
    assert "first_too_large" not in result


def test_recall_activity_names_its_first_event_too(tmp_path: Path) -> None:
    vault = write_vault(
        tmp_path / "Team",
        {
            "Outage.md": record("db", LONG_BODY, kind="event", date="2026-05-02"),
            "Drill.md": record("db", "A restore drill.", kind="event", date="2026-04-01"),
        },
    )
    result = context.recall_activity(scope(vault), "db", budget=2048)
    assert [r["path"] for r in result["records"]] == ["Drill.md"]
    assert result["first_too_large"]["path"] == "Outage.md"


@pytest.mark.parametrize("budget", range(512, 4097, 97))
def test_every_budget_holds_the_field_or_the_records_it_displaced(vault: Path, budget: int) -> None:
    result = context.recall_context(scope(vault), "db", "postgres replication", budget=budget, limit=3)
    assert json_size(result) <= budget
    assert "Postgres choice.md" not in [r["path"] for r in result["records"]]
    assert result["first_too_large"]["path"] == "Postgres choice.md"
    assert len(result["records"]) + result["omitted"] == 2  # Migrations holds neither word


def test_a_path_too_long_for_the_budget_is_not_named(tmp_path: Path) -> None:
    deep = "/".join(["a-folder-with-a-long-name-" + str(i) for i in range(14)])
    vault = write_vault(tmp_path / "Team", {f"{deep}/Postgres choice.md": record("db", LONG_BODY)})
    result = context.recall_context(scope(vault), "db", "postgres", budget=512)
    assert json_size(result) <= 512
    assert result["records"] == []
    assert result["omitted"] == 1
    assert "first_too_large" not in result
    roomy = context.recall_context(scope(vault), "db", "postgres", budget=1024)
    assert roomy["first_too_large"]["path"].startswith("a-folder-with-a-long-name-0/")
