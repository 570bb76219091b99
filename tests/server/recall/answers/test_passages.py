"""A note larger than its share of a recall's budget comes as its best passages: whole sections,
whole paragraphs where a section is too large, whole sentences where a paragraph is — each with
the section read_note takes and the file lines it spans — and the answer stays within its
budget byte for byte."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.depth import costly_cases
from tests.support.vaults import record, write_vault
from vault_recall.server.activity.events import event_from_result
from vault_recall.server.obsidian.note import Note, parse_note
from vault_recall.server.recall.answers import reading, recall_records
from vault_recall.server.recall.answers.changed_since import handed_in
from vault_recall.server.recall.answers.passages import Score, choose_passages
from vault_recall.server.recall.answers.recall_answer import fair_shares
from vault_recall.server.recall.packing import json_size
from vault_recall.server.recall.results import Passage, RecallResult
from vault_recall.server.recall.scope import Exposure, Scope

FILLER = "Nothing of note is said in this sentence at all. " * 12

GUIDE = f"""# Guide

The guide opens here. It says what the guide is for.

## Install

{FILLER}

### Install on Linux

Use the package manager. The tarball works too.

### Install on Windows

{FILLER}

## Pricing

Sync costs four dollars a month. Publish costs eight.

{FILLER}

## Support

