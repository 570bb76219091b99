"""What a server process remembers of the notes it handed out, and what it tells a client on a
later call, as data: tmp_path vaults, the recall functions the tools call, and the follow-up
every tool call ends with."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Any, cast

import pytest

from tests.support.told_ledger import follow_up
from tests.support.vaults import record, write_vault
from vault_recall.server.recall.answers import reading, recall_records, subjects
from vault_recall.server.recall.answers.changed_since import (
    FIELD,
    MAX_TOLD,
    OMITTED_FIELD,
    Handed,
    HandedOutNotes,
    NoteChange,
    attach,
    changed_since,
    handed_in,
)
from vault_recall.server.recall.packing import json_size
from vault_recall.server.recall.results import Envelope
from vault_recall.server.recall.scope import Exposure, Scope

DECISION = record("build-system", "We build with Bazel.")
CORRECTED = record("build-system", "We build with Bazel, and Make for the docs.")


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def scope(vault: Path | None, exposure: Exposure | None = None, client: str = "cursor") -> Scope:
    return Scope(client=client, vault=vault, exposure=exposure or Exposure())


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_vault(
        tmp_path / "Work",
        {
            "Build decision.md": DECISION,
            "Release.md": record("release-process", "Release on Tuesdays."),
            "Plain.md": "A plain note, no properties.\n",
        },
    )


def test_the_notes_a_result_hands_out_are_its_whole_records_and_read_notes_note(vault: Path) -> None:
    recalled = recall_records.recall_context(scope(vault), "build-system", "bazel")
    assert handed_in(vault, recalled) == [Handed(vault, "Build decision.md", sha(DECISION))]
    read = reading.read_note(scope(vault, Exposure(mode="vault")), "Plain")
    assert handed_in(vault, read) == [Handed(vault, "Plain.md", read["revision"])]
    # Lines of notes (search hits, backlinks) carry no revision and are not remembered.
    assert handed_in(vault, {"records": [{"path": "Build decision.md", "line": 3, "text": "x"}]}) == []
    # A note too large for its budget gives its sections, not its text: nothing was handed out.
    assert handed_in(vault, {"path": "Plain.md", "revision": "ab", "sections": []}) == []


def test_an_unchanged_note_is_not_reported(vault: Path) -> None:
    handed = [Handed(vault, "Build decision.md", sha(DECISION))]
    assert changed_since(scope(vault), handed) == []


def test_an_edited_note_is_reported_with_both_revisions(vault: Path) -> None:
    handed = [Handed(vault, "Build decision.md", sha(DECISION))]
    (vault / "Build decision.md").write_text(CORRECTED, encoding="utf-8")
    (change,) = changed_since(scope(vault), handed)
    assert change == NoteChange(vault, "Build decision.md", sha(DECISION), sha(CORRECTED))
    assert change.as_json() == {
        "path": "Build decision.md",
        "uri": "obsidian://open?vault=Work&file=Build%20decision",
        "was": sha(DECISION),
        "now": sha(CORRECTED),
    }


@pytest.mark.parametrize(
    "how",
    ["deleted", "renamed", "a symlink now", "a folder now", "excluded", "too large", "another vault in use"],
)
def test_a_note_that_is_not_there_for_the_client_any_more_is_reported_gone(
    vault: Path, tmp_path: Path, how: str
) -> None:
    note = vault / "Build decision.md"
    elsewhere = write_vault(tmp_path / "Elsewhere", {"Build decision.md": DECISION})
    handed = [Handed(vault, "Build decision.md", sha(DECISION))]
    current = scope(vault)
    if how == "deleted":
        note.unlink()
    elif how == "renamed":
        note.rename(vault / "Build decisions.md")
    elif how == "a symlink now":
        note.unlink()
        note.symlink_to(elsewhere / "Build decision.md")  # same bytes, but never followed
    elif how == "a folder now":
        note.unlink()
        note.mkdir()
    elif how == "excluded":
        (vault / ".obsidian").mkdir()
        (vault / ".obsidian/app.json").write_text(json.dumps({"userIgnoreFilters": ["Build"]}), encoding="utf-8")
    elif how == "too large":
        note.write_text(DECISION + "x" * (1024 * 1024), encoding="utf-8")
    else:
        current = scope(elsewhere)  # the person switched the active vault: same path, same bytes
    assert changed_since(current, handed) == [NoteChange(vault, "Build decision.md", sha(DECISION), None)]


def test_exposure_narrowed_after_the_recall_reports_the_note_gone_and_nothing_more(vault: Path) -> None:
    handed = [
        Handed(vault, "Build decision.md", sha(DECISION)),
        Handed(vault, "Plain.md", sha("A plain note, no properties.\n")),
    ]
    assert changed_since(scope(vault, Exposure(mode="vault")), handed) == []
    # Back to records only: the plain note is out of sight, the record still seen.
    assert changed_since(scope(vault, Exposure(mode="records")), handed) == [
        NoteChange(vault, "Plain.md", handed[1].revision, None)
    ]
    # One subject only: the other subject's record is gone too, even edited meanwhile.
    (vault / "Build decision.md").write_text(CORRECTED, encoding="utf-8")
    only_release = Exposure(mode="subjects", subjects=frozenset({"release-process"}))
    assert [c.now for c in changed_since(scope(vault, only_release), handed)] == [None, None]


def test_a_record_broken_since_is_changed_not_gone_when_the_client_is_shown_its_problem(vault: Path) -> None:
    broken = "---\nsubject: build-system\nsubject: build-system\n---\nduplicated key\n"
    (vault / "Build decision.md").write_text(broken, encoding="utf-8")
    handed = [Handed(vault, "Build decision.md", sha(DECISION))]
    assert [c.now for c in changed_since(scope(vault), handed)] == [sha(broken)]


def test_a_vault_that_cannot_be_read_right_now_tells_nothing(vault: Path, tmp_path: Path) -> None:
    handed = [Handed(vault, "Build decision.md", sha(DECISION))]
    assert changed_since(scope(None), handed) == []
    moved = tmp_path / "unmounted"
    vault.rename(moved)
    assert changed_since(scope(vault), handed) == []


def test_changes_are_attached_within_the_budget_and_the_rest_counted() -> None:
    vault = Path("/v/Work")
    changes = [NoteChange(vault, f"Notes/Decision {i}.md", "a" * 64, "b" * 64) for i in range(MAX_TOLD + 5)]
    result: dict[str, Any] = {"status": "ok", "untrusted": True, "records": []}
    told = attach(cast(Envelope, result), changes, None)
    assert told == changes[:MAX_TOLD] and len(result[FIELD]) == MAX_TOLD and result[OMITTED_FIELD] == 5
    for budget in (600, 1000, 1500):
        result = {"status": "ok", "untrusted": True, "records": []}
        told = attach(cast(Envelope, result), changes, budget)
        assert json_size(result) <= budget
        assert told == changes[: len(result[FIELD])] and result[OMITTED_FIELD] == len(changes) - len(told)
        # One more entry would not have fit.
        bigger: dict[str, Any] = {"status": "ok", "untrusted": True, "records": []}
        attach(cast(Envelope, bigger), changes, budget + 400)
        assert len(bigger[FIELD]) > len(told)
    full: dict[str, Any] = {"status": "ok", "text": "x" * 500}
    assert attach(cast(Envelope, full), changes, 520) == [] and FIELD not in full and OMITTED_FIELD not in full
    assert attach(cast(Envelope, full), [], 10_000) == [] and FIELD not in full


def test_the_memory_keeps_the_fifty_most_recent_notes_of_each_client_and_a_bounded_number_of_clients() -> None:
    vault = Path("/v")
    memory = HandedOutNotes(per_client=50, clients=3)
    memory.settle("a", [], [Handed(vault, f"N{i}.md", f"r{i}") for i in range(60)])
    notes = memory.notes("a")
    assert len(notes) == 50 and notes[0].path == "N59.md" and notes[-1].path == "N10.md"
    memory.settle("a", [], [Handed(vault, "N10.md", "r10")])  # handed out again: most recent now
    assert memory.notes("a")[0].path == "N10.md" and len(memory.notes("a")) == 50
    for client in ("b", "c", "d"):
        memory.settle(client, [], [Handed(vault, "X.md", "r")])
    assert memory.clients() == 3 and memory.notes("a") == []  # the least recently served went first
    memory.settle("e", [], [])
    assert memory.notes("e") == [] and memory.clients() == 3  # nothing handed out: nothing kept


def test_a_change_told_is_remembered_as_told_and_a_gone_note_forgotten() -> None:
    vault = Path("/v")
    memory = HandedOutNotes()
    memory.settle("a", [], [Handed(vault, "A.md", "1"), Handed(vault, "B.md", "1")])
    memory.settle("a", [NoteChange(vault, "A.md", "1", "2"), NoteChange(vault, "B.md", "1", None)], [])
    assert memory.notes("a") == [Handed(vault, "A.md", "2")]
    # A change told by one call after another call of the same client handed the note out anew.
    memory.settle("a", [], [Handed(vault, "A.md", "3")])
    memory.settle("a", [NoteChange(vault, "A.md", "2", None)], [])
    assert memory.notes("a") == [Handed(vault, "A.md", "3")]
    memory.settle("a", [NoteChange(vault, "A.md", "3", None)], [])
    assert memory.notes("a") == [] and memory.clients() == 0


def test_each_change_is_told_once_on_the_next_call_of_any_tool(vault: Path) -> None:
    memory = HandedOutNotes()
    cursor, zed = scope(vault), scope(vault, client="zed")

    def call_as(who: Scope, tool: str) -> Envelope:
        result: Envelope
        if tool == "recall":
            result = recall_records.recall_context(who, "build-system", "bazel")
        elif tool == "release":
            result = recall_records.recall_context(who, "release-process", "tuesdays")
        else:
            result = subjects.list_subjects(who)
        follow_up(memory, who, result, 4096 if tool != "subjects" else None)
        return result

    assert FIELD not in call_as(cursor, "recall")
    assert FIELD not in call_as(zed, "release")
    (vault / "Build decision.md").write_text(CORRECTED, encoding="utf-8")
    told = call_as(cursor, "subjects")
    assert told[FIELD] == [
        {
            "path": "Build decision.md",
            "uri": "obsidian://open?vault=Work&file=Build%20decision",
            "was": sha(DECISION),
            "now": sha(CORRECTED),
        }
    ]
    assert FIELD not in call_as(cursor, "subjects")  # told once
    assert FIELD not in call_as(zed, "subjects")  # zed never recalled it; its own note is unchanged
    # Recalled again, then edited again: told again, from the revision it was given last.
    assert FIELD not in call_as(cursor, "recall")
    (vault / "Build decision.md").write_text(DECISION, encoding="utf-8")
    assert [(e["was"], e["now"]) for e in call_as(cursor, "release")[FIELD]] == [(sha(CORRECTED), sha(DECISION))]


def test_a_change_that_does_not_fit_the_budget_waits_for_the_next_call(vault: Path) -> None:
    memory = HandedOutNotes()
    who = scope(vault)
    follow_up(memory, who, recall_records.recall_context(who, "build-system", "bazel"), 4096)
    (vault / "Build decision.md").write_text(CORRECTED, encoding="utf-8")
    result = recall_records.recall_context(who, "release-process", "tuesdays", budget=512)
    budget = json_size(result) + 20  # the call's own answer nearly fills it
    follow_up(memory, who, result, budget)
    assert FIELD not in result and json_size(result) <= budget
    later = subjects.list_subjects(who)
    follow_up(memory, who, later, None)
    assert [e["now"] for e in later[FIELD]] == [sha(CORRECTED)]
    assert OMITTED_FIELD not in later


def test_the_memory_holds_no_text(vault: Path) -> None:
    memory = HandedOutNotes()
    who = scope(vault, Exposure(mode="vault"))
    follow_up(memory, who, recall_records.recall_context(who, "build-system", "bazel"), 4096)
    follow_up(memory, who, reading.read_note(who, "Plain"), 16384)
    kept = repr(memory.__dict__)
    assert "Bazel" not in kept and "plain note" not in kept
    assert {h.path for h in memory.notes("cursor")} == {"Build decision.md", "Plain.md"}


def test_calls_of_many_clients_at_once_keep_each_clients_notes_apart(vault: Path) -> None:
    memory = HandedOutNotes()
    errors: list[BaseException] = []

    def client(number: int) -> None:
        try:
            who = scope(vault, client=f"c{number}")
            for _ in range(30):
                follow_up(memory, who, recall_records.recall_context(who, "build-system", "bazel"), 4096)
                assert [h.path for h in memory.notes(who.client)] == ["Build decision.md"]
        except BaseException as exc:  # reported below, on the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors and memory.clients() == 8


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads anything")
def test_a_note_that_cannot_be_read_any_more_is_reported_gone(vault: Path) -> None:
    note = vault / "Build decision.md"
    note.chmod(0)
    try:
        handed = [Handed(vault, "Build decision.md", sha(DECISION))]
        assert [c.now for c in changed_since(scope(vault), handed)] == [None]
    finally:
        note.chmod(0o644)
