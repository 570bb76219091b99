"""The declared differences of the same-answers test (tests/support/same_answers.py) explain
what they declare, and refuse what would be a regression in their place: a declaration loose
enough to pass anything would make that end-to-end test unable to fail."""

from __future__ import annotations

import copy
from typing import Any

from tests.support.same_answers import allowed


def record(path: str) -> dict[str, Any]:
    return {"path": path, "title": path[:-3], "text": f"{path} text", "matched": {"plan": ["body"]}, "coverage": 1.0}


BEFORE: dict[str, Any] = {
    "result": {
        "status": "degraded",
        "records": [record("A.md"), record("B.md")],
        "omitted": 5,
        "omitted_best": [{"path": "C.md"}],
        "problems": [{"path": "Broken.md", "reason": "Broken.md, line 2: not YAML"}, {"path": "Bad.md", "reason": "x"}],
        "weak_match": False,
    }
}
ASKED = {"query": "launch plan"}


def after(**change: Any) -> dict[str, Any]:
    answer = copy.deepcopy(BEFORE)
    answer["result"].update(change)
    return answer


def test_a_broken_note_now_ranked_is_the_declared_change() -> None:
    shown = after(records=[record("Broken.md"), record("A.md")], omitted=6, omitted_best=[{"path": "B.md"}])
    assert allowed("recall_context", ASKED, BEFORE, shown, frozenset())[0] == "broken_shown"


def test_a_regression_beside_it_is_refused() -> None:
    emptied = after(records=[record("Broken.md"), {**record("A.md"), "text": ""}], omitted=6)
    swapped = after(records=[record("Other.md"), record("B.md")], omitted=6)  # A gone, no broken note returned
    reason = after(problems=[{"path": "Broken.md", "reason": "???"}, {"path": "Bad.md", "reason": "x"}])
    grown = after(records=[record("Broken.md"), record("A.md")], omitted=60)
    subject = {**ASKED, "subject": "ops"}
    shown = after(records=[record("Broken.md"), record("A.md")], omitted=6, omitted_best=[{"path": "B.md"}])
    for regression, asked in ((emptied, ASKED), (swapped, ASKED), (reason, ASKED), (grown, ASKED), (shown, subject)):
        assert allowed("recall_context", asked, BEFORE, regression, frozenset())[0] is None, regression


def test_problems_in_an_eighth_of_the_budget_is_the_declared_change() -> None:
    # A subject's recall names one problem where it named two, counting the other; the room
    # left fits the same records.
    fewer = after(problems=[{"path": "Broken.md", "reason": "Broken.md, line 2: not YAML"}], problems_omitted=1)
    subject = {**ASKED, "subject": "ops"}
    assert allowed("recall_context", subject, BEFORE, fewer, frozenset())[0] == "problem_share"
    # Not a problem named that was neither named nor counted, nor one told otherwise, nor more.
    new = after(problems=[{"path": "New.md", "reason": "x"}], problems_omitted=1)
    told = after(problems=[{"path": "Broken.md", "reason": "???"}], problems_omitted=1)
    more = after(problems=[{"path": "Broken.md", "reason": "Broken.md, line 2: not YAML"}], problems_omitted=2)
    for regression in (new, told, more):
        assert allowed("recall_context", subject, BEFORE, regression, frozenset())[0] is None, regression


def test_a_better_match_fitting_in_the_room_fewer_problems_left_is_the_declared_change() -> None:
    # obsidian-hub: no people page named any more, and the best match left out before (C.md,
    # in omitted_best) now fits where B.md came; the broken notes now ranked count among the matches.
    roomier = after(
        records=[record("A.md"), record("C.md")],
        omitted=7,
        omitted_best=[{"path": "D.md"}],
        problems=[{"path": "Broken.md", "reason": "Broken.md, line 2: not YAML"}],
    )
    assert allowed("recall_context", ASKED, BEFORE, roomier, frozenset())[0] == "broken_shown"
    # Not a match that was not named before, nor with as many problems as before.
    other = after(records=[record("A.md"), record("Other.md")], omitted=7, problems=roomier["result"]["problems"])
    same = after(records=[record("A.md"), record("C.md")], omitted=7, omitted_best=[{"path": "D.md"}])
    for regression in (other, same):
        assert allowed("recall_context", ASKED, BEFORE, regression, frozenset())[0] is None, regression


