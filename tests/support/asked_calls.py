"""Every tool asked as a model asks it, with arguments taken from the vault's own notes: their
titles, headings, words and lines, the subjects the server lists and the notes most linked —
so that the calls hit — and beside them calls that miss, are misspelt, or are bounded small
enough to leave records out, page or fail.  Notes are picked in path order, so the same vault
is asked the same calls on every run.  `Asker` is anything that takes a call and answers it
(tests/support/same_answers.py asks two servers at once)."""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

Json = Any
NOTES_PICKED = 5
SUBJECTS_ASKED = 3
HUBS = 3
_WORD = re.compile(r"[^\W\d_]{4,}")
_PHRASE = re.compile(r"[^\W\d_]{3,} [^\W\d_]{3,} [^\W\d_]{3,}")
_LINK = re.compile(r"\[\[([^\]|#^\n]+)")
# A word no note holds, nor any word within two edits of it: never taken for a misspelling.
NOBODY_WROTE = "quodlibetzy"


class Asker(Protocol):
    def ask(self, tool: str, args: Mapping[str, Json] | None = None) -> Awaitable[Json]: ...


@dataclass(frozen=True)
class Picked:
    """One note and what to ask about it."""

    path: str
    title: str
    words: tuple[str, ...]  # meaningful words of one line, in order
    phrase: str | None  # three words as the line writes them
    heading: str | None


def _body(text: str) -> str:
    if text.startswith("---\n"):
        end = text.find("\n---", 4)
        if end != -1:
            return text[end + 4 :]
    return text


def visible_notes(vault: Path) -> list[Path]:
    """The vault's notes outside hidden folders, not through links, in path order."""
    found = []
    for folder, folders, files in os.walk(vault):
        folders[:] = sorted(f for f in folders if not f.startswith("."))
        found += [Path(folder) / f for f in files if f.endswith(".md") and not (Path(folder) / f).is_symlink()]
    return sorted(found, key=lambda p: p.relative_to(vault).as_posix())


