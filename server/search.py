"""`search_notes`: line hits for a phrase over the notes this client may see."""

from __future__ import annotations

import re
from typing import Any

from server.arguments import check_range, check_subject, show_value
from server.errors import InvalidArgument
from server.note import Note
from server.packing import answer, pack
from server.scope import Scope
from server.uri import obsidian_uri
from server.view import view_or_unavailable

SEARCH_BUDGET_RANGE = (512, 65536)
SEARCH_LIMIT_RANGE = (1, 100)
MAX_PHRASE_CHARS = 200
# A hit's line is shown whole up to this many characters, else this much around the hit.
LINE_WIDTH = 240


def search_notes(
    scope: Scope, query: str, limit: int = 20, budget: int = 8192, subject: str | None = None
) -> dict[str, Any]:
    """Lines containing `query` (case-insensitive), newest notes first, then by line."""
    phrase = _check_phrase(query)
    check_range("limit", limit, *SEARCH_LIMIT_RANGE)
    check_range("budget", budget, *SEARCH_BUDGET_RANGE)
    if subject is not None:
        check_subject(subject)
        scope.exposure.require_subject(subject, scope.client)
    envelope: dict[str, Any] = {"status": "ok", "untrusted": True, "vault": None, "query": query}
    if subject is not None:
        envelope["subject"] = subject
    view = view_or_unavailable(scope, envelope)
    if view is None:
        return pack(envelope, [], budget=budget, limit=limit)
    notes = [
        note
        for path, note in view.visible.items()
        if subject is None or (path in view.records and subject in view.records[path].subjects)
    ]
    notes.sort(key=lambda n: (_newest_first(n.modified), n.path))
    pattern = re.compile(re.escape(phrase), re.IGNORECASE)
    hits = [hit for note in notes for hit in line_hits(note, pattern, view.name)]
    problems = view.problems((subject,) if subject else None)
    return answer(envelope, hits, budget=budget, limit=limit, problems=problems)


def _check_phrase(query: str) -> str:
    if not isinstance(query, str) or not query.strip():
        raise InvalidArgument("query is empty: give a word or phrase to look for")
    if len(query) > MAX_PHRASE_CHARS:
        raise InvalidArgument(f"query is {len(query)} characters long; the limit is {MAX_PHRASE_CHARS}")
    if "\n" in query:
        raise InvalidArgument(f"query {show_value(query)} spans lines; search matches within one line")
    return query.strip()


def line_hits(note: Note, pattern: re.Pattern[str], vault: str) -> list[dict[str, Any]]:
    hits = []
    for number, line in enumerate(note.body.split("\n"), start=note.body_first_line):
        found = pattern.search(line)
        if found:
            hits.append(hit(note.path, number, line, found.start(), found.end(), vault))
    return hits


def hit(path: str, line_number: int, line: str, start: int, end: int, vault: str) -> dict[str, Any]:
    text, shortened = excerpt(line, start, end)
    entry: dict[str, Any] = {"path": path, "line": line_number, "text": text, "uri": obsidian_uri(vault, path)}
    if shortened:
        entry["shortened"] = True
    return entry


def excerpt(line: str, start: int, end: int, width: int = LINE_WIDTH) -> tuple[str, bool]:
    """The line if short enough, else a window around [start, end) marked with '…' at cut ends."""
    if len(line) <= width:
        return line, False
    room = max(0, width - (end - start))
    left = max(0, start - room // 2)
    right = min(len(line), max(end, left + width))
    left = max(0, min(left, right - width))
    return ("…" if left > 0 else "") + line[left:right] + ("…" if right < len(line) else ""), True


def _newest_first(modified: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in modified)
