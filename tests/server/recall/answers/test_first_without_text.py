"""A recall whose best record does not fit its budget, not even one whole sentence of it as a
passage, returns it first without its text (never cut, so not there at all), with its size and a
hint — not the smaller records that fit, or none, as if they were the best answer there is."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.vaults import record, write_vault
from vault_recall.server.recall.answers import recall_records
from vault_recall.server.recall.answers.changed_since import handed_in
from vault_recall.server.recall.packing import json_size
from vault_recall.server.recall.scope import Exposure, Scope

# One sentence of 6 KB: no passage of it is whole and fits (test_passages.py has the rest).
LONG_BODY = "We chose Postgres for the main store, " + "replication and backups reasoned at length, " * 140 + "done.\n"


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


def test_the_best_record_too_large_comes_first_without_its_text(vault: Path) -> None:
    small = recall_records.recall_context(scope(vault), "db", "postgres replication", budget=4096)
    assert json_size(small) <= 4096
    first, second = small["records"]
    assert first["path"] == "Postgres choice.md" and "text" not in first
    assert first["coverage"] == 1.0 and first["matched"] == {"postgres": ["title", "body"], "replication": ["body"]}
    assert "read_note" in first["hint"]
    assert second["path"] == "Backups.md" and "text" in second
    assert small["weak_match"] is False  # the best record holds every word, text or not
    assert small["omitted"] == 0

    # Asked again with a budget above `bytes` (and the envelope), it comes back whole.
    needed = first["bytes"]
    large = recall_records.recall_context(scope(vault), "db", "postgres replication", budget=needed + 1024)
    whole = large["records"][0]
    assert whole["path"] == "Postgres choice.md" and whole["text"].startswith("We chose Postgres")
    assert "bytes" not in whole and "hint" not in whole
    assert json_size(whole) <= needed < json_size(whole) + 16  # `bytes` is its size, at most


def test_it_takes_its_place_within_the_limit(vault: Path) -> None:
    result = recall_records.recall_context(scope(vault), "db", "postgres replication", budget=4096, limit=1)
    assert [(r["path"], "text" in r) for r in result["records"]] == [("Postgres choice.md", False)]
    assert result["omitted"] == 1


def test_a_first_record_that_fits_is_given_whole(vault: Path) -> None:
    result = recall_records.recall_context(scope(vault), "db", "backups nightly", budget=4096)
    assert all("text" in r and "hint" not in r for r in result["records"])
    assert result["records"][0]["path"] == "Backups.md"


def test_recall_activity_gives_its_first_event_so_too(tmp_path: Path) -> None:
    vault = write_vault(
        tmp_path / "Team",
        {
            "Outage.md": record("db", LONG_BODY, kind="event", date="2026-05-02"),
            "Drill.md": record("db", "A restore drill.", kind="event", date="2026-04-01"),
        },
    )
    result = recall_records.recall_activity(scope(vault), "db", budget=2048)
    assert [(r["path"], "text" in r) for r in result["records"]] == [("Outage.md", False), ("Drill.md", True)]
    assert result["records"][0]["date"] == "2026-05-02"


@pytest.mark.parametrize("budget", range(512, 4097, 97))
def test_every_budget_holds_the_first_record_or_what_it_would_have_displaced(vault: Path, budget: int) -> None:
    result = recall_records.recall_context(scope(vault), "db", "postgres replication", budget=budget, limit=3)
    assert json_size(result) <= budget
    paths = [r["path"] for r in result["records"]]
    assert paths in (["Postgres choice.md", "Backups.md"], ["Postgres choice.md"], ["Backups.md"], [])
    # Only when it cannot fit even alone is it left out, and then what fits is as before.
    if "Postgres choice.md" not in paths:
        stub = recall_records.recall_context(scope(vault), "db", "postgres replication", budget=4096)["records"][0]
        alone = {**result, "weak_match": False, "records": [stub], "omitted": 1}
        assert json_size(alone) > budget
    assert len(result["records"]) + result["omitted"] == 2  # Migrations holds neither word
    assert all("text" in r for r in result["records"] if r["path"] != "Postgres choice.md")


def test_a_record_without_text_hands_out_no_revision(vault: Path) -> None:
    result = recall_records.recall_context(scope(vault), "db", "postgres replication", budget=4096)
    assert [r["path"] for r in result["records"]] == ["Postgres choice.md", "Backups.md"]
    assert [h.path for h in handed_in(vault, result)] == ["Backups.md"]
