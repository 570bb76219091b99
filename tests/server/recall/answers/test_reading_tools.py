"""read_note, search_notes, get_backlinks and recall_activity as plain functions."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.support.vaults import record, write_vault
from vault_recall.server.errors import InvalidArgument, NoteNotFound, NotExposed
from vault_recall.server.recall.answers import backlinks, reading, recall_records, search
from vault_recall.server.recall.packing import json_size
from vault_recall.server.recall.scope import Exposure, ExposureMode, Scope

LONG_SECTION = "\n".join(f"Line {i} of a long section about caching." for i in range(60))


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_vault(
        tmp_path / "My Vault",
        {
            "Projects/Build decision.md": record(
                "build",
                f"""
                # We build with Bazel
                Intro with [[CI cache]] link.
                ## Reasons
                Remote caching. ^why
                ### Detail
                Toolchains.
                ## Long part
                {LONG_SECTION}
                """.replace("\n                ", "\n"),
                aliases="[Bazel choice]",
            ),
            "Projects/CI cache.md": record("build", "Cache text. See [[Build decision#Reasons]]."),
            "Journal/Outage.md": record(
                "build",
                "Cache outage; see ![[Bazel choice]] and `[[Build decision]]`.",
                kind="event",
                date="2026-03-14",
            ),
            "Journal/Later.md": record(
                "build", "Second outage [x](../Projects/Build%20decision.md).", kind="event", date="2026-05-01"
            ),
            "Journal/Archived.md": record("build", "Old event.", kind="event", date="2026-06-01", status="archived"),
            "Release.md": record("release", "Release notes mention [[Build decision]] too.", aliases="[Ship it]"),
            "Plain.md": "A plain note linking [[Build decision]] with the word caching.\n",
            "Wide.md": record("build", "x" * 500 + " needle " + "y" * 500),
        },
    )


def scope(vault: Path | None, mode: ExposureMode = "records", subjects: frozenset[str] = frozenset()) -> Scope:
    return Scope(client="t", vault=vault, exposure=Exposure(mode=mode, subjects=subjects), why="no vault is configured")


# read_note


def test_read_note_returns_the_whole_note_with_its_sections(vault: Path) -> None:
    result = reading.read_note(scope(vault), "Bazel choice", budget=65536)
    assert result["status"] == "ok" and result["untrusted"] is True
    assert result["path"] == "Projects/Build decision.md"
    assert result["properties"]["aliases"] == ["Bazel choice"]
    assert result["text"].startswith("# We build with Bazel\n")
    assert LONG_SECTION in result["text"]
    assert result["uri"] == "obsidian://open?vault=My%20Vault&file=Projects%2FBuild%20decision"
    assert [(s["heading"], s["level"], s["line"]) for s in result["sections"]] == [
        ("We build with Bazel", 1, 5),
        ("Reasons", 2, 7),
        ("Detail", 3, 9),
        ("Long part", 2, 11),
    ]


@pytest.mark.parametrize(
    ("note", "section", "text"),
    [
        ("Build decision", "Reasons", "## Reasons\nRemote caching. ^why\n### Detail\nToolchains.\n"),
        ("Build decision", "reasons#detail", "### Detail\nToolchains.\n"),
        ("Build decision#Detail", None, "### Detail\nToolchains.\n"),
        ("Build decision", "^why", "Remote caching. ^why\n"),
    ],
)
def test_read_note_returns_one_whole_section(vault: Path, note: str, section: str | None, text: str) -> None:
    result = reading.read_note(scope(vault), note, section=section)
    assert result["text"] == text


def test_an_over_budget_note_gives_its_sections_instead_of_cut_text(vault: Path) -> None:
    result = reading.read_note(scope(vault), "Build decision", budget=1024)
    assert "text" not in result
    assert "ask for one section" in result["hint"]
    assert json_size(result) <= 1024
    assert result["sections"] and result["sections"][0]["bytes"] > 2000
    section = reading.read_note(scope(vault), "Build decision", section="Reasons", budget=1024)
    assert section["text"].startswith("## Reasons")


def test_an_unknown_section_names_the_headings_there_are(vault: Path) -> None:
    with pytest.raises(InvalidArgument, match="has no section 'Nope'; its headings are 'We build with Bazel'"):
        reading.read_note(scope(vault), "Build decision", section="Nope")


def test_a_plain_note_is_readable_only_when_the_whole_vault_is_shared(vault: Path) -> None:
    with pytest.raises(NoteNotFound):
        reading.read_note(scope(vault), "Plain")
    assert reading.read_note(scope(vault, "vault"), "Plain")["text"].startswith("A plain note")


def test_a_note_of_an_unshared_subject_looks_missing(vault: Path) -> None:
    only_release = scope(vault, "subjects", frozenset({"release"}))
    with pytest.raises(NoteNotFound) as unshared:
        reading.read_note(only_release, "Projects/CI cache")
    with pytest.raises(NoteNotFound) as missing:
        reading.read_note(only_release, "Projects/No such note")
    assert str(unshared.value).replace("Projects/CI cache", "X") == str(missing.value).replace(
        "Projects/No such note", "X"
    )


def test_a_broken_note_is_degraded_and_named(vault: Path) -> None:
    (vault / "Broken.md").write_text("---\nsubject: build\nsubject: build\n---\nx\n", encoding="utf-8")
    result = reading.read_note(scope(vault), "Broken")
    assert result["status"] == "degraded"
    assert result["problems"][0]["reason"] == "Broken.md, line 3: property 'subject' is defined twice"
    assert "text" not in result


def test_read_note_without_a_vault_is_unavailable(tmp_path: Path) -> None:
    assert reading.read_note(scope(tmp_path / "gone"), "X")["status"] == "unavailable"
    assert reading.read_note(scope(None), "X")["reason"] == "no vault is configured"


# search_notes


def test_search_finds_lines_case_insensitively_with_file_line_numbers(vault: Path) -> None:
    result = search.search_notes(scope(vault), "REMOTE CACHING")
    assert [(h["path"], h["line"], h["text"]) for h in result["records"]] == [
        ("Projects/Build decision.md", 8, "Remote caching. ^why")
    ]
    assert result["records"][0]["uri"].startswith("obsidian://open?vault=My%20Vault&file=Projects%2F")


def test_long_lines_are_shown_around_the_hit_and_marked(vault: Path) -> None:
    hit = search.search_notes(scope(vault), "needle")["records"][0]
    assert hit["shortened"] is True
    assert "needle" in hit["text"] and hit["text"].startswith("…") and hit["text"].endswith("…")
    assert len(hit["text"]) <= 242


def test_search_counts_what_did_not_fit(vault: Path) -> None:
    result = search.search_notes(scope(vault), "caching", limit=2)
    assert len(result["records"]) == 2
    assert result["omitted"] == 61 - 2  # the Reasons line and 60 long-section lines
    assert json_size(result) <= 8192


def test_search_sees_only_exposed_notes_and_one_subject_on_request(vault: Path) -> None:
    assert {h["path"] for h in search.search_notes(scope(vault), "caching", limit=100)["records"]} == {
        "Projects/Build decision.md"
    }
    everywhere = search.search_notes(scope(vault, "vault"), "caching", limit=100, budget=65536)
    assert "Plain.md" in {h["path"] for h in everywhere["records"]}
    release = search.search_notes(scope(vault), "mention", subject="release")
    assert [h["path"] for h in release["records"]] == ["Release.md"]
    with pytest.raises(NotExposed):
        search.search_notes(scope(vault, "subjects", frozenset({"release"})), "x", subject="build")


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"query": ""}, "query is empty"),
        ({"query": "x" * 201}, "query is 201 characters long; the limit is 200"),
        ({"query": "two\nlines"}, "spans lines"),
        ({"query": "x", "limit": 0}, "limit must be a whole number from 1 to 100"),
        ({"query": "x", "budget": 100}, "budget must be a whole number from 512 to 65536"),
        ({"query": "x", "subject": "Bad Subject"}, "is not a subject slug"),
    ],
)
def test_search_refuses_bad_arguments_saying_why(vault: Path, kwargs: dict[str, Any], words: str) -> None:
    with pytest.raises(InvalidArgument, match=words):
        search.search_notes(scope(vault), **kwargs)


# get_backlinks


def test_backlinks_by_name_path_embed_and_markdown_link_but_not_alias(vault: Path) -> None:
    result = backlinks.get_backlinks(scope(vault), "Projects/Build decision.md")
    assert result["note"] == "Projects/Build decision.md"
    assert [(h["path"], h["line"]) for h in result["records"]] == [
        ("Journal/Later.md", 6),  # markdown link, URL-encoded, relative
        # Not Journal/Outage.md: ![[Bazel choice]] names an alias, which Obsidian leaves
        # unresolved, and the `[[…]]` in code is no link.
        ("Projects/CI cache.md", 4),  # [[Build decision#Reasons]]
        ("Release.md", 5),
    ]
    assert "[[Build decision]]" in result["records"][2]["text"]


def test_backlinks_only_from_notes_the_client_may_see(vault: Path) -> None:
    paths = [h["path"] for h in backlinks.get_backlinks(scope(vault, "vault"), "Bazel choice")["records"]]
    assert "Plain.md" in paths  # an alias names the note as an argument (a convenience)
    only_release = scope(vault, "subjects", frozenset({"release", "build"}))
    assert "Plain.md" not in [h["path"] for h in backlinks.get_backlinks(only_release, "Build decision")["records"]]


def test_backlinks_are_limited_and_counted(vault: Path) -> None:
    result = backlinks.get_backlinks(scope(vault), "Build decision", limit=1)
    assert len(result["records"]) == 1
    assert result["omitted"] == 2 and result["next_offset"] == 1


# recall_activity


def test_events_come_newest_first_and_only_active_ones(vault: Path) -> None:
    result = recall_records.recall_activity(scope(vault), "build")
    assert [(r["path"], r["date"]) for r in result["records"]] == [
        ("Journal/Later.md", "2026-05-01"),
        ("Journal/Outage.md", "2026-03-14"),
    ]


def test_events_from_a_date_and_with_words(vault: Path) -> None:
    assert [
        r["path"] for r in recall_records.recall_activity(scope(vault), "build", on_or_after="2026-04-01")["records"]
    ] == ["Journal/Later.md"]
    matched = recall_records.recall_activity(scope(vault), "build", query="cache outage")
    assert matched["records"][0]["path"] == "Journal/Outage.md"
    assert (matched["records"][0]["coverage"], matched["weak_match"]) == (1.0, False)
    assert all(r["coverage"] < 1.0 for r in matched["records"][1:])
    # A query no event holds is answered ok and empty (the recall contract), saying how many
    # events there are, never with other events in their place.
    unmatched = recall_records.recall_activity(scope(vault), "build", query="kubernetes")
    assert (unmatched["status"], unmatched["records"], unmatched["current_records"]) == ("ok", [], 2)
    assert unmatched["weak_match"] is True and "other words" in unmatched["hint"]


def test_events_stay_out_of_recall_context(vault: Path) -> None:
    result = recall_records.recall_context(scope(vault), "build", "outage", limit=20)
    assert not any(r["path"].startswith("Journal/") for r in result["records"])
    # Only the events hold "outage": the decisions answer empty, not with other notes.
    assert (result["status"], result["records"]) == ("ok", [])
    assert result["current_records"] > 0


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"on_or_after": "2026-02-30"}, "on_or_after must be a real date"),
        ({"on_or_after": "yesterday"}, "on_or_after must be a real date"),
        ({"query": ["cache"]}, "query must be text"),
        ({"limit": 51}, "limit must be a whole number from 1 to 50"),
        ({"budget": 70000}, "budget must be a whole number from 512 to 65536"),
    ],
)
def test_recall_activity_refuses_bad_arguments_saying_why(vault: Path, kwargs: dict[str, Any], words: str) -> None:
    with pytest.raises(InvalidArgument, match=words):
        recall_records.recall_activity(scope(vault), "build", **kwargs)


def test_the_tools_read_the_vault_fresh_on_every_call(vault: Path) -> None:
    note = vault / "Projects/CI cache.md"
    assert search.search_notes(scope(vault), "freshly")["records"] == []
    note.write_text(record("build", "Freshly edited [[Release]]."), encoding="utf-8")
    os.utime(note, None)
    assert [h["path"] for h in search.search_notes(scope(vault), "freshly")["records"]] == ["Projects/CI cache.md"]
    assert [h["path"] for h in backlinks.get_backlinks(scope(vault), "Ship it")["records"]] == ["Projects/CI cache.md"]


# Corner cases found in review


@pytest.fixture
def odd(tmp_path: Path) -> Path:
    return write_vault(
        tmp_path / "Odd",
        {
            "C# notes/Issue #12.md": record(
                "build", "# Issue #12\ntext\n## A\nparent\n### A\nchild\n", aliases="[CI/CD]"
            ),
            "Links.md": record(
                "build",
                "x" * 700 + " [l](C%23%20notes/Issue%20%2312.md) and [[CI/CD]]\n[p](Note%20(draft).md)",
                related='"[[CI/CD]]"',
            ),
            "Note (draft).md": record("build", "draft"),
            "Nan.md": record("build", "n", x=".nan", y="-.inf"),
        },
    )


def test_a_name_with_a_hash_is_read_as_written(odd: Path) -> None:
    assert reading.read_note(scope(odd), "C# notes/Issue #12.md")["path"] == "C# notes/Issue #12.md"
    hit = search.search_notes(scope(odd), "parent")["records"][0]
    assert reading.read_note(scope(odd), hit["path"])["path"] == hit["path"]  # a search hit can be read


def test_an_alias_with_a_slash_resolves(odd: Path) -> None:
    assert reading.read_note(scope(odd), "CI/CD")["path"] == "C# notes/Issue #12.md"


def test_a_heading_with_a_hash_and_a_nested_heading_of_the_same_name(odd: Path) -> None:
    assert reading.read_note(scope(odd), "C# notes/Issue #12.md", section="Issue #12")["text"].startswith("# Issue #12")
    assert reading.read_note(scope(odd), "CI/CD", section="A#A")["text"] == "### A\nchild\n"
    assert reading.read_note(scope(odd), "CI/CD", section="A")["text"] == "## A\nparent\n### A\nchild\n"


def test_backlinks_find_encoded_links_and_parentheses_but_no_alias(odd: Path) -> None:
    found = backlinks.get_backlinks(scope(odd), "CI/CD")["records"]
    assert [(h["path"], h["line"]) for h in found] == [("Links.md", 5)]  # not [[CI/CD]], an alias
    assert "[l](C%23%20notes/Issue%20%2312.md)" in found[0]["text"] and found[0]["shortened"] is True
    draft = backlinks.get_backlinks(scope(odd), "Note (draft)")["records"]
    assert [(h["path"], h["line"]) for h in draft] == [("Links.md", 6)]


def test_nan_and_infinity_properties_stay_valid_json(odd: Path) -> None:
    result = reading.read_note(scope(odd), "Nan")
    assert (result["properties"]["x"], result["properties"]["y"]) == (".nan", "-.inf")
    json.loads(json.dumps(result, allow_nan=False))


def test_a_broken_note_fits_a_small_budget(tmp_path: Path) -> None:
    deep = "/".join(["Folder with a rather long name"] * 12) + "/Broken.md"
    vault = write_vault(tmp_path / "v", {deep: "---\nsubject: s\nsubject: s\n" + "x: 1\n" * 3 + "---\n"})
    result = reading.read_note(scope(vault), deep, budget=1024)
    assert result["status"] == "degraded" and json_size(result) <= 1024


def test_backlinks_do_not_change_with_notes_the_client_cannot_see(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "v", {"A/Plan.md": record("s", "plan"), "C/x.md": record("s", "see [[Plan]]")})
    before = backlinks.get_backlinks(scope(vault), "A/Plan")["records"]
    (vault / "Plan.md").write_text("an unshared plain note\n", encoding="utf-8")
    assert backlinks.get_backlinks(scope(vault), "A/Plan")["records"] == before != []
    # With the whole vault shared, links resolve as Obsidian does: to the closer 'Plan'.
    assert backlinks.get_backlinks(scope(vault, "vault"), "A/Plan")["records"] == []


@pytest.mark.parametrize("budget", [512, 700, 1000, 2048])
def test_search_backlinks_and_history_fit_tight_budgets(tmp_path: Path, budget: int) -> None:
    notes = {
        f"N{i:02}.md": record("s", f"word [[Target]] {'pad ' * (i * 7)}", kind="event", date=f"2026-01-{i + 1:02}")
        for i in range(25)
    }
    notes["Target.md"] = record("s", "target")
    vault = write_vault(tmp_path / "v", notes)
    searched = search.search_notes(scope(vault), "word", limit=100, budget=budget)
    history = recall_records.recall_activity(scope(vault), "s", budget=budget, limit=50)
    for result, total in ((searched, 25), (history, 25)):
        assert json_size(result) <= budget
        assert len(result["records"]) + result["omitted"] == total
    linked = backlinks.get_backlinks(scope(vault), "Target", limit=200)
    assert len(linked["records"]) + linked["omitted"] == 25
