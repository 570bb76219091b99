"""Every sentence a recall's answer says beside its records is true of that answer: the empty
answer's hint ("no current record holds any meaningful word of the query") only when no record
in scope holds one — the subject's own words, general words and a hyphenated word's parts are
meaningful too — the strict one only when no record holds every word as written, "there are no
current records here" only when there are none (and then what the person can do about it), and
"too large for this budget" only for a record that does not fit.  Checked against an oracle
written apart from ranking: English stems of the folded words."""

from __future__ import annotations

import re
import tempfile
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.vaults import record, write_vault
from vault_recall.server.recall.answers import recall_records
from vault_recall.server.recall.answers.recall_answer import (
    NO_MATCH_HINT,
    NO_RECORDS_HINT,
    NO_STRICT_MATCH_HINT,
    TOO_LARGE_HINT,
)
from vault_recall.server.recall.packing import json_size
from vault_recall.server.recall.ranking.languages import language
from vault_recall.server.recall.results import RecallResult
from vault_recall.server.recall.scope import Exposure, Scope
from vault_recall.server.recall.tool_declarations import MatchMode

SUBJECTS = ("sync", "build-cache")
RECORD_WORDS = ("sync", "syncing", "cache", "caching", "build", "turnaround", "decision", "keep", "vault", "notes")
QUERY_WORDS = (*RECORD_WORDS, "secrecy", "decide", "the", "what", "kubernetes", "insurance", "cachd", "build-cache")
ENGLISH = language("english")


def words_of(text: str) -> list[str]:
    folded = unicodedata.normalize("NFKC", text).casefold()
    return re.findall(r"\w+", folded)


def meaningful_stems(query: str) -> set[str]:
    """The stems of the query's words that carry meaning: neither stop words nor framing words;
    a hyphenated word by its parts of three letters or more."""
    stems = set()
    for word in words_of(query):
        stem = ENGLISH.stem(word)
        if word in ENGLISH.stop or ENGLISH.framing_meaning(stem) or len(word) < 3:
            continue
        stems.add(stem)
    return stems


def in_scope(notes: dict[str, tuple[str, str, str]], subject: str | None) -> list[str]:
    """The bodies (with titles) of the current records a recall of `subject` looks at."""
    return [
        f"{path.removesuffix('.md')}\n{body}"
        for path, (of, status, body) in notes.items()
        if status == "active" and (subject is None or of == subject)
    ]


notes_strategy = st.dictionaries(
    st.from_regex(r"[A-Z][a-z]{2,8}\.md", fullmatch=True),
    st.tuples(
        st.sampled_from(SUBJECTS),
        st.sampled_from(("active", "active", "archived")),
        st.lists(st.sampled_from(RECORD_WORDS), min_size=1, max_size=8).map(" ".join),
    ),
    max_size=7,
)


@given(
    notes=notes_strategy,
    query=st.lists(st.sampled_from(QUERY_WORDS), min_size=1, max_size=4).map(" ".join),
    subject=st.sampled_from((*SUBJECTS, None)),
    match=st.sampled_from(("any", "any", "all")),
    large=st.booleans(),
    budget=st.sampled_from((512, 1024, 4096)),
)
def test_each_hint_sentence_is_true_of_the_answer_it_comes_with(
    notes: dict[str, tuple[str, str, str]], query: str, subject: str | None, match: MatchMode, large: bool, budget: int
) -> None:
    written = {path: record(of, body, status=status) for path, (of, status, body) in notes.items()}
    if large:  # a record larger than any budget here: given without its text when it ranks first
        body = " ".join(["sync cache build turnaround"] * 400)
        notes["Large.md"] = ("sync", "active", body)
        written["Large.md"] = record("sync", body)
    with tempfile.TemporaryDirectory() as folder:
        vault = write_vault(Path(folder) / "v", written)
        scope = Scope(client="test", vault=vault, exposure=Exposure())
        result = recall_records.recall_context(scope, subject, query, budget=budget, match=match)
    current = in_scope(notes, subject)
    hint = result.get("hint")
    if hint is not None:
        assert result["records"] == [] and result["current_records"] == len(current)
    if hint == NO_MATCH_HINT:
        held = {ENGLISH.stem(word) for text in current for word in words_of(text)}
        assert match == "any" and not meaningful_stems(query) & held
    elif hint == NO_STRICT_MATCH_HINT:
        asked = set(words_of(query))
        assert match == "all" and not any(asked <= set(words_of(text)) for text in current)
    elif hint is not None:
        assert hint.startswith(NO_RECORDS_HINT) and not current
        assert "vault-recall subject suggest" in hint and f"vault-recall subject add {subject or 'SUBJECT'}" in hint
    elif not result["records"]:
        assert result["omitted"] > 0  # records matched, none fitted: they are counted, not denied
    for shown in result["records"]:
        if "hint" in shown:
            assert shown["hint"] == TOO_LARGE_HINT and "text" not in shown
            # With its text, the record would not have fitted beside the rest of the answer.
            assert shown["bytes"] + json_size(result) - json_size(shown) > budget


