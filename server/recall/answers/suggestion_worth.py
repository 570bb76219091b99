"""Which proposed subject rules are worth accepting (rule_suggestions.py proposes them).

A subject is something a person asks about.  Not one:
- a workflow or status marker — a tag, value or top-level folder that says where a note is in
  the person's process, not what it is about: a word of MARKERS (for a folder, its name's slug:
  `06 - Inbox`, `Archive`) (digital-garden stages, GTD states,
  publishing states: obsidian-hub's `placeholder` on 3,563 notes, `seedling`, `evergreen`), or
  any value of a property that holds a note's state (STATE_PROPERTIES: `status=Published`).  A
  word list, because markers are conventions with a small vocabulary, and neither spread nor
  size tells them from subjects: a `#python` tag on notes in every folder is a subject, and
  in a small vault one tag may well be on most notes;
- a folder (or tag, or value) of drawings and canvases: at least half of what it takes are
  Excalidraw drawings (`excalidraw-plugin` in the properties, or `.excalidraw.md`), counted with
  the `.canvas` and `.excalidraw` files beside them — a 101 KB "record" of drawing data answers
  nothing;
- the attachments folder Obsidian puts pasted files in (`attachmentFolderPath` in
  `.obsidian/app.json`).

And no two rules should take the same notes: a top-level folder at least half of whose notes
are daily notes gives way to `--daily-notes` (accepting both made the folder's notes events of
one subject and records of another), and of two proposals taking nearly the same notes (their
Jaccard index at least SAME_NOTES) only the first is kept — folders come first, the person's
own map.  A proposal taking nearly the notes a rule the vault has already takes is no new
subject either.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from vault_recall.server.obsidian.note import Note
from vault_recall.server.recall.subject_rules import SubjectRule
from vault_recall.server.vault.settings import config_folders, read_settings

MARKERS = frozenset(
    {
        # digital-garden growth stages
        "seedling", "sprout", "sapling", "budding", "evergreen",
        # note kinds of a method, not topics
        "fleeting", "literature", "permanent", "placeholder", "stub", "moc",
        # states of work
        "draft", "drafts", "wip", "todo", "to-do", "doing", "done", "in-progress", "inprogress",
        "complete", "completed", "finished", "active", "inactive", "paused", "someday", "waiting",
        "backlog", "review", "to-review", "needs-review", "inbox", "unprocessed", "processed",
        "archive", "archived", "deprecated", "outdated", "obsolete",
        # publishing states
        "published", "unpublished", "public", "private", "publish", "ready", "idea", "ideas",
    }
)  # fmt: skip
# Properties whose value is a note's state, never its subject.
STATE_PROPERTIES = frozenset({"status", "state", "stage", "phase", "maturity", "progress", "growth"})
# Two proposals take "the same notes" when this share of all the notes either takes, both take.
SAME_NOTES = 0.8
_DRAWING_FILES = (".canvas", ".excalidraw")


def is_marker(rule: SubjectRule) -> bool:
    """Whether a tag or property value proposal is a workflow or status marker (module doc)."""
    if rule.tag is not None:
        word = rule.tag.casefold()
    elif rule.property_name is not None and rule.value is not None:
        if rule.property_name.casefold() in STATE_PROPERTIES:
            return True
        word = rule.value.casefold()
    else:
        return False
    return word.strip("#/").replace(" ", "-").replace("_", "-") in MARKERS


def is_drawing(note: Note) -> bool:
    """An Excalidraw drawing: its data, not text a person wrote."""
    return note.path.endswith(".excalidraw.md") or "excalidraw-plugin" in note.properties


def attachment_folder(root: Path) -> str | None:
    """The vault folder Obsidian puts attachments in, as a vault path ('Attachments'), or, for
    a folder beside each note ('./assets'), its name with './' — None when the vault's top or
    the note's own folder."""
    for folder in config_folders(root) or [".obsidian"]:
        settings = read_settings(root, f"{folder}/app.json")
        if settings is None:
            continue
        value = settings.get("attachmentFolderPath")
        if not isinstance(value, str):
            return None
        shown = value.strip().strip("/")
        return None if shown in ("", ".") else shown
    return None


def drawing_files(root: Path, folder: str) -> int:
    """How many canvases and Excalidraw files (not notes) a vault folder holds, hidden ones
    passed over."""
    found = 0
    for _, folders, files in os.walk(root / folder):
        folders[:] = [f for f in folders if not f.startswith(".")]
        found += sum(1 for name in files if name.endswith(_DRAWING_FILES))
    return found


@dataclass(frozen=True)
class Taken:
    """What one proposal takes: its notes' paths, and how many of them are drawings."""

    paths: frozenset[str]
    drawings: int


def worth_keeping(
    proposals: list[SubjectRule],
    taken: Mapping[int, Taken],
    existing: Iterable[Taken],
    *,
    root: Path,
    daily: frozenset[str],
    daily_ruled: bool,
) -> list[SubjectRule]:
    """The proposals worth accepting, in their order: `taken[i]` is what proposals[i] takes,
    `existing` what each of the vault's rules takes, `daily` the paths of its daily notes, and
    `daily_ruled` whether a rule of the vault takes them already."""
    attachments = attachment_folder(root)
    kept: list[tuple[SubjectRule, frozenset[str]]] = []
    rules_now = [t.paths for t in existing if t.paths]
    for index, rule in enumerate(proposals):
        got = taken.get(index)
        if got is None or not got.paths:
            continue
        if is_marker(rule):
            continue
        if rule.folder is not None:
            if rule.subject in MARKERS:
                continue  # an Inbox or Archive folder: a place in the workflow, notes of every subject
            if attachments is not None and rule.folder in (attachments, attachments.removeprefix("./")):
                continue
            if 2 * len(got.paths & daily) >= len(got.paths) and (daily_ruled or any(p.daily_notes for p in proposals)):
                continue  # --daily-notes takes them, as dated events
            files = drawing_files(root, rule.folder)
            if 2 * (got.drawings + files) >= len(got.paths) + files:
                continue
        elif 2 * got.drawings >= len(got.paths):
            continue
        if rule.daily_notes and any(len(got.paths & other) * 2 >= len(got.paths) for other in rules_now):
            continue  # a rule of the vault (its daily notes' folder, say) takes them already
        if any(_same(got.paths, other) for other in [*rules_now, *(paths for _, paths in kept)]):
            continue
        kept.append((rule, got.paths))
    return [rule for rule, _ in kept]


def _same(one: frozenset[str], other: frozenset[str]) -> bool:
    return len(one & other) >= SAME_NOTES * len(one | other)
