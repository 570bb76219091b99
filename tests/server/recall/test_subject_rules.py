"""Subject rules: the notes a vault already has, recallable as they are — by folder, tag,
property value and daily notes — read fresh on every call, without writing the vault."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.vaults import record, snapshot, write_vault
from vault_recall.server.config.config_file import parse_config
from vault_recall.server.errors import ConfigError, NotExposed
from vault_recall.server.obsidian.note import Note, parse_note
from vault_recall.server.recall.answers import reading, recall_records, search, subjects
from vault_recall.server.recall.answers.rule_suggestions import suggest_rules
from vault_recall.server.recall.results import RecallResult
from vault_recall.server.recall.scope import Exposure, ExposureMode, Scope
from vault_recall.server.recall.subject_rules import SubjectRule, SubjectRules


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_vault(
        tmp_path / "Mine",
        {
            ".obsidian/daily-notes.json": json.dumps({"folder": "Journal", "format": "YYYY-MM-DD"}),
            "Reading/Dune.md": '---\ncategories:\n  - "[[Books]]"\n---\nA desert planet and its spice.\n',
            "Reading/Notes on caching.md": "Caching helps builds.\n",
            "Reading/Kept.md": "---\nstatus: archived\n---\nAn old spice note.\n",
            "Garden/Tomatoes.md": "Tomatoes need #garden/vegetables pests kept off with neem oil.\n",
            "Garden/Roses.md": "---\ntags: [Garden]\n---\nRoses want sun.\n",
            "Journal/2026-03-02.md": "Met the plumber about the leak.\n",
            "Journal/2026-03-09.md": "Fixed the leak for good.\n",
            "Journal/Not a day.md": "Just a note.\n",
            "Owned.md": record("travel", "Flights booked; spice market visit."),
            "Templates/Daily.md": '---\ncategories: ["[[Books]]"]\n---\n{{date}}\n',
            ".obsidian/templates.json": json.dumps({"folder": "Templates"}),
        },
    )


RULES = (
    SubjectRule("reading", folder="Reading"),
    SubjectRule("books", property_name="categories", value="Books"),
    SubjectRule("garden", tag="garden"),
    SubjectRule("home", daily_notes=True),
)


def scope(vault: Path, mode: ExposureMode = "records", shared: frozenset[str] = frozenset()) -> Scope:
    return Scope(
        client="t", vault=vault, exposure=Exposure(mode=mode, subjects=shared, rules=SubjectRules(RULES, vault))
    )


def paths(result: RecallResult) -> list[str]:
    return [r["path"] for r in result["records"]]


def test_rules_make_ordinary_notes_records_and_list_subjects_counts_them(vault: Path) -> None:
    before = snapshot(vault)
    listed = {
        s["subject"]: (s["active"], s["archived"], s["events"])
        for s in subjects.list_subjects(scope(vault))["subjects"]
    }
    # Reading: two active, the archived one as its own status says; books: Dune by its
    # wikilink value (the template's is no record); garden: nested inline tag and a property
    # tag, case ignored; home: the two daily notes as events, not 'Not a day'.
    assert listed == {
        "reading": (2, 1, 0),
        "books": (1, 0, 0),
        "garden": (2, 0, 0),
        "home": (0, 0, 2),
        "travel": (1, 0, 0),
    }
    assert snapshot(vault) == before  # nothing of ours writes in the vault


def test_recall_by_rule_subject_ranks_and_answers_empty_when_nothing_matches(vault: Path) -> None:
    found = recall_records.recall_context(scope(vault), "garden", "neem oil for pests")
    assert paths(found)[0] == "Garden/Tomatoes.md" and found["weak_match"] is False
    nothing = recall_records.recall_context(scope(vault), "garden", "kubernetes")
    assert (nothing["status"], nothing["records"], nothing["current_records"]) == ("ok", [], 2)
    # An archived note stays out even when it matches best.
    assert paths(recall_records.recall_context(scope(vault), "reading", "spice", limit=10)) == ["Reading/Dune.md"]


def test_daily_notes_are_dated_events_for_recall_activity(vault: Path) -> None:
    history = recall_records.recall_activity(scope(vault), "home")
    assert [(r["path"], r["date"]) for r in history["records"]] == [
        ("Journal/2026-03-09.md", "2026-03-09"),
        ("Journal/2026-03-02.md", "2026-03-02"),
    ]
    later = recall_records.recall_activity(scope(vault), "home", on_or_after="2026-03-05")
    assert paths(later) == ["Journal/2026-03-09.md"]


def test_recall_without_subject_covers_what_the_client_may_see(vault: Path) -> None:
    # Default exposure: every record (own properties or rules), events and archived left out.
    everything = recall_records.recall_context(scope(vault), None, "spice", limit=10)
    assert sorted(paths(everything)) == ["Owned.md", "Reading/Dune.md"]
    # A client shown only 'garden' recalls only garden across the board.
    garden_only = scope(vault, "subjects", frozenset({"garden"}))
    assert paths(recall_records.recall_context(garden_only, None, "spice")) == []
    assert paths(recall_records.recall_context(garden_only, None, "roses")) == ["Garden/Roses.md"]
    with pytest.raises(NotExposed):
        recall_records.recall_context(garden_only, "reading", "spice")
    # A client that sees the whole vault recalls every note, ruled or not.
    whole = Scope(client="t", vault=vault, exposure=Exposure(mode="vault"))
    assert "Journal/Not a day.md" in paths(recall_records.recall_context(whole, None, "just a note", limit=10))


def test_rules_are_read_fresh_a_note_moved_out_of_the_folder_leaves_the_subject(vault: Path) -> None:
    assert "Reading/Notes on caching.md" in paths(recall_records.recall_context(scope(vault), "reading", "caching"))
    (vault / "Reading/Notes on caching.md").rename(vault / "Loose.md")
    assert paths(recall_records.recall_context(scope(vault), "reading", "caching")) == []


def test_a_note_s_own_properties_win_over_a_rule(vault: Path) -> None:
    (vault / "Reading/Own.md").write_text(record("travel", "Spice routes.", kind="event", date="2026-01-01"))
    assert "Reading/Own.md" not in paths(recall_records.recall_context(scope(vault), "reading", "spice routes"))
    assert paths(recall_records.recall_activity(scope(vault), "travel")) == ["Reading/Own.md"]


def test_search_knows_rule_subjects(vault: Path) -> None:
    hits = search.search_notes(scope(vault), "leak", subject="home")
    assert sorted(h["path"] for h in hits["records"]) == ["Journal/2026-03-02.md", "Journal/2026-03-09.md"]


def test_suggestions_propose_top_level_folders_tags_and_list_values(vault: Path) -> None:
    proposed = {(s.rule.describe(), s.notes) for s in suggest_rules(vault)}
    assert ("--folder Reading", 4) in proposed or ("--folder Reading", 3) in proposed
    assert ("--folder Garden", 2) in proposed and ("--daily-notes", 2) in proposed
    # Journal/ is mostly daily notes: --daily-notes takes them (as events), not a folder rule too.
    assert not any(way == "--folder Journal" for way, _ in proposed)
    # A rule the vault has already is not proposed again.
    again = {s.rule.describe() for s in suggest_rules(vault, (SubjectRule("x", folder="Reading"),))}
    assert "--folder Reading" not in again


@pytest.mark.parametrize(
    ("rule", "words"),
    [
        ({"subject": "Bad", "folder": "x"}, "is not a slug"),
        ({"subject": "a", "folder": "x", "tag": "y"}, "exactly one of"),
        ({"subject": "a", "folder": "../up"}, "inside the vault"),
        ({"subject": "a", "folder": ".hidden"}, "hidden"),
        ({"subject": "a", "tag": "two words"}, "one tag"),
        ({"subject": "a", "property": "categories"}, "non-empty 'value'"),
    ],
)
def test_a_bad_rule_in_the_config_is_one_sentence(rule: dict[str, object], words: str) -> None:
    data = {"version": 1, "vaults": [{"name": "v", "path": "/v", "subject_rules": [rule]}], "active_vault": "v"}
    with pytest.raises(ConfigError, match=words):
        parse_config(json.dumps(data).encode(), Path("config.json"))


@pytest.mark.parametrize(("mode", "shared"), [("records", frozenset()), ("subjects", frozenset({"reading"}))])
def test_a_broken_note_a_rule_takes_is_the_same_problem_to_every_tool(
    vault: Path, mode: ExposureMode, shared: frozenset[str]
) -> None:
    # Properties YAML cannot read ('@' starts no plain scalar), in the folder a rule takes:
    # recall and list_subjects say it could be missing, and so must reading and searching it.
    broken = "Reading/Kepano.md"
    (vault / broken).write_text("---\naliases:\n- @kepano\n---\nSpice notes by kepano.\n")
    seen = scope(vault, mode, shared)
    problems = {
        "recall_context": recall_records.recall_context(seen, "reading", "spice").get("problems", []),
        "list_subjects": subjects.list_subjects(seen).get("problems", []),
        "search_notes": search.search_notes(seen, "kepano").get("problems", []),
        "search_notes by subject": search.search_notes(seen, "kepano", subject="reading").get("problems", []),
        "read_note": reading.read_note(seen, broken).get("problems", []),
    }
    assert {tool: [p["path"] for p in found] for tool, found in problems.items()} == {
        tool: [broken] for tool in problems
    }
    # A subject no rule of which can take it is not told of it.
    (vault / "Elsewhere").mkdir()
    (vault / "Elsewhere/Kepano.md").write_text("---\naliases:\n- @kepano\n---\nKitchen notes.\n")
    assert search.search_notes(seen, "kitchen notes").get("problems", []) == []


@pytest.mark.parametrize(
    ("body", "taken"),
    [
        ("text #Project/Alpha here\n", True),  # nested, case ignored
        ("text #projects here\n", False),  # another tag
        ("`#project` is code, no tag\n", False),
        ("no tag at all\n", False),
        ("déjà vu #PROJECT\n", True),  # not ASCII: read for its tags
        ("déjà vu, no tag\n", False),
    ],
)
def test_a_tag_rule_reads_inline_tags_only_of_a_body_that_may_hold_them(body: str, taken: bool) -> None:
    """Finding inline tags is most of a parsed note's cost across a vault: an ASCII body
    without the tag's text is never read for them, and the answer is the same."""
    rules = SubjectRules((SubjectRule("tagged", tag="project"),))
    note = parse_note("Note.md", f"---\ntags: [other]\n---\n{body}".encode(), 0)
    assert isinstance(note, Note)
    assert rules.subjects_of(note) == (("tagged",) if taken else ())
    full = any(tag.casefold() in ("project",) or tag.casefold().startswith("project/") for tag in note.all_tags)
    assert full == taken
    fresh = parse_note("Note.md", f"---\ntags: [other]\n---\n{body}".encode(), 0)
    assert isinstance(fresh, Note)
    rules.subjects_of(fresh)
    read_inline = "all_tags" in vars(fresh)
    assert read_inline == (not body.isascii() or "project" in body.lower())
