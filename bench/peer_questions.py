"""The peer benchmark's questions: chosen from a vault once, the same for every server.

Each round asks about one note of the vault (a `Case`): a rare phrase from its text, its exact
vault path, its name, its title as a search, and a word that is on most notes.  Notes are
chosen so that every server can answer the same thing whole:

- at most 12 KiB, so that no server pages or outlines it instead of returning it (Vault
  Recall's `read_note` returns a section list over 16 KiB, obsidian-mcp pages at 20,000
  characters);
- valid UTF-8, outside hidden folders, Excluded files and template folders (what every server
  can see);
- a name unique in the vault, free of glob, regex and wikilink syntax, and held in the note's
  own text but in few others (so a title search can find it among 20 hits);
- holding four words in a row, ASCII letters and single spaces, that at most
  `RARE_NOTES` notes hold (the rare phrase; also what a read must return).

Also a few checks of what a server answered: the rare phrase and the title search must name the
note's path, a read must hold the phrase.  A fast answer that fails its check is no answer, and
the benchmark says so beside the time.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from vault_recall.server.vault.listing import list_notes

MAX_NOTE_BYTES = 12 * 1024
MIN_NOTE_BYTES = 200
RARE_NOTES = 3  # a rare phrase is in at most this many notes
TITLE_NOTES = 5  # a title searched for is in the text of at most this many notes
COMMON_WORDS = 3  # the common word rotates over the vault's most widespread words
WORD_SAMPLE = 2000  # notes sampled to find the most widespread words
# A name that a glob (server-filesystem), a regex (mcp-obsidian) or a wikilink would read as
# syntax would make the question mean something else to some servers.
PLAIN_NAME = re.compile(r"[^\[\]{}()*?!+@#|^\\\"<>:;=$%~`]+")
# Whole words: no letter of any script right before or after (a phrase cut out of "Commentaires"
# would still be found, but is not what a person searches for).
PHRASE = re.compile(r"(?<![^\W\d_])[A-Za-z]+(?: [A-Za-z]+){3}(?![^\W\d_])")
WORD = re.compile(r"[a-z]{4,}")
SUBJECT_LINE = re.compile(r"^subject:[ \t]*\[?[ \t]*([a-z0-9][a-z0-9-]*)", re.MULTILINE)


@dataclass(frozen=True)
class Case:
    """One round's questions, all about one note."""

    path: str  # vault-relative, '/'-separated, with .md
    title: str  # the file name without .md: what a person calls the note
    phrase: str  # four words of the note, in at most RARE_NOTES notes
    word: str  # a word on most notes
    subject: str | None  # a subject of the vault's memory records, if it has any


@dataclass(frozen=True)
class Plan:
    """Every round's case, and what the choice saw."""

    cases: tuple[Case, ...]
    notes: int  # notes Vault Recall lists
    megabytes: float  # their size
    words: tuple[str, ...]  # the common words, most widespread first
    subjects: tuple[str, ...]


def choose(vault: Path, rounds: int) -> Plan:
    """`rounds` cases over notes spread through the vault, deterministic for the same vault."""
    listing = list_notes(vault)
    paths = [p for p in listing.paths if not listing.templates.holds(p)]
    lowered: list[str] = []
    size = 0
    for path in listing.paths:
        data = (vault / path).read_bytes()
        size += len(data)
        lowered.append(data.decode("utf-8", errors="replace").lower())
    words = _common_words(lowered)
    subjects = sorted({m.group(1) for text in lowered for m in SUBJECT_LINE.finditer(text[:4096])})
    stems = Counter(p.rsplit("/", 1)[-1].lower() for p in listing.paths)

    def holding(needle: str) -> int:
        return sum(needle in text for text in lowered)

    cases: list[Case] = []
    seen: set[str] = set()
    # A large prime step visits the notes in a spread-out order; the start avoids the vault's
    # first folder, which generated vaults fill first.
    for step in range(len(paths)):
        if len(cases) == rounds:
            break
        path = paths[(len(paths) // 3 + step * 7919) % len(paths)]
        if path in seen:
            continue
        seen.add(path)
        found = _case_for(vault, path, stems, holding)
        if found is not None:
            title, phrase = found
            number = len(cases)
            subject = subjects[number % len(subjects)] if subjects else None
            cases.append(Case(path, title, phrase, words[number % len(words)], subject))
    if len(cases) < rounds:
        raise SystemExit(f"{vault}: only {len(cases)} notes fit the questions ({rounds} rounds asked)")
    return Plan(tuple(cases), len(listing.paths), round(size / 1e6, 1), tuple(words), tuple(subjects))


def _case_for(vault: Path, path: str, stems: Counter[str], holding: Callable[[str], int]) -> tuple[str, str] | None:
    """The note's title and a rare phrase of it, or None when the note does not fit."""
    name = path.rsplit("/", 1)[-1]
    title = name.removesuffix(".md")
    if any(part.startswith(".") for part in path.split("/")) or stems[name.lower()] != 1:
        return None
    if not PLAIN_NAME.fullmatch(title) or title != title.strip():
        return None
    data = (vault / path).read_bytes()
    if not MIN_NOTE_BYTES <= len(data) <= MAX_NOTE_BYTES:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if title.lower() not in text.lower() or holding(title.lower()) > TITLE_NOTES:
        return None
    lines = _body_lines(text)
    # From the middle out: the first and last lines of notes are where templates put the text
    # that many notes share.
    middle = len(lines) // 2
    order = sorted(range(len(lines)), key=lambda index: abs(index - middle))
    for line in (lines[index] for index in order[:12]):
        for match in PHRASE.finditer(line):
            if holding(match.group(0).lower()) <= RARE_NOTES:
                return title, match.group(0)
    return None


def _body_lines(text: str) -> list[str]:
    """The note's lines after its properties block, headings left out."""
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":
        closing = next((i for i, line in enumerate(lines[1:], 1) if line.strip() in ("---", "...")), 0)
        lines = lines[closing + 1 :]
    return [line for line in lines if line.strip() and not line.lstrip().startswith("#")]


def _common_words(lowered: list[str]) -> list[str]:
    """The words (four letters or more) in the most notes of a spread-out sample."""
    stride = max(1, len(lowered) // WORD_SAMPLE)
    counts: Counter[str] = Counter()
    for text in lowered[::stride]:
        counts.update(set(WORD.findall(text)))
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [word for word, _ in ranked[:COMMON_WORDS]] or ["note"]


def answered(question: str, case: Case, text: str) -> bool:
    """Does an answer's text hold what the question asked for?  (Errors never do.)"""
    lowered = text.lower()
    if question in ("rare phrase", "title"):
        return case.path.lower() in lowered
    if question == "common word":
        return case.word in lowered
    if question in ("read by path", "read by name"):
        return case.phrase.lower() in lowered
    return bool(text.strip())
