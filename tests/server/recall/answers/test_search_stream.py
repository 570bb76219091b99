"""search_notes keeps numbers, not text, for the hits it finds; it must answer exactly as the
search that kept every hit whole, and notice a note that changed before it was read again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.reference_tools import reference_search
from tests.support.synthetic_vault import generate
from tests.support.tricky_notes import TRICKY
from tests.support.vaults import write_vault
from vault_recall.server.recall.answers import search
from vault_recall.server.recall.answers.search import excerpt, hit, hit_size
from vault_recall.server.recall.packing import json_size, json_text_size
from vault_recall.server.recall.scope import Exposure, ExposureMode, Scope


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("search") / "v"
    generate(root, 300, seed=5, invalid=8)
    write_vault(root / "Tricky", TRICKY)
    write_vault(
        root / "Odd",
        {
            "Quotes.md": '---\nsubject: build-system\n---\nCache "quoted" \\ and \t tab\n',
            # Not ASCII: ignoring case the regex way (the Kelvin sign is a K).
            "Unicode.md": "---\nsubject: build-system\n---\nCaché \u212aelvin and KELVIN, kelvin\nstraße\n",
        },
    )
    return root


@pytest.mark.parametrize("mode", ["records", "subjects", "vault"])
@pytest.mark.parametrize("subject", [None, "build-system"])
@pytest.mark.parametrize(
    ("query", "limit", "budget"),
    [("cache", 20, 8192), ("Cache", 100, 65536), ("deploy", 1, 512), ("zzz", 20, 8192), ("kelvin", 20, 8192)],
)
def test_the_search_answers_as_the_one_that_kept_every_hit(
    vault: Path, mode: ExposureMode, subject: str | None, query: str, limit: int, budget: int
) -> None:
    scope = Scope(client="t", vault=vault, exposure=Exposure(mode=mode, subjects=frozenset({"build-system"})))
    found = search.search_notes(scope, query, limit, budget, subject)
    assert found == reference_search(scope, query, limit, budget, subject)
    assert json_size(found) <= budget
    assert bool(found["records"]) == (query != "zzz")


@given(st.text(max_size=400), st.text(min_size=1, max_size=60), st.integers(1, 10**6))
def test_a_hit_size_is_the_size_of_the_hit(line: str, path: str, number: int) -> None:
    start = len(line) // 3
    end = min(len(line), start + 5)
    entry = hit(path, number, line, start, end, "My vault")
    text, shortened = excerpt(line, start, end)
    size = hit_size(json_size(path), number, json_text_size(text), json_size(entry["uri"]), shortened)
    assert size == json_size(entry)


def test_a_note_changed_before_its_hits_were_read_again_is_searched_anew(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = write_vault(tmp_path / "v", {"A.md": "---\nsubject: build-system\n---\nold cache line\n"})
    scope = Scope(client="t", vault=vault, exposure=Exposure())
    real = search._find_hits
    passes: list[int] = []

    def then_edit(*args: Any) -> Any:
        found = real(*args)
        passes.append(len(passes))
        if len(passes) == 1:  # saved by the person between the search and the reading
            (vault / "A.md").write_text("---\nsubject: build-system\n---\nnew cache line\n", encoding="utf-8")
        return found

    monkeypatch.setattr(search, "_find_hits", then_edit)
    result = search.search_notes(scope, "cache")
    assert [r["text"] for r in result["records"]] == ["new cache line"]
    assert len(passes) == 2


def test_a_note_that_never_stops_changing_gets_a_clear_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vault = write_vault(tmp_path / "v", {"A.md": "---\nsubject: build-system\n---\ncache 0\n"})
    scope = Scope(client="t", vault=vault, exposure=Exposure())
    real = search._find_hits
    edits = []

    def always_edit(*args: Any) -> Any:
        found = real(*args)
        edits.append(1)
        (vault / "A.md").write_text(f"---\nsubject: build-system\n---\ncache {len(edits)}\n", encoding="utf-8")
        return found

    monkeypatch.setattr(search, "_find_hits", always_edit)
    result = search.search_notes(scope, "cache")
    assert result["status"] == "unavailable"
    assert "kept changing" in result["reason"] and result["records"] == []


@pytest.mark.parametrize("query", ["a" + "\x01" * 199, "😀" * 200, 'a"' * 100])
def test_a_long_query_echoed_back_still_fits_the_budget(vault: Path, query: str) -> None:
    scope = Scope(client="t", vault=vault, exposure=Exposure(mode="vault"))
    result = search.search_notes(scope, query, 1, 512)
    assert json_size(result) <= 512 and result["status"] in ("ok", "degraded")
    assert result["query"] == query or result["query"].endswith("…")
