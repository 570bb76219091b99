"""What the menu's subject items do, over a real vault and config file (app/tray/actions/rule_changes.py
through actions.perform): a click adds the proposed rule to the config — never to the vault —
and says how many notes it takes now and how to change it; *Remove* takes it out again; the
proposals are looked for off the menu (tray/state.py) and reach the menu only for their vault."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.vaults import snapshot, write_vault
from vault_recall.app.app_errors import RuleChangeError
from vault_recall.app.state.config_store import save_config
from vault_recall.app.state.health import check_health
from vault_recall.app.tray.actions.perform import ActionContext, perform
from vault_recall.app.tray.menu.snapshot import Suggested, gather, look_for_suggestions
from vault_recall.app.tray.menu.subject_items import rule_action
from vault_recall.app.tray.menu.tree import Action, build_menu
from vault_recall.server.config.config_file import Config, VaultEntry, load_config
from vault_recall.server.recall.subject_rules import SubjectRule

PROJECTS = SubjectRule("projects", folder="Projects")


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """A vault as people have them: folders and tags, no note naming a subject."""
    vault = write_vault(
        tmp_path / "Work",
        {
            "Projects/Alpha.md": "# Alpha\nWe ship alpha with #k8s.\n",
            "Projects/Beta.md": "# Beta\nBeta waits on #k8s too.\n",
            "Projects/Gamma.md": "---\ntags: [k8s]\n---\n# Gamma\n",
            # The tag is not only the folder's notes under another name (those are offered once).
            "Deploys.md": "Every deploy goes through #k8s.\n",
            "Inbox.md": "loose thoughts\n",
        },
    )
    save_config(Config(vaults=(VaultEntry("Work", str(vault)),), active_vault="Work"))
    return vault


class Told:
    def __init__(self) -> None:
        self.notes: list[tuple[str, str]] = []

    def __call__(self, summary: str, body: str = "") -> None:
        self.notes.append((summary, body))


def click(action: Action, told: Told) -> None:
    perform(action, ActionContext(gather(None), told, lambda _: None))


def test_a_click_adds_the_rule_to_the_config_not_the_vault_and_says_what_it_takes(work: Path) -> None:
    before = snapshot(work)
    told = Told()
    click(rule_action("add_rule", "Work", PROJECTS), told)
    assert load_config().vault("Work").subject_rules == (PROJECTS,)  # type: ignore[union-attr]
    assert told.notes == [
        (
            "Added subject 'projects' to Work",
            "3 notes under Projects/ are memory records of 'projects' from every client's next call; nothing in "
            "your vault changed. To change it: Vault ▸ Subjects from rules in this menu, or vault-recall subject "
            "list / remove projects.",
        )
    ]
    assert snapshot(work) == before
    assert check_health(work).records == 3  # the health line counts them now
    click(rule_action("add_rule", "Work", PROJECTS), told)  # a second click (an older menu): said so
    assert told.notes[-1][0] == "Subject 'projects' is there already"
    assert load_config().vault("Work").subject_rules == (PROJECTS,)  # type: ignore[union-attr]


def test_remove_takes_the_rule_out_and_says_nothing_in_the_vault_changed(work: Path) -> None:
    tag = SubjectRule("projects", tag="k8s")
    told = Told()
    for rule in (PROJECTS, tag):
        click(rule_action("add_rule", "Work", rule), told)
    click(rule_action("remove_rule", "Work", PROJECTS), told)
    assert load_config().vault("Work").subject_rules == (tag,)  # type: ignore[union-attr]
    summary, body = told.notes[-1]
    assert summary == "Removed subject 'projects' from Work"
    assert body.startswith("Its notes under Projects/ are not its records any more, from every client's next call")
    assert "Add it again under Vault ▸ Subjects from rules." in body
    with pytest.raises(RuleChangeError, match=r"has no rule '--folder Projects'"):
        click(rule_action("remove_rule", "Work", PROJECTS), told)


def test_a_rule_offered_for_a_vault_the_config_no_longer_has_is_refused_in_a_sentence(work: Path) -> None:
    with pytest.raises(RuleChangeError, match="there is no vault named 'Gone'"):
        click(rule_action("add_rule", "Gone", PROJECTS), Told())


def test_proposals_are_looked_for_on_a_vault_without_records_and_reach_the_menu_only_for_it(work: Path) -> None:
    report = check_health(work)
    found = look_for_suggestions(work, report)
    assert found is not None and found.path == report.path
    assert [(s.rule, s.notes) for s in found.rules] == [(PROJECTS, 3), (SubjectRule("k8s", tag="k8s"), 4)]
    menu = build_menu(gather(report, suggested=found))
    assert [item.text for item in menu[1:3]] == [
        "Add subject 'projects' — folder Projects/ (3 notes)",
        "Add subject 'k8s' — tag #k8s (4 notes)",
    ]
    # Proposals for another vault (the person just switched) are not shown for this one.
    elsewhere = Suggested("/somewhere/else", found.rules)
    assert gather(report, suggested=elsewhere).suggestions == ()


def test_a_vault_whose_notes_name_their_subjects_is_not_read_again_for_proposals(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "Rec", {f"P/{n}.md": f"---\nsubject: s{n}\n---\n" for n in range(3)})
    assert look_for_suggestions(vault, check_health(vault)) == Suggested(check_health(vault).path or "", ())
    assert look_for_suggestions(None, check_health(None)) is None