def recalled(vault: Path, subject: str | None, query: str, **kw: Any) -> RecallResult:
    return recall_records.recall_context(Scope(client="test", vault=vault, exposure=Exposure()), subject, query, **kw)


@pytest.fixture
def sync_vault(tmp_path: Path) -> Path:
    notes = {f"Sync {n}.md": record("obsidian-sync", f"Obsidian Sync keeps note {n} in sync.") for n in range(6)}
    notes["Publish.md"] = record("obsidian-publish", "Publish your notes; turnaround is a day.")
    return write_vault(tmp_path / "v", notes)


def test_the_subject_s_own_word_makes_the_closest_records_not_an_empty_answer(sync_vault: Path) -> None:
    # 'sync' is the subject's own word (not required), 'turnaround' no record of it holds: the
    # records holding 'sync' are the closest there are — marked weak, holding none of the
    # required words — never "no record holds any meaningful word".
    result = recalled(sync_vault, "obsidian-sync", "sync turnaround", limit=20)
    assert len(result["records"]) == 6 and "hint" not in result
    assert result["weak_match"] is True
    assert {r["coverage"] for r in result["records"]} == {0.0}
    assert all(r["matched"] == {"sync": ["title", "body"]} for r in result["records"])
    # A record holding a required word answers, as before: only such records are returned.
    publish = recalled(sync_vault, "obsidian-publish", "sync turnaround")
    assert [r["path"] for r in publish["records"]] == ["Publish.md"]
    # Nothing meaningful held: empty, and said so.
    empty = recalled(sync_vault, "obsidian-sync", "kubernetes secrecy")
    assert (empty["records"], empty["hint"]) == ([], NO_MATCH_HINT)


def test_a_framing_word_alone_held_is_no_closest_record(sync_vault: Path) -> None:
    # 'decide' frames the question; a record holding only 'decision' is no closer than another.
    write_vault(sync_vault, {"Decided.md": record("obsidian-publish", "The decision was made.")})
    result = recalled(sync_vault, "obsidian-publish", "what did we decide about secrecy")
    assert (result["records"], result["hint"]) == ([], NO_MATCH_HINT)


def test_a_client_with_nothing_to_recall_is_told_what_the_person_can_do(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "v", {"Plain.md": "A note no rule or property makes a record.\n"})
    for subject in (None, "garden"):
        result = recalled(vault, subject, "anything")
        assert (result["records"], result["current_records"]) == ([], 0)
        hint = result["hint"]
        assert hint.startswith(NO_RECORDS_HINT)
        assert "vault-recall subject suggest" in hint and "tray" in hint
        assert f"vault-recall subject add {subject or 'SUBJECT'} --folder FOLDER" in hint
        assert json_size(recalled(vault, subject, "anything", budget=512)) <= 512
    # A client that sees the whole vault asking about no subject: an empty vault has nothing a
    # rule could make a record of.
    empty = write_vault(tmp_path / "empty", {})
    whole = recall_records.recall_context(Scope(client="t", vault=empty, exposure=Exposure(mode="vault")), None, "x")
    assert whole["hint"] == NO_RECORDS_HINT


def test_an_empty_strict_answer_says_what_it_asked_for(sync_vault: Path) -> None:
    result = recalled(sync_vault, "obsidian-sync", "sync turnaround", match="all")
    assert (result["records"], result["hint"]) == ([], NO_STRICT_MATCH_HINT)
