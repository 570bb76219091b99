"""Suggested subject rules worth accepting: no workflow or status marker, no folder of drawings
or attachments, no two rules taking the same notes — and the one to name first is the most
useful, not the largest folder (server/recall/answers/suggestion_worth.py)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.vaults import write_vault
from vault_recall.server.recall.answers.rule_suggestions import suggestions
from vault_recall.server.recall.subject_rules import SubjectRule

DRAWING = "---\nexcalidraw-plugin: parsed\ntags: [excalidraw]\n---\n# Excalidraw Data\n## Drawing\n```json\n{}\n```\n"


def ways(vault: Path, existing: tuple[SubjectRule, ...] = ()) -> list[str]:
    return [s.rule.describe() for s in suggestions(vault, existing).proposed]


def test_workflow_and_status_markers_are_no_subjects(tmp_path: Path) -> None:
    notes: dict[str, str | bytes] = {}
    for i in range(6):
        stage = ("seedling", "evergreen", "placeholder")[i % 3]
        topics = "[Cooking]" if i % 2 else "[Baking]"
        notes[f"Garden/Note {i}.md"] = f"---\nstatus: [Published]\ntopics: {topics}\n---\n#{stage} #cooking\n"
        notes[f"Work/Task {i}.md"] = f"---\nstatus: [Published]\ntopics: {topics}\n---\n#{stage} #cooking\n"
    notes.update({f"Inbox/Idea {i}.md": "an idea #cooking\n" for i in range(3)})
    proposed = ways(write_vault(tmp_path / "v", notes))
    # Before: --tag seedling, --tag evergreen, --tag placeholder, --property status=Published,
    # and --folder Inbox, all offered as subjects.
    assert proposed == [
        "--folder Garden",
        "--folder Work",
        "--tag cooking",
        "--property topics=Baking",
        "--property topics=cooking",
    ]


def test_folders_of_drawings_and_the_attachments_folder_are_not_proposed(tmp_path: Path) -> None:
    notes: dict[str, str | bytes] = {
        ".obsidian/app.json": json.dumps({"attachmentFolderPath": "Files"}),
        **{f"Excalidraw/Drawing {i}.excalidraw.md": DRAWING for i in range(4)},
        "Excalidraw/About.md": "what the drawings are\n",
        **{f"Boards/Board {i}.canvas": "{}" for i in range(5)},
        "Boards/Readme.md": "the boards\n",
        "Boards/Plan.md": "the plan\n",
        "Files/Pasted.md": "pasted\n",
        "Files/Clipped.md": "clipped\n",
        **{f"Recipes/R{i}.md": f"recipe {i}\n" for i in range(3)},
        "Recipes/Sketch.excalidraw.md": DRAWING,
    }
    proposed = ways(write_vault(tmp_path / "v", notes))
    # Before: --folder Excalidraw (5), --folder Boards (2), --folder Files (2) and --tag excalidraw.
    assert proposed == ["--folder Recipes"]


def test_no_two_proposals_take_the_same_notes(tmp_path: Path) -> None:
    vault = write_vault(
        tmp_path / "v",
        {
            ".obsidian/daily-notes.json": json.dumps({"folder": "Daily", "format": "YYYY-MM-DD"}),
            **{f"Daily/2026-03-0{d}.md": "a day\n" for d in range(1, 6)},
            # The same notes under two names: a folder and a tag.
            **{f"Books/B{i}.md": f"book {i} #reading\n" for i in range(4)},
            # A tag on some of a folder's notes is a subject of its own.
            **{f"Work/W{i}.md": f"work {i}" + (" #meeting\n" if i < 3 else "\n") for i in range(7)},
        },
    )
    proposed = ways(vault)
    # Before: --folder Daily and --daily-notes (the same five notes, events of one subject and
    # records of another), --folder Books and --tag reading.
    assert proposed == ["--folder Work", "--folder Books", "--tag meeting", "--daily-notes"]
    # A rule of the vault takes its daily notes' folder: neither is proposed again.
    assert ways(vault, (SubjectRule("days", folder="Daily"),)) == ["--folder Work", "--folder Books", "--tag meeting"]
    # A proposal taking the notes a rule takes already, under another name, is none.
    assert "--folder Books" not in ways(vault, (SubjectRule("books", tag="reading"),))


def test_every_proposal_already_a_rule_is_told_apart_from_nothing_to_propose(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "v", {f"Books/B{i}.md": f"book {i}\n" for i in range(3)})
    found = suggestions(vault, (SubjectRule("books", folder="Books"),))
    assert found.proposed == [] and found.already == 1
    assert suggestions(write_vault(tmp_path / "w", {"A.md": "a\n"})).already == 0


def test_the_most_useful_proposal_is_not_the_largest_folder(tmp_path: Path) -> None:
    notes: dict[str, str | bytes] = {f"Everything/N{i}.md": "n\n" for i in range(60)}
    notes.update({f"Recipes/R{i}.md": "r\n" for i in range(12)})
    notes.update({f"Trips/T{i}.md": "t #travel\n" for i in range(8)})
    notes.update({f"Loose {i}.md": f"l{i} #travel\n" for i in range(20)})
    found = suggestions(write_vault(tmp_path / "v", notes))
    assert found.proposed[0].rule.folder == "Everything" and found.vault_notes == 100
    best = found.most_useful()
    # At most a quarter of the vault, a folder first: Recipes (12), not Everything (60) nor
    # the travel tag (28).
    assert best is not None and best.rule.folder == "Recipes"
