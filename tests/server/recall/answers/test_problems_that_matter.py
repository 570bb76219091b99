"""A recall names the broken notes that could answer *this* query, in a small share of its
budget, and what could not be read where its records may be.

obsidian-hub's 12 people pages (`aliases: - @name`, which YAML refuses) list the plugins and
themes each person made: most whole-vault recalls saying "plugin" or "theme" were `degraded`,
naming 8 of them in 1.5 KB of a 4 KB budget, and the page that answered came without its text.
Such a page is ranked as Obsidian shows it, so its problem matters only when the answer returns
it, or when its unread properties hold a word asked.  And a folder that cannot be read inside a
subject's folder left every answer to a client that sees records `ok`, while health named it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.support.parts import as_nobody_if_root
from tests.support.paths import REPO_ROOT
from tests.support.vaults import record, write_vault
from vault_recall.server.recall.answers import recall_records
from vault_recall.server.recall.answers.recall_answer import PROBLEM_SHARE
from vault_recall.server.recall.finding.one_note import unreadable_folder
from vault_recall.server.recall.finding.view import could_be_about
from vault_recall.server.recall.packing import json_size
from vault_recall.server.recall.results import RecallResult
from vault_recall.server.recall.scope import Exposure, ExposureMode, Scope
from vault_recall.server.recall.subject_rules import SubjectRule, SubjectRules


def person(name: str, made: str) -> str:
    return f"---\naliases:\n- @{name}\ntags:\n- people\n---\n# {name}\n\n## Plugins\n\n- {made} plugin\n"


PEOPLE = {f"People/{name}.md": person(name, made) for name, made in [("ann", "Kanban"), ("bo", "Tasks"), ("cy", "Git")]}
CALENDAR = "# Calendar plugin\n\nThe calendar plugin shows your daily notes on a calendar, plugin by plugin.\n"


def whole(vault: Path, query: str | None, budget: int = 4096, limit: int = 3) -> RecallResult:
    scope = Scope(client="t", vault=vault, exposure=Exposure(mode="vault"))
    return recall_records.recall_context(scope, None, query, budget=budget, limit=limit)


def named(result: RecallResult) -> list[str]:
    return [p["path"] for p in result.get("problems", [])]


def test_broken_pages_an_answer_does_not_return_are_no_problem_of_it(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "v", {**PEOPLE, "Calendar.md": CALENDAR})
    result = whole(vault, "calendar plugin", limit=1)
    # Each page holds "plugin" (before: all three named), none is returned: the answer is whole.
    assert [r["path"] for r in result["records"]] == ["Calendar.md"]
    assert result["status"] == "ok" and "problems" not in result
    # Asked for more, the pages are returned (ranked by their title and body): each is named.
    more = whole(vault, "calendar plugin", limit=4)
    returned = [r["path"] for r in more["records"]]
    assert more["status"] == "degraded" and sorted(named(more)) == sorted(PEOPLE) and set(PEOPLE) <= set(returned)
    # Named in the order they are returned, before any other problem.
    assert named(more) == [path for path in returned if path in PEOPLE]


def test_a_broken_page_whose_unread_properties_hold_a_word_asked_is_named(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "v", {**PEOPLE, "Calendar.md": CALENDAR, "Bo fan.md": "bo " * 40 + "\n"})
    # `@bo` is an alias Obsidian would match; unread, it might have ranked bo's page first.
    assert "People/bo.md" in named(whole(vault, "bo", limit=1))
    # A property's name is never ranked: `tags` asked holds no value of the block.
    assert named(whole(vault, "tags", limit=1)) == []
    # Without a query, the newest notes: a broken page is a problem only if among them.
    newest = whole(vault, None, limit=1)
    assert named(newest) == [r["path"] for r in newest["records"] if r["path"] in PEOPLE]


def test_problems_take_at_most_an_eighth_of_the_budget_and_the_rest_are_counted(tmp_path: Path) -> None:
    # Broken records that are no page shown (a `subject` in an unreadable block): each holding
    # the word asked could be the answer.
    broken = {f"Plans/Plan {i:02}.md": f"---\nsubject: [plans\n---\nthe calendar plan {i}\n" for i in range(12)}
    vault = write_vault(tmp_path / "v", {**broken, "Calendar.md": CALENDAR})
    for budget in (1024, 4096, 16384):
        result = whole(vault, "calendar", budget=budget)
        problems = result.get("problems", [])
        assert result["status"] == "degraded" and problems
        assert json_size(problems) - 2 <= max(budget // PROBLEM_SHARE, json_size(problems[0]))
        assert len(problems) + result.get("problems_omitted", 0) == 12
        assert result["records"][0]["path"] == "Calendar.md" and "text" in result["records"][0]
    assert whole(vault, "calendar", budget=4096).get("problems_omitted", 0) > 0


RULES = SubjectRules((SubjectRule("notes", folder="Notes"), SubjectRule("people", tag="person")))


def exposure(mode: ExposureMode, subjects: frozenset[str] = frozenset(), rules: SubjectRules = RULES) -> Exposure:
    return Exposure(mode=mode, subjects=subjects, rules=rules)


def test_an_unreadable_folder_where_a_subjects_rules_take_notes_could_be_about_it() -> None:
    inside, above, elsewhere = (unreadable_folder(f) for f in ("Notes/Private", "Archive", "Elsewhere"))
    folder_only = SubjectRules((SubjectRule("notes", folder="Archive/Notes"),))
    # A folder rule: the folder in the rule's folder, or holding it.
    assert could_be_about(inside, ["notes"], exposure("records"))
    assert could_be_about(above, ["notes"], exposure("records", rules=folder_only))
    assert not could_be_about(elsewhere, ["notes"], exposure("records", rules=folder_only))
    # A tag rule takes notes wherever they are: any folder.
    assert could_be_about(elsewhere, ["people"], exposure("records"))
    # Only for subjects the client may see; with no rule, only to a client that sees every note.
    assert not could_be_about(inside, None, exposure("subjects", frozenset({"other"})))
    notes_folder = SubjectRules((SubjectRule("notes", folder="Notes"),))
    assert could_be_about(inside, None, exposure("subjects", frozenset({"notes"}), rules=notes_folder))
    assert not could_be_about(elsewhere, None, exposure("records", rules=SubjectRules()))
    assert could_be_about(elsewhere, None, exposure("vault", rules=SubjectRules()))


PROBE = """
import json, sys
from pathlib import Path
from vault_recall.server.recall.answers import recall_records
from vault_recall.server.recall.scope import Exposure, Scope
from vault_recall.server.recall.subject_rules import SubjectRule, SubjectRules
rules = SubjectRules((SubjectRule("notes", folder="Notes"),))
answers = []
for mode in ("records", "vault"):
    scope = Scope(client="t", vault=Path(sys.argv[1]), exposure=Exposure(mode=mode, rules=rules))
    for subject in ("notes", None):
        for query in ("budget", None):
            answers.append(recall_records.recall_context(scope, subject, query))
print(json.dumps(answers))
"""


def test_a_folder_that_cannot_be_read_inside_a_subjects_folder_degrades_its_recalls() -> None:
    # Root opens any folder whatever its mode, so as root the recall runs as 'nobody'.
    base = Path(tempfile.mkdtemp(prefix="vault-recall-test-"))
    try:
        base.chmod(0o755)
        vault = write_vault(
            base / "v", {"Notes/A.md": "the budget plan\n", "Notes/Private/B.md": record("notes", "budget secret")}
        )
        (vault / "Notes/Private").chmod(0)
        done = subprocess.run(
            [*as_nobody_if_root(), sys.executable, "-c", PROBE, str(vault)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            cwd=REPO_ROOT,
        )
        assert done.returncode == 0, done.stderr
        for answer in json.loads(done.stdout):  # by subject and across all, to either client
            assert answer["status"] == "degraded", answer
            assert [p["path"] for p in answer["problems"]] == ["Notes/Private/"]
            assert [r["path"] for r in answer["records"]] == ["Notes/A.md"]
    finally:
        (base / "v" / "Notes" / "Private").chmod(0o755)
        shutil.rmtree(base, ignore_errors=True)
