"""recall_context and list_subjects as plain functions over tmp_path vaults."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.support.vaults import record, write_vault
from vault_recall.server.errors import InvalidArgument, NotExposed
from vault_recall.server.recall.answers import recall_records, subjects
from vault_recall.server.recall.packing import json_size
from vault_recall.server.recall.results import RecallResult
from vault_recall.server.recall.scope import Exposure, Scope


def scope(vault: Path | None, exposure: Exposure | None = None) -> Scope:
    return Scope(client="test", vault=vault, exposure=exposure or Exposure(), why="no vault is configured")


def recalled(vault: Path, subject: str, query: str, **kw: Any) -> RecallResult:
    return recall_records.recall_context(scope(vault), subject, query, **kw)


def paths(result: Mapping[str, Any]) -> list[str]:
    return [r["path"] for r in result["records"]]


def set_mtime(path: Path, seconds: int) -> None:
    os.utime(path, (seconds, seconds))


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_vault(
        tmp_path / "My Vault",
        {
            "Build decision.md": record("build", "We use Bazel for builds.", aliases="[Bazel choice]"),
            "Cache.md": record("build", "The Bazel cache is remote."),
            "Old.md": record("build", "We used Make with Bazel never.", status="archived"),
            "Outage.md": record("build", "Bazel cache outage.", kind="event", date="2026-03-14"),
            "Release.md": record("release", "Releases ship Bazel builds on Tuesday."),
            "Plain.md": "Bazel mentioned in a plain note.\n",
            "Multi.md": record("[build, release]", "Version numbers come from the Bazel stamp."),
        },
    )


def test_only_active_decisions_of_the_subject_are_recalled(vault: Path) -> None:
    result = recalled(vault, "build", "bazel", limit=20)
    assert result["status"] == "ok"
    assert result["untrusted"] is True
    assert sorted(paths(result)) == ["Build decision.md", "Cache.md", "Multi.md"]
    assert result["omitted"] == 0


def test_a_record_carries_whole_text_revision_uri_and_what_matched(vault: Path) -> None:
    result = recalled(vault, "build", "bazel choice")
    found = result["records"]
    assert found[0]["path"] == "Build decision.md"
    rec = found[0]
    assert rec["title"] == "Build decision"
    assert rec["text"] == "We use Bazel for builds.\n"
    assert len(rec["revision"]) == 64
    assert rec["uri"] == "obsidian://open?vault=My%20Vault&file=Build%20decision"
    assert rec["matched"] == {"bazel": ["aliases", "body"], "choice": ["aliases"]}
    assert rec["coverage"] == 1.0
    assert rec["modified"].endswith("Z")
    assert result["weak_match"] is False
    # 'choice' only frames the question: the others, holding 'bazel', hold all that was asked.
    assert [(r["matched"], r["coverage"]) for r in found[1:]] == [({"bazel": ["body"]}, 1.0)] * 2


def test_title_and_alias_hits_rank_above_body_hits(tmp_path: Path) -> None:
    vault = write_vault(
        tmp_path / "v",
        {
            "A body.md": record("s", "about cache"),
            "Cache.md": record("s", "other words"),
            "Z.md": record("s", "nothing", aliases="[cache plan]"),
        },
    )
    for name in ("A body.md", "Cache.md", "Z.md"):
        set_mtime(vault / name, 1_700_000_000)
    ranked = paths(recalled(vault, "s", "cache"))
    assert sorted(ranked[:2]) == ["Cache.md", "Z.md"]
    assert ranked[2] == "A body.md"
    assert paths(recalled(vault, "s", "cache", match="all")) == ["Cache.md", "Z.md", "A body.md"]


def test_ties_go_to_the_newest_then_to_the_path(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "v", {n: record("s", "same word") for n in ("B.md", "A.md", "C.md")})
    set_mtime(vault / "A.md", 1_700_000_000)
    set_mtime(vault / "B.md", 1_700_000_000)
    set_mtime(vault / "C.md", 1_800_000_000)
    first = paths(recalled(vault, "s", "word"))
    assert first == ["C.md", "A.md", "B.md"]
    assert paths(recalled(vault, "s", "word")) == first


def test_match_all_needs_every_word_and_the_default_ranks_the_rest_below(vault: Path) -> None:
    assert paths(recalled(vault, "build", "bazel remote", match="all")) == ["Cache.md"]
    ranked = recalled(vault, "build", "bazel remote")
    assert paths(ranked)[0] == "Cache.md"
    assert [r["coverage"] for r in ranked["records"]] == [1.0, 0.5, 0.5]
    assert ranked["weak_match"] is False
    assert paths(recalled(vault, "build", "bazel remote", match="any")) == paths(
        recalled(vault, "build", "bazel remote")
    )


def test_a_field_means_the_same_for_match_any_and_all_any_heading_is_a_heading(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "v", {"Notes.md": record("s", "# Notes\n\nintro\n\n### Caching\n\nwhy")})
    for match in ("any", "all"):
        (found,) = recalled(vault, "s", "caching", match=match)["records"]
        assert found["matched"] == {"caching": ["heading", "body"]}, match


def test_match_all_weighs_a_field_as_ranking_does(tmp_path: Path) -> None:
    # 'remote' in the title (3) and 'bazel' in the body (1) against both in a heading (2 + 2):
    # a tie, so the newer note comes first.
    vault = write_vault(
        tmp_path / "v", {"Remote.md": record("s", "bazel here"), "Plan.md": record("s", "# Bazel remote\n\nplan")}
    )
    set_mtime(vault / "Remote.md", 1_700_000_000)
    set_mtime(vault / "Plan.md", 1_800_000_000)
    assert paths(recalled(vault, "s", "bazel remote", match="all")) == ["Plan.md", "Remote.md"]


def test_match_all_compares_words_as_written_not_their_stems(vault: Path) -> None:
    assert paths(recalled(vault, "release", "ship", match="all")) == ["Release.md"]
    shipping = recalled(vault, "release", "shipping", limit=20)
    assert paths(shipping) == ["Release.md"]
    assert shipping["records"][0]["matched"] == {"shipping": ["body"]}
    assert paths(recalled(vault, "release", "shipping", match="all")) == []


def test_the_subject_s_own_words_are_answered_by_every_record_of_it(vault: Path) -> None:
    # Asked in subject 'build', 'build' says nothing more: every record answers, those
    # mentioning it first.
    result = recalled(vault, "build", "what did we decide about the builds", limit=20)
    assert result["weak_match"] is False
    assert paths(result)[0] == "Build decision.md"
    assert sorted(paths(result)) == ["Build decision.md", "Cache.md", "Multi.md"]


def test_words_are_unicode_normalized_and_casefolded(tmp_path: Path) -> None:
    vault = write_vault(
        tmp_path / "v", {"Café.md": record("s", "STRASSE and cafe\u0301"), "Other.md": record("s", "nothing")}
    )
    for query in ("straße", "ＣＡＦÉ", "cafe", "CAFÉ"):
        result = recalled(vault, "s", query)
        assert paths(result)[0] == "Café.md"
        assert result["weak_match"] is False
    assert paths(recalled(vault, "s", "straße", match="all")) == ["Café.md"]
    assert paths(recalled(vault, "s", "ＣＡＦÉ", match="all")) == ["Café.md"]


def test_a_query_no_record_holds_is_answered_ok_and_empty(vault: Path) -> None:
    # The recall contract: no match is ok with no records — never the newest notes in their
    # place — saying how many current records there are, so a model tries other words.
    result = recalled(vault, "build", "kubernetes", limit=20)
    assert (result["status"], result["records"], result["omitted"]) == ("ok", [], 0)
    assert result["current_records"] == 3 and "other words" in result["hint"]
    # Said to be no match, as a weak answer is: nothing holds what was asked.
    assert result["weak_match"] is True and "problems" not in result
    strict = recalled(vault, "build", "kubernetes", match="all")
    assert (strict["records"], strict["current_records"]) == ([], 3)
    # A subject with no records at all says so in other words.
    none = recalled(vault, "nothing-here", "kubernetes")
    assert (none["records"], none["current_records"]) == ([], 0)
    assert none["hint"].startswith("there are no current records here. The person can make some")


def test_no_query_gives_the_current_records_newest_first(vault: Path) -> None:
    set_mtime(vault / "Multi.md", 1_900_000_000)
    set_mtime(vault / "Cache.md", 1_800_000_000)
    set_mtime(vault / "Build decision.md", 1_700_000_000)
    for query in (None, "", "   ", "?!"):
        result = recall_records.recall_context(scope(vault), "build", query)
        assert paths(result) == ["Multi.md", "Cache.md", "Build decision.md"]
        assert "weak_match" not in result
        assert all(r["matched"] == {} and "coverage" not in r for r in result["records"])


def test_limit_counts_the_rest_in_omitted(vault: Path) -> None:
    result = recalled(vault, "build", "bazel", limit=1)
    assert len(result["records"]) == 1
    assert result["omitted"] == 2


def test_an_oversized_record_is_omitted_whole_and_smaller_ones_still_fit(tmp_path: Path) -> None:
    vault = write_vault(
        tmp_path / "v",
        {"Big.md": record("s", "alpha " + "long " * 400, aliases="[alpha]"), "Small.md": record("s", "alpha small")},
    )
    result = recalled(vault, "s", "alpha", budget=1024, limit=5)
    assert paths(result) == ["Small.md"]
    assert result["omitted"] == 1
    assert json_size(result) <= 1024


def test_an_invalid_note_about_the_subject_degrades_the_answer(vault: Path) -> None:
    (vault / "Broken.md").write_text("---\nsubject: build\nsubject: build\n---\nBazel\n", encoding="utf-8")
    result = recalled(vault, "build", "bazel", limit=20)
    assert result["status"] == "degraded"
    assert result["problems"] == [
        {"path": "Broken.md", "reason": "Broken.md, line 3: property 'subject' is defined twice"}
    ]
    assert len(result["records"]) == 3
    assert result["problems_omitted"] == 0


def test_an_invalid_note_about_another_subject_does_not(vault: Path) -> None:
    (vault / "Broken.md").write_text("---\nsubject: release\nx: 1\nx: 2\n---\n", encoding="utf-8")
    (vault / "NoSubject.md").write_text("---\nx: 1\nx: 2\n---\n", encoding="utf-8")
    assert recalled(vault, "build", "bazel")["status"] == "ok"
    assert recalled(vault, "release", "bazel")["status"] == "degraded"


def test_an_invalid_note_whose_subject_cannot_be_read_could_be_about_anything(vault: Path) -> None:
    (vault / "Broken.md").write_text("---\nsubject: {{\n---\n", encoding="utf-8")
    assert recalled(vault, "build", "bazel")["status"] == "degraded"
    assert recalled(vault, "release", "bazel")["status"] == "degraded"


def test_an_oversized_note_naming_the_subject_degrades_without_being_read_whole(vault: Path) -> None:
    (vault / "Huge.md").write_bytes(b"---\nsubject: build\n---\n" + b"x" * (1024 * 1024 + 10))
    result = recalled(vault, "build", "bazel")
    assert result["status"] == "degraded"
    assert "too large to read" in result["problems"][0]["reason"]
    assert recalled(vault, "release", "bazel")["status"] == "ok"


def test_many_problems_are_bounded_and_counted(tmp_path: Path) -> None:
    notes = {f"Broken {i:02}.md": f"---\nsubject: s\nsubject: s\n---\n{'x' * 50}\n" for i in range(30)}
    notes["Good.md"] = record("s", "word")
    vault = write_vault(tmp_path / "v", notes)
    result = recalled(vault, "s", "word", budget=2048)
    assert result["status"] == "degraded"
    assert 0 < len(result["problems"]) <= 10
    assert len(result["problems"]) + result["problems_omitted"] == 30
    assert paths(result) == ["Good.md"]
    assert json_size(result) <= 2048


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"subject": "Build"}, "subject 'Build' is not a subject slug"),
        ({"subject": ""}, "is not a subject slug"),
        ({"subject": "build\n"}, "is not a subject slug"),
        ({"query": "x" * 501}, "query is 501 characters long; the limit is 500"),
        ({"query": 7}, "query must be text"),
        ({"budget": 511}, "budget must be a whole number from 512 to 65536; got 511"),
        ({"budget": 65537}, "budget must be a whole number from 512 to 65536"),
        ({"limit": 0}, "limit must be a whole number from 1 to 20; got 0"),
        ({"limit": 21}, "limit must be a whole number from 1 to 20"),
        ({"limit": True}, "limit must be a whole number"),
        ({"match": "most"}, "match must be 'any' or 'all'; got 'most'"),
    ],
)
def test_bad_arguments_raise_one_clear_sentence(vault: Path, kwargs: dict[str, Any], words: str) -> None:
    args: dict[str, Any] = {"subject": "build", "query": "bazel", **kwargs}
    with pytest.raises(InvalidArgument) as raised:
        recall_records.recall_context(scope(vault), **args)
    assert words in str(raised.value)
    assert "\n" not in str(raised.value)


def test_bad_arguments_are_reported_before_the_vault_is_read() -> None:
    with pytest.raises(InvalidArgument):
        recall_records.recall_context(scope(Path("/nonexistent")), "Bad", "q")


def test_a_subject_outside_the_exposure_is_refused_by_name(vault: Path) -> None:
    limited = scope(vault, Exposure(mode="subjects", subjects=frozenset({"release"})))
    with pytest.raises(NotExposed, match="subject 'build' is not shared with client 'test'"):
        recall_records.recall_context(limited, "build", "bazel")
    assert [s["subject"] for s in subjects.list_subjects(limited)["subjects"]] == ["release"]


def _file(path: Path) -> Path:
    path.write_text("x", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda p: p / "missing", "does not exist"),
        (lambda p: _file(p / "file"), "is a file, not a folder"),
    ],
    ids=["missing", "file"],
)
def test_an_unreadable_vault_is_unavailable_with_a_reason(tmp_path: Path, make: Any, words: str) -> None:
    result = recall_records.recall_context(scope(make(tmp_path)), "build", "bazel")
    assert result["status"] == "unavailable"
    assert words in result["reason"]
    assert result["records"] == []
    listed = subjects.list_subjects(scope(make(tmp_path)))
    assert listed["status"] == "unavailable"
    assert words in listed["reason"]


def test_no_configured_vault_is_unavailable() -> None:
    result = recall_records.recall_context(scope(None), "build", "bazel")
    assert result["status"] == "unavailable"
    assert result["reason"] == "no vault is configured"


def test_list_subjects_counts_records_per_subject(vault: Path) -> None:
    listed = subjects.list_subjects(scope(vault))
    assert listed["status"] == "ok"
    assert listed["untrusted"] is True
    counts = {s["subject"]: (s["active"], s["archived"], s["events"]) for s in listed["subjects"]}
    assert counts == {"build": (3, 1, 1), "release": (2, 0, 0)}
    assert all(s["modified"].endswith("Z") for s in listed["subjects"])


def test_list_subjects_is_degraded_by_broken_records(vault: Path) -> None:
    (vault / "Broken.md").write_text("---\nsubject: build\nstatus: maybe\n---\n", encoding="utf-8")
    listed = subjects.list_subjects(scope(vault))
    assert listed["status"] == "degraded"
    assert listed["problems"] == [
        {"path": "Broken.md", "reason": "Broken.md, line 3: property 'status' must be 'active' or 'archived'"}
    ]


def test_a_subject_limited_client_sees_no_broken_note_of_unknown_subject(vault: Path) -> None:
    (vault / "Payroll").mkdir()
    (vault / "Payroll/CEO salary 2026.md").write_text("---\nsubject: Payroll Secret\n---\nx\n", encoding="utf-8")
    (vault / "Payroll/Layoffs plan.md").write_text("---\nsubject: {{\n---\n", encoding="utf-8")
    (vault / "Broken build.md").write_text("---\nsubject: build\nsubject: build\n---\n", encoding="utf-8")
    limited = scope(vault, Exposure(mode="subjects", subjects=frozenset({"build"})))
    for result in (
        recall_records.recall_context(limited, "build", "bazel"),
        recall_records.recall_activity(limited, "build"),
        subjects.list_subjects(limited),
    ):
        assert [p["path"] for p in result["problems"]] == ["Broken build.md"]
    # With every subject shared, the unreadable ones could be about anything: they are named.
    everything = recall_records.recall_context(scope(vault), "build", "bazel")
    assert {p["path"] for p in everything["problems"]} == {
        "Broken build.md",
        "Payroll/CEO salary 2026.md",
        "Payroll/Layoffs plan.md",
    }


def test_a_vault_s_languages_decide_how_its_words_are_stemmed(tmp_path: Path) -> None:
    vault = write_vault(
        tmp_path / "v",
        {
            "Rechnungen.md": record("s", "Alle Rechnungen gehen über das Buchhaltungssystem."),
            "Andere.md": record("s", "Nichts davon."),
        },
    )
    english = Scope(client="t", vault=vault, exposure=Exposure())
    german = Scope(client="t", vault=vault, exposure=Exposure(), languages=("english", "german"))
    # 'Rechnung' and 'Rechnungen' share a German stem, not an English one: in English the word
    # is only taken for the nearest one the notes hold, and the answer says so (spelling.py).
    taken = recall_records.recall_context(english, "s", "Rechnung")
    assert list(taken["records"][0]["matched"]) == ["rechnung → rechnungen"]
    found = recall_records.recall_context(german, "s", "Rechnung")
    assert (paths(found)[0], found["weak_match"]) == ("Rechnungen.md", False)
    assert list(found["records"][0]["matched"]) == ["rechnung"]
    # A question in German is recognised as German by its words, whatever the setting.
    asked = recall_records.recall_context(english, "s", "Wie gehen wir mit der Rechnung um?")
    assert (paths(asked)[0], asked["weak_match"]) == ("Rechnungen.md", False)


def test_words_held_only_far_apart_in_a_note_are_a_weak_match(tmp_path: Path) -> None:
    scattered = (
        "## Accounting\n\nWe close the books monthly.\n\n## Laptops\n\nEvery new hire gets software on day one.\n"
    )
    together = "## Exports\n\nInvoices go to the accounting software every night.\n"
    vault = write_vault(tmp_path / "v", {"Scattered.md": record("s", scattered), "Other.md": record("s", "nothing")})
    result = recalled(vault, "s", "which accounting software do we use?")
    assert paths(result)[0] == "Scattered.md"
    assert (result["records"][0]["coverage"], result["weak_match"]) == (0.5, True)
    # Together in one paragraph — or one of them naming the note — they answer it.
    (vault / "Together.md").write_text(record("s", together), encoding="utf-8")
    (vault / "Accounting.md").write_text(record("s", "Its software is Ledgerly."), encoding="utf-8")
    result = recalled(vault, "s", "which accounting software do we use?", limit=20)
    held = {r["path"]: r["coverage"] for r in result["records"]}
    assert (held["Together.md"], held["Accounting.md"], held["Scattered.md"]) == (1.0, 1.0, 0.5)
    assert result["weak_match"] is False


def test_an_answer_within_its_budget_whatever_the_coverage_turns_out(tmp_path: Path) -> None:
    notes = {f"N{i}.md": record("s", f"alpha {'beta ' * i}\n\n{'gamma ' * (40 - i)}") for i in range(12)}
    vault = write_vault(tmp_path / "v", notes)
    for budget in range(600, 1400, 37):
        result = recalled(vault, "s", "alpha gamma delta", budget=budget, limit=20)
        assert json_size(result) <= budget
        assert len(result["records"]) + result["omitted"] == 12