{FILLER}
"""


def note_of(text: str) -> Note:
    parsed = parse_note("Guide.md", text.encode("utf-8"), 0)
    assert isinstance(parsed, Note)
    return parsed


def words_scorer(*wanted: str) -> Any:
    def score(text: str) -> Score:
        held = sum(1 for word in wanted if re.search(rf"\b{word}\b", text, re.IGNORECASE))
        return held, held, held

    return score


def file_lines(note_text: str, passage: Passage) -> str:
    first, last = passage["lines"]
    return "\n".join(note_text.split("\n")[first - 1 : last])


def test_a_section_that_fits_comes_whole_with_its_subsections() -> None:
    note = note_of(GUIDE)
    chosen = choose_passages(note, 600, words_scorer("linux"))
    assert [(p.get("section"), p["text"]) for p in chosen] == [
        ("Guide#Install#Install on Linux", "### Install on Linux\n\nUse the package manager. The tarball works too.")
    ]
    # A room for the whole of Install, subsections and all: the section up to the next '##'.
    install = GUIDE[GUIDE.index("## Install") : GUIDE.index("## Pricing")].rstrip("\n")
    wide = choose_passages(note, json_size([{"section": "Guide#Install", "lines": [5, 15], "text": install}]), None)
    assert wide[0]["text"].startswith("# Guide\n\nThe guide opens here")  # no query: the opening first
    ranked = choose_passages(note, 2000, words_scorer("package", "windows"))
    assert any(p["text"] == install for p in ranked)


def test_a_section_too_large_comes_as_its_best_paragraphs() -> None:
    note = note_of(GUIDE)
    chosen = choose_passages(note, 300, words_scorer("sync"))
    assert chosen == [
        {"section": "Guide#Pricing", "lines": [19, 19], "text": "Sync costs four dollars a month. Publish costs eight."}
    ]


def test_paragraphs_of_one_section_next_to_each_other_come_as_one_passage() -> None:
    body = f"# Notes\n\n## Sync\n\nSync runs hourly.\n\nSync keeps versions.\n\n{FILLER}\n\nSync is paid.\n"
    chosen = choose_passages(note_of(body), 200, words_scorer("sync"))
    assert chosen == [
        {"section": "Notes#Sync", "lines": [5, 7], "text": "Sync runs hourly.\n\nSync keeps versions."},
        {"section": "Notes#Sync", "lines": [11, 11], "text": "Sync is paid."},
    ]


def test_a_paragraph_too_large_comes_as_whole_sentences() -> None:
    body = "# Notes\n\n" + "Filler words go here. " * 30 + "The answer is forty two. " + "More filler here. " * 30
    note = note_of(body)
    chosen = choose_passages(note, 120, words_scorer("answer"))
    assert [p["text"] for p in chosen] == ["The answer is forty two."]
    assert chosen[0]["lines"] == [3, 3] and chosen[0]["section"] == "Notes"


def test_no_passage_when_not_one_sentence_fits() -> None:
    note = note_of("# Notes\n\n" + "one endless sentence without a stop " * 20 + "\n")
    assert choose_passages(note, 200, None) == []


def test_passages_fit_their_room_to_the_byte() -> None:
    note = note_of(GUIDE)
    for room in range(2, 1500, 7):
        chosen = choose_passages(note, room, words_scorer("sync", "linux"))
        assert json_size(chosen) <= room
        if chosen:  # the same room exactly is enough for the same passages
            assert choose_passages(note, json_size(chosen), words_scorer("sync", "linux")) == chosen


def test_a_heading_holding_hash_is_named_as_read_note_reaches_it() -> None:
    text = "# Tracker\n\n## Issue #12\n\nThe fix is in. " + FILLER + "\n\n## Other\n\n" + FILLER + "\n"
    note = note_of(text)
    (chosen,) = choose_passages(note, 200, words_scorer("fix"))
    section = chosen["section"]
    assert section == "Issue #12"  # 'Tracker#Issue #12' would be read as three headings
    span = reading.find_section(note, section)
    assert span[0] <= chosen["lines"][0] and chosen["lines"][1] <= span[1]


def test_fair_shares_give_small_records_all_they_need() -> None:
    assert fair_shares(3000, [500, 9000, 9000]) == [500, 1250, 1250]
    assert fair_shares(3000, [500, 600, 700]) == [500, 600, 700]
    assert fair_shares(10, [9000, 9000, 9000]) == [3, 3, 4]


# Through recall_context: the record shape, the budget, read_note for the rest.


def recall(vault: Path, query: str | None, budget: int = 4096, subject: str | None = "docs") -> RecallResult:
    scope = Scope(client="t", vault=vault, exposure=Exposure())
    return recall_records.recall_context(scope, subject, query, budget=budget)


def test_a_large_note_comes_as_passages_read_note_reaches(tmp_path: Path) -> None:
    body = GUIDE + "".join(f"\n## Chapter {n}\n\n{FILLER}\n" for n in range(10))
    vault = write_vault(tmp_path / "v", {"Guide.md": record("docs", body), "Small.md": record("docs", "Sync is on.")})
    result = recall(vault, "sync pricing")
    assert json_size(result) <= 4096
    guide = result["records"][0]
    assert guide["path"] == "Guide.md" and "text" not in guide and "hint" not in guide
    assert guide["bytes"] > 4096
    whole = (vault / "Guide.md").read_text(encoding="utf-8")
    scope = Scope(client="t", vault=vault, exposure=Exposure())
    sections = [p["section"] for p in guide["passages"]]
    assert "Guide#Pricing" in sections
    for passage in guide["passages"]:
        assert passage["text"] in file_lines(whole, passage)
        read = reading.read_note(scope, guide["path"], passage["section"])
        assert read["revision"] == guide["revision"] and passage["text"] in read["text"]
    assert result["records"][1] == {**result["records"][1], "path": "Small.md", "text": "Sync is on.\n"}


def test_a_note_that_fits_is_whole(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "v", {"Guide.md": record("docs", GUIDE)})
    (only,) = recall(vault, "sync pricing")["records"]
    assert only["text"] == GUIDE.strip() + "\n" and "passages" not in only and "bytes" not in only


def test_the_first_record_carries_text_at_the_default_budget(tmp_path: Path) -> None:
    # Three long notes matching: each comes as passages, the first among them.
    notes = {
        f"Guide {n}.md": record("docs", GUIDE + "".join(f"\n## More {k}\n\n{FILLER}\n" for k in range(8)))
        for n in range(3)
    }
    vault = write_vault(tmp_path / "v", notes)
    for query in ("sync pricing", "linux", None):
        result = recall(vault, query)
        assert json_size(result) <= 4096
        assert len(result["records"]) == 3
        assert all(r.get("passages") for r in result["records"])


def whole_sentences(spanned: str, at: int, text: str) -> bool:
    before, after = spanned[:at], spanned[at + len(text) :]
    starts = not before or before.endswith("\n") or before.rstrip(" ").endswith(".")
    return starts and (not after or after.startswith("\n") or text.endswith("."))


SENTENCE = st.lists(st.sampled_from(["sync", "pricing", "plan", "note", "data", "costs", "é", "数据"]), min_size=1)
PARAGRAPH = st.lists(SENTENCE.map(lambda ws: " ".join(ws).capitalize() + "."), min_size=1, max_size=8).map(" ".join)
BLOCK = st.one_of(
    PARAGRAPH,
    st.tuples(st.integers(1, 4), st.sampled_from(["Plan", "Sync", "Data #2", "Costs"])).map(
        lambda h: "#" * h[0] + " " + h[1]
    ),
    st.just("```\ncode. More code.\n\nstill code.\n```"),
    st.lists(PARAGRAPH, min_size=1, max_size=4).map(lambda items: "\n".join(f"- {i}" for i in items)),
)
NOTE_BODY = st.lists(BLOCK, min_size=1, max_size=40).map("\n\n".join)


@settings(max_examples=costly_cases(), deadline=None)
@given(
    st.lists(NOTE_BODY, min_size=1, max_size=4),
    st.sampled_from([None, "sync pricing", "data", "plan costs"]),
    st.integers(512, 9000),
)
def test_every_answer_fits_and_every_passage_is_the_note_s_own_text(
    bodies: list[str], query: str | None, budget: int
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        notes = {f"Note {n}.md": record("docs", body) for n, body in enumerate(bodies)}
        vault = write_vault(Path(folder) / "v", notes)
        result = recall(vault, query, budget)
        assert json_size(result) <= budget
        for found in result["records"]:
            whole = (vault / found["path"]).read_text(encoding="utf-8")
            for passage in found.get("passages", []):
                first, last = passage["lines"]
                assert 1 <= first <= last
                spanned = file_lines(whole, passage)
                assert passage["text"] in spanned
                # Never a cut sentence: it starts a line or follows a sentence's end, and ends
                # a line or a sentence — wherever in its lines it is (a sentence may be there twice).
                places = [m.start() for m in re.finditer(re.escape(passage["text"]), spanned)]
                assert any(whole_sentences(spanned, at, passage["text"]) for at in places)
                note = parse_note(found["path"], whole.encode("utf-8"), 0)
                assert isinstance(note, Note)
                if "section" in passage:
                    span = reading.find_section(note, passage["section"])
                    offset = note.body_first_line - 1
                    assert span[0] + offset <= first and last <= span[1] + offset


def test_a_record_given_as_passages_hands_out_its_revision(tmp_path: Path) -> None:
    # Told later when the note changes (changed_since_recalled), and recorded with its revision.
    body = GUIDE + "".join(f"\n## Chapter {n}\n\n{FILLER}\n" for n in range(10))
    vault = write_vault(tmp_path / "v", {"Guide.md": record("docs", body)})
    result = recall(vault, "sync pricing")
    (guide,) = result["records"]
    assert "passages" in guide
    assert [(h.path, h.revision) for h in handed_in(vault, result)] == [("Guide.md", guide["revision"])]
    event = event_from_result(
        client="t",
        tool="recall_context",
        arguments={"subject": "docs", "query": "sync pricing"},
        result=dict(result),
        error=None,
        started=0.0,
        client_info=(None, None),
        keep_query_text=False,
    )
    assert event.returned == (("Guide.md", guide["revision"]),)
