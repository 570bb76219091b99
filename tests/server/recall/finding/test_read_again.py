"""Recall keeps numbers for what it matches and reads the returned notes again: a note saved in
between must never be returned half old, half new — the call starts over instead."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.vaults import write_vault
from vault_recall.server.recall.answers import recall_answer, recall_records
from vault_recall.server.recall.finding import scan
from vault_recall.server.recall.scope import Exposure, Scope

OLD = "---\nsubject: build-system\n---\nold cache decision\n"
NEW = "---\nsubject: build-system\n---\nnew cache decision, saved during the call\n"
EVENT = "---\nsubject: build-system\nkind: event\ndate: 2026-03-0{n}\n---\ncache event {n}\n"


def saving_after_passes(monkeypatch: pytest.MonkeyPatch, note: Path, texts: list[str]) -> list[int]:
    """Make each pass over the records save `note` anew once it is done (the person saving
    while the answer is put together); returns the list the passes are counted in."""
    real = scan.each_record  # what recall_records calls, by the name it imported
    passes: list[int] = []

    def each_record_then_save(*args: Any, **kwargs: Any) -> Iterator[Any]:
        yield from real(*args, **kwargs)
        passes.append(1)
        if len(passes) <= len(texts):
            note.write_text(texts[len(passes) - 1], encoding="utf-8")

    monkeypatch.setattr(recall_records, "each_record", each_record_then_save)
    return passes


def test_a_note_saved_before_it_was_read_again_is_recalled_as_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = write_vault(tmp_path / "v", {"Decision.md": OLD})
    passes = saving_after_passes(monkeypatch, vault / "Decision.md", [NEW])
    result = recall_records.recall_context(Scope(client="t", vault=vault, exposure=Exposure()), "build-system", "cache")
    assert [r["text"] for r in result["records"]] == ["new cache decision, saved during the call\n"]
    assert result["status"] == "ok" and len(passes) == 2


def test_an_event_saved_before_it_was_read_again_is_recalled_as_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = write_vault(tmp_path / "v", {"Event.md": EVENT.format(n=1)})
    saving_after_passes(monkeypatch, vault / "Event.md", [EVENT.format(n=2)])
    result = recall_records.recall_activity(Scope(client="t", vault=vault, exposure=Exposure()), "build-system")
    assert [(r["date"], r["text"]) for r in result["records"]] == [("2026-03-02", "cache event 2\n")]


def test_a_note_that_never_stops_changing_gets_a_clear_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vault = write_vault(tmp_path / "v", {"Decision.md": OLD})
    texts = [OLD.replace("old", f"edit {n}") for n in range(10)]
    passes = saving_after_passes(monkeypatch, vault / "Decision.md", texts)
    result = recall_records.recall_context(Scope(client="t", vault=vault, exposure=Exposure()), "build-system", "cache")
    assert result["status"] == "unavailable" and "kept changing" in result["reason"]
    assert result["records"] == [] and len(passes) == 3


def test_records_past_the_limit_are_never_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    big = "---\nsubject: build-system\n---\ncache " + "x" * 5000 + "\n"
    vault = write_vault(tmp_path / "v", {"Big.md": big, "Small.md": OLD})
    read: list[str] = []
    real = scan.read_again

    def counting(root: Path, path: str, *rest: Any) -> Any:
        read.append(path)
        return real(root, path, *rest)

    monkeypatch.setattr(recall_answer, "read_again", counting)
    scope = Scope(client="t", vault=vault, exposure=Exposure())
    result = recall_records.recall_context(scope, "build-system", "cache", limit=1)
    assert [r["path"] for r in result["records"]] == ["Small.md"] and result["omitted"] == 1
    assert read == ["Small.md"]


def test_a_record_too_large_to_return_is_not_read_again_even_when_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Ranked first (newest), but its quotes double in JSON: it cannot fit, and saving it
    # during the call must not make the call start over.
    big = "---\nsubject: build-system\n---\ncache " + '"' * 300 + "\n"
    vault = write_vault(tmp_path / "v", {"Small.md": OLD, "Big.md": big})
    os.utime(vault / "Big.md", (2_000_000_000, 2_000_000_000))
    passes = saving_after_passes(monkeypatch, vault / "Big.md", [big.replace("cache", "cache cache")] * 5)
    scope = Scope(client="t", vault=vault, exposure=Exposure())
    result = recall_records.recall_context(scope, "build-system", "cache", budget=512)
    assert result["status"] == "ok" and [r["path"] for r in result["records"]] == ["Small.md"]
    assert result["omitted"] == 1 and len(passes) == 1


def test_a_long_run_of_hashes_is_matched_in_one_pass(tmp_path: Path) -> None:
    # Minified CSS in a note: thousands of '#' with no blank between them.  (A pattern that
    # backtracked over the run once per '#' took minutes on a note this size.)
    colours = ";".join(f"#{n:03x}" for n in range(40_000))
    vault = write_vault(
        tmp_path / "v",
        {
            "Colours.md": f"---\nsubject: build-system\n---\nThe cache colours:\n{colours}#cache\n",
            "Plain.md": "---\nsubject: build-system\n---\nThe cache\n",
        },
    )
    result = recall_records.recall_context(Scope(client="t", vault=vault, exposure=Exposure()), "build-system", "cache")
    matched = {r["path"]: r["matched"] for r in result["records"]}
    assert matched["Plain.md"] == {"cache": ["body"]}
    assert "Colours.md" not in matched and result["omitted"] == 1  # too large for 4096 bytes, still counted


def test_only_the_records_returned_have_their_revision_worked_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A recall matches many notes and returns a few: the SHA-256 of each note's bytes (its
    # revision) is worked out for those alone; the others are told apart by length and CRC-32.
    notes = {f"Decision {n}.md": f"---\nsubject: build-system\n---\ncache decision {n}\n" for n in range(12)}
    vault = write_vault(tmp_path / "v", notes)
    hashed: list[bytes] = []
    real = hashlib.sha256

    def counting(data: bytes) -> Any:
        hashed.append(bytes(data))
        return real(data)

    monkeypatch.setattr(hashlib, "sha256", counting)  # what Note.revision calls
    for mode in ("records", "vault"):
        hashed.clear()
        scope = Scope(client="t", vault=vault, exposure=Exposure(mode=mode))
        result = recall_records.recall_context(scope, None if mode == "vault" else "build-system", "cache", limit=2)
        assert len(result["records"]) == 2 and result["omitted"] == 10
        returned = {(vault / r["path"]).read_bytes() for r in result["records"]}
        assert set(hashed) == returned


def test_a_note_saved_at_the_same_length_is_recalled_as_saved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vault = write_vault(tmp_path / "v", {"Decision.md": OLD})
    same_length = OLD.replace("old", "new")
    passes = saving_after_passes(monkeypatch, vault / "Decision.md", [same_length])
    result = recall_records.recall_context(Scope(client="t", vault=vault, exposure=Exposure()), "build-system", "cache")
    assert [r["text"] for r in result["records"]] == ["new cache decision\n"] and len(passes) == 2
