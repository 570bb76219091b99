"""Subject rules proposed from what a vault already has: its top-level folders, its frequent
tags, the values its list-valued properties share, and its daily notes — each with how many
notes it would take.  `vault-recall subject suggest` prints them and the tray offers them on a
vault with no records; the person picks, nothing is written until they do.

One fresh pass over the notes; nothing is kept.  A proposal is only a proposal: the counts are
what the rule would take now, read by the same code the rule will use (SubjectRules)."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

from vault_recall.server.obsidian.note import InvalidNote, Note
from vault_recall.server.recall.answers.suggestion_worth import Taken, is_drawing, worth_keeping
from vault_recall.server.recall.finding.scan import each_parsed
from vault_recall.server.recall.records import SUBJECT_PATTERN
from vault_recall.server.recall.subject_rules import SubjectRule, SubjectRules, property_values
from vault_recall.server.vault.listing import VaultListing, list_notes

K = TypeVar("K")
# A tag or value shared by fewer notes than this is not worth a subject of its own; a folder
# is one the person made, so two notes are enough.
MIN_NOTES = 3
MIN_FOLDER_NOTES = 2
# At most this many tags and values, the largest first: a list a person reads.  Every
# top-level folder is proposed (up to MAX_FOLDERS): a vault's folders are its person's map.
MAX_EACH = 8
MAX_FOLDERS = 40
# Properties that are Obsidian's own and never a subject (tags are proposed as tags).
_NOT_SUBJECTS = frozenset({"tags", "tag", "aliases", "alias", "cssclasses", "cssclass", "publish", "permalink"})
_NOT_SLUG = re.compile(r"[^a-z0-9]+")
# A folder's ordering number ('02 - Community', '1. Projects') is not part of its subject.
_NUMBERED = re.compile(r"^\d+\s*[-._)]\s*(?=\S)")


@dataclass(frozen=True)
class SuggestedRule:
    """One proposed rule and the notes it would take now."""

    rule: SubjectRule
    notes: int

    def command(self) -> str:
        """The command that adds it, as a person would type it."""
        return f"vault-recall subject add {self.rule.subject} {_quoted(self.rule.describe())}"


@dataclass(frozen=True)
class Suggestions:
    """The rules proposed for a vault, how many proposals its rules are already, and how many
    notes it has (what a proposal's share is of)."""

    proposed: list[SuggestedRule]
    already: int
    vault_notes: int

    def most_useful(self) -> SuggestedRule | None:
        """The one proposal to name first (doctor's fix): a subject is one thing a person asks
        about, so the largest folder (the person's own map) taking at most a quarter of the
        vault's notes — else the largest such tag or value, else the first proposal.  Not the
        largest folder: obsidian-hub's takes 3,535 of its 6,571 notes."""
        fitting = [s for s in self.proposed if 4 * s.notes <= self.vault_notes and s.notes >= MIN_NOTES]
        folders = [s for s in fitting if s.rule.folder is not None]
        for group in (folders, fitting, self.proposed):
            if group:
                return max(group, key=lambda s: s.notes)
        return None


def suggest_rules(root: Path, existing: Iterable[SubjectRule] = ()) -> list[SuggestedRule]:
    """Rules proposed for the vault at `root` (suggestions' `proposed`)."""
    return suggestions(root, existing).proposed


def suggestions(root: Path, existing: Iterable[SubjectRule] = ()) -> Suggestions:
    """Rules proposed for the vault at `root`, folders first, then tags, property values and
    daily notes, each kind largest first — those worth accepting (suggestion_worth.py).  A rule
    the vault has already is not proposed again (counted in `already`), and no two proposals
    share a subject slug."""
    listing = list_notes(root)
    vault_notes = 0
    folders: Counter[str] = Counter()
    tags: Counter[str] = Counter()
    values: Counter[tuple[str, str]] = Counter()
    named: dict[str, str] = {}  # folded -> as first written, for tags and property values
    for parsed in each_parsed(root, listing):
        note = parsed.readable if isinstance(parsed, InvalidNote) else parsed
        if note is None or note.template:
            continue
        vault_notes += 1
        if "/" in note.path:
            folders[note.path.split("/", 1)[0]] += 1
        _count_tags(note, tags, named)
        _count_values(note, values, named)
    proposals: list[SubjectRule] = []
    proposals += [SubjectRule(_slug(f), folder=f) for f, n in folders.most_common(MAX_FOLDERS) if n >= MIN_FOLDER_NOTES]
    proposals += [SubjectRule(_slug(named[t]), tag=named[t]) for t, n in _largest(tags)]
    proposals += [
        SubjectRule(_slug(named[v]), property_name=named[p], value=named[v]) for (p, v), n in _largest(values)
    ]
    proposals.append(SubjectRule("journal", daily_notes=True))
    rules = tuple(existing)
    unique = _unique(proposals, rules)
    already = sum(1 for rule in proposals if any(_same_way(rule, old) for old in rules))
    return Suggestions(_counted(root, listing, unique, rules), already, vault_notes)


def _count_tags(note: Note, tags: Counter[str], named: dict[str, str]) -> None:
    # A nested tag counts for its top level too: a rule for 'project' takes 'project/alpha'.
    seen: set[str] = set()
    for tag in note.all_tags:
        top = tag.strip("#/").split("/", 1)[0]
        folded = top.casefold()
        if folded and folded not in seen:
            seen.add(folded)
            named.setdefault(folded, top)
            tags[folded] += 1


def _count_values(note: Note, values: Counter[tuple[str, str]], named: dict[str, str]) -> None:
    for key, value in note.properties.items():
        if not isinstance(value, list) or key.casefold() in _NOT_SUBJECTS:
            continue  # only list-valued properties: categories, topics, projects …
        name = key.casefold()
        named.setdefault(name, key)
        for shown in property_values(value):
            folded = shown.casefold()
            named.setdefault(folded, shown)
            values[(name, folded)] += 1


def _largest(counts: Counter[K]) -> list[tuple[K, int]]:
    return [(key, n) for key, n in counts.most_common() if n >= MIN_NOTES][:MAX_EACH]


def _unique(proposals: list[SubjectRule], existing: tuple[SubjectRule, ...]) -> list[SubjectRule]:
    """Drop proposals the vault has already and any whose slug is empty; give each slug once
    (a second 'books' becomes 'books-tag' or 'books-2')."""
    taken = {rule.subject for rule in existing}
    kept: list[SubjectRule] = []
    for rule in proposals:
        if any(_same_way(rule, old) for old in existing) or not rule.subject:
            continue
        subject = rule.subject
        if subject in taken:
            subject = next(
                s
                for s in (f"{rule.subject}-{rule.kind}"[:64], *(f"{rule.subject}-{i}" for i in range(2, 99)))
                if s not in taken
            )
        taken.add(subject)
        kept.append(SubjectRule(subject, rule.folder, rule.tag, rule.property_name, rule.value, rule.daily_notes))
    return kept


def _same_way(rule: SubjectRule, old: SubjectRule) -> bool:
    return (rule.folder, rule.tag_folded, rule.property_name, rule.value_folded, rule.daily_notes) == (
        old.folder,
        old.tag_folded,
        old.property_name,
        old.value_folded,
        old.daily_notes,
    )


def _counted(
    root: Path, listing: VaultListing, proposals: list[SubjectRule], existing: tuple[SubjectRule, ...]
) -> list[SuggestedRule]:
    """The proposals worth accepting, each with how many notes it would take — which notes,
    told by the rules themselves, as are those each rule of the vault takes now."""
    if not proposals:
        return []
    # One pass: each proposal and each existing rule under a name of its own.
    every = (*proposals, *existing)
    named = SubjectRules(tuple(replace(rule, subject=f"r{i}") for i, rule in enumerate(every)), root)
    paths: list[set[str]] = [set() for _ in every]
    drawings = [0] * len(every)
    daily: set[str] = set()
    days = named.daily
    for parsed in each_parsed(root, listing):
        note = parsed.readable if isinstance(parsed, InvalidNote) else parsed
        if note is None or note.template:
            continue
        if days is not None and days.date_of(note.path) is not None:
            daily.add(note.path)
        drawing = is_drawing(note)
        for subject in named.subjects_of(note):
            index = int(subject[1:])
            paths[index].add(note.path)
            drawings[index] += drawing
    taken = {i: Taken(frozenset(paths[i]), drawings[i]) for i in range(len(proposals))}
    kept = worth_keeping(
        proposals,
        taken,
        (Taken(frozenset(paths[i]), drawings[i]) for i in range(len(proposals), len(every))),
        root=root,
        daily=frozenset(daily),
        daily_ruled=any(rule.daily_notes for rule in existing),
    )
    by_rule = {id(rule): len(taken[i].paths) for i, rule in enumerate(proposals)}
    return [SuggestedRule(rule, by_rule[id(rule)]) for rule in kept]


def notes_taken(root: Path, rules: SubjectRules, listing: VaultListing | None = None) -> Counter[str]:
    """How many notes of the vault each rule subject takes now (templates never; a note that
    names its own subject is still counted: the rule matches it, its properties decide)."""
    counts: Counter[str] = Counter()
    if not rules:
        return counts
    for parsed in each_parsed(root, listing or list_notes(root)):
        note = parsed.readable if isinstance(parsed, InvalidNote) else parsed
        if note is not None and not note.template:
            counts.update(rules.subjects_of(note))
    return counts


def _slug(name: str) -> str:
    """A subject slug from a folder, tag or value: 'Reading List' -> 'reading-list',
    'Café' -> 'cafe'; '' when nothing of it is a letter or digit in a-z, 0-9."""
    plain = unicodedata.normalize("NFKD", _NUMBERED.sub("", name)).encode("ascii", "ignore").decode("ascii").lower()
    slug = _NOT_SLUG.sub("-", plain).strip("-")[:64].strip("-")
    return slug if SUBJECT_PATTERN.fullmatch(slug) else ""


def _quoted(words: str) -> str:
    """'--folder Reading List' -> "--folder 'Reading List'" for a shell."""
    flag, _, value = words.partition(" ")
    if not value or re.fullmatch(r"[\w./=@%+:,-]+", value):
        return words
    return f"{flag} '" + value.replace("'", "'\\''") + "'"
