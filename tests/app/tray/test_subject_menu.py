"""The subjects a vault already suggests, in the tray's menu (app/tray/menu/subject_items.py): on a
readable vault with no records the first menu offers them, one click each with how many notes
each takes; *Vault ▸ Subjects from rules* removes a rule in one click and offers the rest; a
rule travels whole in its item's action, with the vault it was offered for."""

from __future__ import annotations

import pytest

from tests.support.menu_walk import find, first_lines, texts
from vault_recall.app.state.health import HealthReport
from vault_recall.app.tray.menu.items import TrayState
from vault_recall.app.tray.menu.subject_items import rule_action, rule_of
from vault_recall.app.tray.menu.tree import build_menu
from vault_recall.server.config.config_file import Config, VaultEntry
from vault_recall.server.recall.answers.rule_suggestions import SuggestedRule
from vault_recall.server.recall.results import Status
from vault_recall.server.recall.subject_rules import SubjectRule

NOW = 1_800_000_000.0
PROJECTS = SubjectRule("projects", folder="Projects")
WORK = Config(vaults=(VaultEntry("Work", "/v/work"),), active_vault="Work")
PROPOSALS = (
    SuggestedRule(PROJECTS, 42),
    SuggestedRule(SubjectRule("areas", folder="Areas"), 10),
    SuggestedRule(SubjectRule("k8s", tag="k8s"), 5),
    SuggestedRule(SubjectRule("books", property_name="categories", value="Books"), 4),
    SuggestedRule(SubjectRule("journal", daily_notes=True), 1),
)


def report(records: int = 0, status: Status = "ok") -> HealthReport:
    return HealthReport(status=status, vault="work", path="/v/work", notes=62, records=records)


def state(**kw: object) -> TrayState:
    fields: dict[str, object] = {"config": WORK, "health": report(), "now": NOW, "suggestions": PROPOSALS} | kw
    return TrayState(**fields)  # type: ignore[arg-type]


def test_a_vault_with_no_records_offers_its_subjects_one_click_each_with_their_counts() -> None:
    menu = build_menu(state())
    assert first_lines(menu) == [
        "Work — 62 notes, 0 records, no problems",
        "Add subject 'projects' — folder Projects/ (42 notes)",
        "Add subject 'areas' — folder Areas/ (10 notes)",
        "Add subject 'k8s' — tag #k8s (5 notes)",
        "More subjects to recall (2)",
        "No memory records yet: what is a record?",
    ]
    assert menu[1].action == ("add_rule", "Work", "projects", "folder", "Projects")
    more = find(menu, "More subjects to recall (2)").submenu or ()
    assert texts(more) == [
        "Add subject 'books' — categories: Books (4 notes)",
        "Add subject 'journal' — daily notes (1 note)",
    ]
    assert more[0].action == ("add_rule", "Work", "books", "property", "categories", "Books")


def test_a_few_proposals_are_all_in_the_first_menu_without_a_submenu() -> None:
    menu = build_menu(state(suggestions=PROPOSALS[:2]))
    assert first_lines(menu)[1:] == [
        "Add subject 'projects' — folder Projects/ (42 notes)",
        "Add subject 'areas' — folder Areas/ (10 notes)",
        "No memory records yet: what is a record?",
    ]


@pytest.mark.parametrize(
    ("why", "changes"),
    [
        ("the vault has records", {"health": report(records=3)}),
        ("health is still being checked", {"health": None}),
        ("the vault cannot be read", {"health": report(status="unavailable")}),
        ("nothing is suggested", {"suggestions": ()}),
    ],
)
def test_no_proposals_reach_the_first_menu_when(why: str, changes: dict[str, object]) -> None:
    assert not any(line.startswith("Add subject") for line in first_lines(build_menu(state(**changes)))), why


def test_a_vault_with_broken_notes_and_no_records_is_offered_its_subjects_too() -> None:
    menu = build_menu(state(health=report(status="degraded")))
    assert "Add subject 'projects' — folder Projects/ (42 notes)" in first_lines(menu)


def test_a_rule_the_vault_has_already_is_not_offered_again_whatever_its_subject() -> None:
    ruled = Config(vaults=(VaultEntry("Work", "/v/work", subject_rules=(SubjectRule("work", folder="Projects"),)),))
    menu = build_menu(state(config=Config(vaults=ruled.vaults, active_vault="Work")))
    assert not any("Projects/" in line for line in first_lines(menu))
    assert "Add subject 'areas' — folder Areas/ (10 notes)" in first_lines(menu)


def test_subjects_from_rules_removes_each_rule_in_one_click_and_offers_the_rest() -> None:
    rules = (PROJECTS, SubjectRule("projects", tag="project"), SubjectRule("k8s", tag="k8s"))
    config = Config(vaults=(VaultEntry("Work", "/v/work", subject_rules=rules),), active_vault="Work")
    menu = build_menu(state(config=config, health=report(records=50)))
    assert not any(line.startswith("Add subject") for line in first_lines(menu))
    rules_menu = find(menu, "Vault", "Subjects from rules").submenu or ()
    assert texts(rules_menu) == [
        "Remove 'projects' — folder Projects/",
        "Remove 'projects' — tag #project",
        "Remove 'k8s' — tag #k8s",
        "-",
        "Add subject 'areas' — folder Areas/ (10 notes)",
        "Add subject 'books' — categories: Books (4 notes)",
        "Add subject 'journal' — daily notes (1 note)",
    ]
    assert rules_menu[1].action == ("remove_rule", "Work", "projects", "tag", "project")


def test_subjects_from_rules_says_how_to_get_proposals_when_it_has_nothing_to_show() -> None:
    menu = build_menu(state(health=report(records=5), suggestions=()))
    (only,) = find(menu, "Vault", "Subjects from rules").submenu or ()
    assert only.text == "None yet; proposals: vault-recall subject suggest" and not only.enabled
    (none,) = find(build_menu(state(config=Config(), health=None)), "Vault", "Subjects from rules").submenu or ()
    assert none.text == "No vault chosen yet"


@pytest.mark.parametrize("rule", [proposal.rule for proposal in PROPOSALS] + [SubjectRule("x", folder="A b/C é")])
def test_a_rule_comes_back_whole_from_its_items_action(rule: SubjectRule) -> None:
    action = rule_action("add_rule", "My vault", rule)
    assert all(isinstance(word, str) for word in action)
    assert rule_of(action[1:]) == ("My vault", rule)


def test_a_long_folder_name_is_cut_but_never_the_count() -> None:
    long = SuggestedRule(SubjectRule("a-very-long-folder", folder="A very long folder " * 5), 7)
    (line,) = [t for t in first_lines(build_menu(state(suggestions=(long,)))) if t.startswith("Add")]
    assert line.startswith("Add subject 'a-very-long-folder' — folder A very long") and len(line) <= 80
    assert line.endswith("… (7 notes)")