EMPTY: dict[str, Any] = {
    "result": {
        "status": "ok",
        "records": [],
        "omitted": 0,
        "weak_match": True,
        "current_records": 6,
        "hint": "no current record holds any meaningful word of the query: try other words",
    }
}


def test_the_closest_records_in_place_of_an_empty_answer_are_declared() -> None:
    closest: dict[str, Any] = {
        "result": {"status": "ok", "records": [{**record("A.md"), "coverage": 0.0}], "omitted": 2, "weak_match": True}
    }
    assert allowed("recall_context", ASKED, EMPTY, closest, frozenset())[0] == "closest"
    # Records that answer (coverage above 0, or unmarked) are no closest records.
    answered = copy.deepcopy(closest)
    answered["result"]["records"][0]["coverage"] = 1.0
    unmarked = copy.deepcopy(closest)
    unmarked["result"]["weak_match"] = False
    for regression in (answered, unmarked):
        assert allowed("recall_context", ASKED, EMPTY, regression, frozenset())[0] is None


def test_the_hints_told_anew_are_declared() -> None:
    before = {"result": {"status": "ok", "records": [], "hint": "there are no current records here"}}
    hint = "there are no current records here. The person can … `vault-recall subject add ops --folder FOLDER` adds one"
    told = {"result": {"status": "ok", "records": [], "hint": hint}}
    assert allowed("recall_context", {"subject": "ops"}, before, told, frozenset())[0] == "nothing_here"
    assert allowed("recall_context", {"subject": "other"}, before, told, frozenset())[0] is None
    strict = copy.deepcopy(EMPTY)
    strict["result"]["hint"] = "no current record holds every word of the query as written: ask …"
    assert allowed("recall_context", {**ASKED, "match": "all"}, EMPTY, strict, frozenset())[0] == "strict_hint"
    assert allowed("recall_context", ASKED, EMPTY, strict, frozenset())[0] is None


def strict_record(path: str, modified: str, **matched: list[str]) -> dict[str, Any]:
    return {**record(path), "modified": modified, "matched": matched}


def test_a_strict_match_finding_a_word_in_any_heading_is_declared() -> None:
    strict = {"query": "launch plan", "match": "all"}
    # Launch.md: a title hit (4 before, 3 now) and a body hit; Plan.md: both in a `##` heading,
    # a body hit before (1 + 1), a heading hit now (2 + 2) — and newer: first now.
    launch = strict_record("Launch.md", "2026-01-01T00:00:00Z", launch=["title", "body"], plan=["body"])
    plan_was = strict_record("Plan.md", "2026-02-01T00:00:00Z", launch=["body"], plan=["body"])
    plan = strict_record("Plan.md", "2026-02-01T00:00:00Z", launch=["heading", "body"], plan=["heading", "body"])
    before: dict[str, Any] = {
        "result": {"status": "ok", "records": [launch, plan_was], "omitted": 1, "weak_match": False}
    }
    now = copy.deepcopy(before)
    now["result"]["records"] = [plan, launch]
    assert allowed("recall_context", strict, before, now, frozenset())[0] == "strict_fields"
    # Not for a ranked recall; not out of order, a field lost, a match fewer, a word not held,
    # or a record's text changed.
    assert allowed("recall_context", {"query": "launch plan"}, before, now, frozenset())[0] is None
    unordered = copy.deepcopy(now)
    unordered["result"]["records"].reverse()
    unordered["result"]["records"][1]["matched"]["plan"] = ["heading", "body"]
    lost = copy.deepcopy(now)
    lost["result"]["records"][1]["matched"]["plan"] = ["title"]
    fewer = copy.deepcopy(now)
    fewer["result"]["omitted"] = 0
    unheld = copy.deepcopy(now)
    del unheld["result"]["records"][0]["matched"]["launch"]
    changed = copy.deepcopy(now)
    changed["result"]["records"][1]["text"] = "other text"
    for regression in (unordered, lost, fewer, unheld, changed):
        assert allowed("recall_context", strict, before, regression, frozenset())[0] is None, regression