def pick(vault: Path, path: Path) -> Picked:
    body = _body(path.read_bytes().decode("utf-8", "replace").replace("\r\n", "\n"))
    lines = body.split("\n")
    heading = next((line.lstrip("#").strip() for line in lines if re.match(r"#{1,6} \S", line)), None)
    prose = [line for line in lines if len(_WORD.findall(line)) >= 3 and not line.startswith(("#", "---"))]
    line = prose[len(prose) // 2] if prose else ""
    phrase = _PHRASE.search(line)
    return Picked(
        path=path.relative_to(vault).as_posix(),
        title=path.stem,
        words=tuple(_WORD.findall(line)),
        phrase=phrase.group(0) if phrase else None,
        heading=heading,
    )


def picked_notes(vault: Path, count: int = NOTES_PICKED) -> list[Picked]:
    notes = visible_notes(vault)
    return [pick(vault, notes[i * len(notes) // count]) for i in range(min(count, len(notes)))]


def hubs(vault: Path, count: int = HUBS) -> list[str]:
    """The names most linked to, most first (then by name)."""
    named: Counter[str] = Counter()
    for path in visible_notes(vault):
        named.update(name.strip() for name in _LINK.findall(path.read_bytes().decode("utf-8", "replace")))
    return [name for name, _ in sorted(named.items(), key=lambda item: (-item[1], item[0]))[:count]]


def misspelt(word: str) -> str:
    """The word with two letters in its middle swapped (`latency` → `latnecy`)."""
    middle = len(word) // 2
    return word[: middle - 1] + word[middle] + word[middle - 1] + word[middle + 1 :]


async def ask_every_tool(asker: Asker, vault: Path, also: Sequence[str] = ()) -> None:
    """The whole round of calls (module docstring), asking of the subjects listed first and of
    `also` (a rule's subject); the vault's notes are unchanged after."""
    listed = await asker.ask("list_subjects")
    # The subjects holding most records (then by name): those a model would ask of.
    held = sorted(
        listed.get("result", {}).get("subjects", []), key=lambda s: (-s["active"] - s["events"], s["subject"])
    )
    subjects = [s["subject"] for s in held[:SUBJECTS_ASKED]]
    subjects += [s for s in also if s not in subjects]
    notes = picked_notes(vault)
    words = [w for note in notes for w in note.words]
    await asker.ask("recall_context")
    await _by_subject(asker, subjects, words)
    for note in notes:
        await _about_note(asker, note)
    await _across(asker, words)
    for name in hubs(vault):
        await asker.ask("get_backlinks", {"note": name})
        await asker.ask("get_backlinks", {"note": name, "limit": 2, "offset": 1})
        await asker.ask("get_backlinks", {"note": name, "budget": 1024})
    await _mistakes(asker, subjects)
    if notes:
        await _changed(asker, vault, notes)


async def _by_subject(asker: Asker, subjects: list[str], words: list[str]) -> None:
    query = " ".join(words[:3]) or "cache"
    for subject in subjects:
        await asker.ask("recall_context", {"subject": subject})
        await asker.ask("recall_context", {"subject": subject, "query": query})
        await asker.ask("recall_context", {"subject": subject, "query": query, "budget": 512, "limit": 1})
        await asker.ask("recall_activity", {"subject": subject})
        await asker.ask("recall_activity", {"subject": subject, "query": query})
        await asker.ask("recall_activity", {"subject": subject, "on_or_after": "2026-06-01", "limit": 2})
        await asker.ask("search_notes", {"query": words[0] if words else "cache", "subject": subject})


async def _about_note(asker: Asker, note: Picked) -> None:
    await asker.ask("recall_context", {"query": note.title})
    if note.words:
        await asker.ask("recall_context", {"query": " ".join(note.words[:3])})
        # Three words of one line and one nobody wrote: the nearly-all rule's case.
        named = note.title.split()[0] if note.title.split() else note.words[0]
        await asker.ask("recall_context", {"query": f"{named} {' '.join(note.words[:2])} {NOBODY_WROTE}"})
        await asker.ask("recall_context", {"query": " ".join(note.words[:2]), "match": "all", "limit": 5})
        longest = max(note.words, key=len)
        if len(longest) >= 5:
            await asker.ask("recall_context", {"query": misspelt(longest)})
    if note.phrase:
        await asker.ask("search_notes", {"query": note.phrase})
    await asker.ask("read_note", {"note": note.path})
    await asker.ask("read_note", {"note": note.title})
    await asker.ask("read_note", {"note": note.path, "budget": 1024})
    if note.heading:
        await asker.ask("read_note", {"note": note.path, "section": note.heading})
    await asker.ask("get_backlinks", {"note": note.path})


async def _across(asker: Asker, words: list[str]) -> None:
    for query in ("zzqx vvwyk", "what did we decide", "café straße", "api k8s", " ".join(words[:6])):
        if query.strip():
            await asker.ask("recall_context", {"query": query})
    await asker.ask("recall_context", {"query": " ".join(words[:4]) or "cache", "budget": 512, "limit": 1})
    await asker.ask("recall_context", {"query": " ".join(words[:4]) or "cache", "budget": 65536, "limit": 20})
    await asker.ask("search_notes", {"query": words[0] if words else "cache", "limit": 3, "budget": 512})
    await asker.ask("search_notes", {"query": "the"})


async def _mistakes(asker: Asker, subjects: list[str]) -> None:
    await asker.ask("read_note", {"note": "No such note anywhere"})
    await asker.ask("get_backlinks", {"note": "No such note anywhere"})
    await asker.ask("search_notes", {"query": "two\nlines"})
    await asker.ask("recall_context", {"subject": "Not A Slug"})
    await asker.ask("recall_context", {"subject": "never-heard-of", "query": "cache"})
    await asker.ask("recall_activity", {"subject": subjects[0] if subjects else "x", "on_or_after": "2026-02-30"})


async def _changed(asker: Asker, vault: Path, notes: list[Picked]) -> None:
    """A note read before is edited, another removed, and every tool is asked once more; then
    both are put back as they were (bytes and times, their folders' too)."""
    edited, removed = vault / notes[0].path, vault / notes[-1].path
    kept = {path: (path.read_bytes(), path.stat()) for path in (edited, removed)}
    folders = {path.parent: path.parent.stat() for path in kept}
    try:
        edited.write_bytes(kept[edited][0] + b"\nEdited while the client worked.\n")
        if removed != edited:
            removed.unlink()
        await asker.ask("list_subjects")
        await asker.ask("recall_context", {"query": notes[0].title})
        await asker.ask("search_notes", {"query": "Edited while the client", "budget": 512})
        await asker.ask("get_backlinks", {"note": notes[0].path})
        await asker.ask("read_note", {"note": notes[0].path})
    finally:
        for path, (data, stat) in kept.items():
            path.write_bytes(data)
            os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        for folder, stat in folders.items():  # removing a note changed its folder's time
            os.utime(folder, ns=(stat.st_atime_ns, stat.st_mtime_ns))
