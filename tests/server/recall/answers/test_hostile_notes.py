"""Hostile and unlucky notes, in process: bounded work per note, every returned path opens,
unreadable files named only to clients that could see them, no query kept in errors when it
must not be."""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.vaults import record, write_vault
from vault_recall.server.errors import NoteNotFound
from vault_recall.server.recall.answers import reading, recall_records, search
from vault_recall.server.recall.scope import Exposure, ExposureMode, Scope
from vault_recall.server.vault.settings import ExcludedFiles

MEGA = 1_000_000  # under the 1 MiB note limit, with its properties


@contextmanager
def counting_finds() -> Iterator[list[int]]:
    """Count calls of str.find and regex searches made meanwhile (the per-note work that a word
    found inside longer words multiplies)."""
    counted = [0]

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "c_call" and getattr(arg, "__name__", "") in ("find", "search", "finditer"):
            counted[0] += 1

    sys.setprofile(profile)
    try:
        yield counted
    finally:
        sys.setprofile(None)


@pytest.fixture
def yyyy(tmp_path: Path) -> Path:
    notes = {f"Y{i}.md": record("build-system", "y" * MEGA) for i in range(3)}
    return write_vault(tmp_path / "v", {**notes, "Real.md": record("build-system", "a real y here")})


def scope_of(vault: Path, mode: ExposureMode = "records") -> Scope:
    return Scope(client="t", vault=vault, exposure=Exposure(mode=mode))


def test_a_word_found_a_million_times_inside_longer_words_costs_a_few_finds(yyyy: Path) -> None:
    with counting_finds() as finds:
        found = recall_records.recall_context(scope_of(yyyy), "build-system", "y", budget=65536, limit=20)
    assert [r["path"] for r in found["records"]] == ["Real.md"]
    assert finds[0] < 1000  # a million before: one per place the word sat inside 'yyyy…'


def test_a_phrase_found_a_million_times_on_one_line_costs_one_find_per_line(yyyy: Path) -> None:
    with counting_finds() as finds:
        found = search.search_notes(scope_of(yyyy), "yyy", limit=100, budget=65536)
    assert sorted(hit["path"] for hit in found["records"]) == ["Y0.md", "Y1.md", "Y2.md"]
    assert all(hit["line"] == 4 for hit in found["records"])
    assert finds[0] < 1000


@pytest.mark.parametrize("mode", ["records", "vault"])
def test_every_path_a_tool_returns_opens_with_read_note(tmp_path: Path, mode: ExposureMode) -> None:
    nfc = unicodedata.normalize("NFC", "Café")
    nfd = unicodedata.normalize("NFD", "Café")
    names = [" lead", "back\\slash", nfc, nfd, "tail ", "C# notes #12", "a|b", "Ünïcode"]
    vault = write_vault(tmp_path / "v", {f"{n}.md": record("build-system", f"caching in {n!r}") for n in names})
    scope = scope_of(vault, mode)
    hits = search.search_notes(scope, "caching", limit=100, budget=65536)
    returned = {h["path"] for h in hits["records"]}
    assert returned == {f"{n}.md" for n in names}
    for path in returned:
        note = reading.read_note(scope, path)
        assert note["path"] == path and "caching" in note["text"]
        without_suffix = reading.read_note(scope, path.removesuffix(".md"))
        assert without_suffix["path"] == path


def test_an_unreadable_folder_that_excluded_files_hide_is_never_named() -> None:
    excluded = ExcludedFiles(prefixes=("Private/",), patterns=(re.compile("^Rx/"), re.compile(r"\.md$")))
    assert excluded.hides_folder("Rx/Secret plans")
    assert excluded.hides_folder("Private/deep")
    assert not excluded.hides_folder("Rxx")  # '^Rx/' does not match its notes
    assert not excluded.hides_folder("Open")  # '\.md$' matches its notes but not the folder: some other file might be


def test_a_missing_note_and_an_unshared_one_answer_alike(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "v", {"HR/Salary of Bob.md": "plain note, not a record"})
    with pytest.raises(NoteNotFound) as unshared:
        reading.read_note(scope_of(vault), "Salary of Bob")
    with pytest.raises(NoteNotFound) as missing:
        reading.read_note(scope_of(vault), "Salary of Eve")
    assert str(unshared.value).replace("Bob", "X") == str(missing.value).replace("Eve", "X")