def test_a_correction_counting_as_the_word_asked_is_declared() -> None:
    def answer(coverage: float, weak: bool, matched: str) -> dict[str, Any]:
        found = {**record("A.md"), "coverage": coverage, "matched": {matched: ["body"]}}
        return {"result": {"status": "ok", "records": [found], "omitted": 0, "weak_match": weak}}

    before, after = answer(0.0, True, "verisons → versions"), answer(1.0, False, "verisons → versions")
    assert allowed("recall_context", ASKED, before, after, frozenset())[0] == "correction_counts"
    plain_before, plain_after = answer(0.0, True, "versions"), answer(1.0, False, "versions")
    assert allowed("recall_context", ASKED, plain_before, plain_after, frozenset())[0] is None
    # A known word no longer respelled: only a word English knows.
    known, dropped = answer(0.0, True, "insurance → instance"), answer(0.5, True, "life")
    assert allowed("recall_context", ASKED, known, dropped, frozenset())[0] == "known_word"
    unknown = answer(0.0, True, "insurrance → instance")
    assert allowed("recall_context", ASKED, unknown, dropped, frozenset())[0] is None


def test_passages_in_the_room_fewer_problems_left_is_the_declared_change() -> None:
    # A subject's recall names one problem where it named two, and gives B.md as passages of
    # its own text in the room that left.
    subject = {**ASKED, "subject": "ops"}
    b_passages = {k: v for k, v in record("B.md").items() if k != "text"}
    both = after(
        records=[record("A.md"), {**b_passages, "passages": [{"lines": [3, 3], "text": "B.md"}], "bytes": 900}],
        problems=[{"path": "Broken.md", "reason": "Broken.md, line 2: not YAML"}],
        problems_omitted=1,
    )
    assert allowed("recall_context", subject, BEFORE, both, frozenset())[0] == "passages and problem_share"
    # Not passages of text the note never held, nor a problem told otherwise beside them.
    invented = copy.deepcopy(both)
    invented["result"]["records"][1]["passages"] = [{"lines": [3, 3], "text": "never written"}]
    told = copy.deepcopy(both)
    told["result"]["problems"] = [{"path": "Broken.md", "reason": "???"}]
    for regression in (invented, told):
        assert allowed("recall_context", subject, BEFORE, regression, frozenset())[0] is None, regression


def test_the_nothing_here_hint_beside_another_declared_change_is_judged_without_it() -> None:
    hint = "there are no current records here"
    before = {"result": {**BEFORE["result"], "records": [], "omitted": 0, "omitted_best": [], "hint": hint}}
    told = f"{hint}. The person can make some without editing a note: `vault-recall subject add ops --folder FOLDER`"
    fewer = copy.deepcopy(before)
    fewer["result"].update(
        hint=told, problems=[{"path": "Broken.md", "reason": "Broken.md, line 2: not YAML"}], problems_omitted=1
    )
    subject = {**ASKED, "subject": "ops"}
    assert allowed("recall_context", subject, before, fewer, frozenset())[0] == "nothing_here and problem_share"
    # Beside a change nothing declares (a problem told otherwise), refused.
    other = copy.deepcopy(fewer)
    other["result"]["problems"] = [{"path": "Broken.md", "reason": "???"}]
    assert allowed("recall_context", subject, before, other, frozenset())[0] is None


def test_a_correction_counting_beside_passages_is_declared_and_a_known_word_as_asked_too() -> None:
    def answer(coverage: float, weak: bool, passages: bool) -> dict[str, Any]:
        matched = {"apperaance → appearance": ["body"]}
        found: dict[str, Any] = {**record("A.md"), "coverage": coverage, "matched": matched}
        if passages:
            del found["text"]
            found.update(passages=[{"lines": [2, 2], "text": "A.md"}], bytes=9000)
        return {"result": {"status": "ok", "records": [found], "omitted": 3, "weak_match": weak}}

    before, after = answer(0.0, True, False), answer(1.0, False, True)
    assert allowed("recall_context", ASKED, before, after, frozenset())[0] == "correction_counts and passages"
    invented = copy.deepcopy(after)
    invented["result"]["records"][0]["passages"] = [{"lines": [2, 2], "text": "never written"}]
    assert allowed("recall_context", ASKED, before, invented, frozenset())[0] is None
    # 'café' asked, folded 'cafe' and taken for 'case' before: French knows it as asked.
    taken = {
        "result": {
            "status": "ok",
            "records": [{**record("A.md"), "coverage": 0.0, "matched": {"cafe → case": ["body"]}}],
            "omitted": 0,
            "weak_match": True,
        }
    }
    hint = "no current record holds any meaningful word of the query"
    empty = {"result": {"status": "ok", "records": [], "omitted": 0, "weak_match": True, "hint": hint}}
    assert allowed("recall_context", {"query": "café straße"}, taken, empty, frozenset())[0] == "known_word"
    assert allowed("recall_context", {"query": "cafx straße"}, taken, empty, frozenset())[0] is None
