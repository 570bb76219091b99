"""`search_notes`: line hits for a phrase over the notes this client may see."""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path
from typing import overload

from vault_recall.server.errors import InvalidArgument, show_value
from vault_recall.server.obsidian.note import InvalidNote, Note
from vault_recall.server.obsidian.uri import obsidian_uri, obsidian_uri_size
from vault_recall.server.recall.arguments import check_range, check_subject
from vault_recall.server.recall.packing import Shaped, json_size, json_text_size, shortened_by
from vault_recall.server.recall.results import Hit, Problem, SearchHead, SearchResult
from vault_recall.server.recall.scan import NoteChanged, as_seen, each_parsed, read_again, record_item
from vault_recall.server.recall.scope import Scope
from vault_recall.server.recall.text_prefilter import Phrase, phrase_filter
from vault_recall.server.recall.view import answer_anew, in_view
from vault_recall.server.recall.view import problem as view_problem
from vault_recall.server.vault.listing import VaultListing, vault_name

SEARCH_BUDGET_RANGE = (512, 65536)
SEARCH_LIMIT_RANGE = (1, 100)
MAX_PHRASE_CHARS = 200
# A hit's line is shown whole up to this many characters, else this much around the hit.
LINE_WIDTH = 240


@dataclass(slots=True)
class _NoteHits:
    """What the search keeps of a note with hits: where, how big, and which version — not its
    text, which can be megabytes over a vault; the few returned hits are read again."""

    modified: str  # newest note first, then by path
    path: str
    digest: bytes  # SHA-256 of the bytes searched, to know the note read again is the same
    lines: array[int]  # line number, JSON size: two numbers per hit, in line order


def search_notes(
    scope: Scope, query: str, limit: int = 20, budget: int = 8192, subject: str | None = None
) -> SearchResult:
    """Lines containing `query` (case-insensitive), newest notes first, then by line."""
    phrase = _check_phrase(query)
    check_range("limit", limit, *SEARCH_LIMIT_RANGE)
    check_range("budget", budget, *SEARCH_BUDGET_RANGE)
    if subject is not None:
        check_subject(subject)
        scope.exposure.require_subject(subject, scope.client)
    envelope: SearchHead = {"status": "ok", "untrusted": True, "vault": None, "query": query}
    if subject is not None:
        envelope["subject"] = subject
    pattern = Phrase.of(phrase)

    def find(listing: VaultListing) -> tuple[Shaped[tuple[_NoteHits, int, int], Hit], list[Problem]]:
        found, problems = _find_hits(scope, listing, pattern, subject)
        found.sort(key=lambda note: note.path)
        found.sort(key=lambda note: note.modified, reverse=True)  # stable: by path within a time
        reread = _Reread(listing.root, pattern, vault_name(listing.root))
        return Shaped(_HitRefs(found), reread.hit, size=lambda ref: ref[2]), problems

    result = answer_anew(scope, envelope, _search_result, find, budget=budget, limit=limit)
    # The query is echoed whole unless the envelope alone is over budget (a long vault name and
    # query in a small budget): then it is shortened last, after the reason and the vault name
    # (packing.pack), and no hit nor problem fits either way.
    while not result["records"] and (over := json_size(result) - budget) > 0:
        shorter = shortened_by(result["query"], over)
        if shorter is None:
            break
        result["query"] = shorter
    return result


def _search_result(envelope: SearchHead, hits: list[Hit]) -> SearchResult:
    return {**envelope, "records": hits, "omitted": 0}


def _find_hits(
    scope: Scope, listing: VaultListing, pattern: Phrase, subject: str | None
) -> tuple[list[_NoteHits], list[Problem]]:
    """One pass over the notes this client may see: the hits of each (as numbers) and the
    problems that could have changed this answer, by the rules of `view.in_view`.  Only notes
    whose bytes could hold the phrase are parsed (text_prefilter.phrase_filter): no other can
    hold a hit or be a problem that could (`could_hold`)."""
    exposure = scope.exposure
    found: list[_NoteHits] = []
    # By path, as the whole-vault view keeps them: two names that show alike (bytes that are
    # not UTF-8) are one problem to report.
    broken: dict[str, Problem] = {}
    vault = vault_name(listing.root)
    whole_vault = exposure.mode == "vault" and subject is None
    for parsed in each_parsed(listing.root, listing, phrase_filter(pattern)):
        if whole_vault:
            note, problem = as_seen(parsed)
            if problem is not None and could_hold(problem, pattern):
                broken[problem.path] = view_problem(problem)
            if note is not None:
                _collect(found, note, pattern, vault)
            continue
        item = record_item(parsed, subject)
        if item is None:
            continue  # an ordinary note, or a record of other subjects only
        note, trouble = in_view(exposure, item)
        if trouble is not None:
            about = subject is None or trouble.subjects is None or subject in trouble.subjects
            if about and could_hold(trouble, pattern):
                broken[trouble.path] = view_problem(trouble)
            continue  # a note whose record cannot be read is no record of any subject
        if note is not None:
            _collect(found, note, pattern, vault)
    return found, list(broken.values())


def could_hold(trouble: InvalidNote, pattern: Phrase) -> bool:
    """Could this broken note have changed the answer: does its text hold the phrase?  (A
    note that could not be read at all might hold anything.)"""
    note = trouble.readable
    return note is None or any(pattern.found_in(text) for text, _ in searched_texts(note))


def searched_texts(note: Note) -> list[tuple[str, int]]:
    """The texts search looks in, with the file line each starts on: the properties lines (as
    written, as Obsidian's search and grep see them) and the body."""
    if note.yaml_text is None:
        return [(note.body, note.body_first_line)]
    # The block's text starts on the opening '---' line, just after the three dashes.
    return [(note.yaml_text, 1), (note.body, note.body_first_line)]


def _collect(found: list[_NoteHits], note: Note, pattern: Phrase, vault: str) -> None:
    if not any(pattern.found_in(text) for text, _ in searched_texts(note)):
        return  # most notes: no hit anywhere, so no line is looked at
    lines = array("i")  # 32 bits: line numbers and sizes of notes under 1 MiB
    path_size = json_text_size(note.path)
    uri_size = obsidian_uri_size(vault, note.path) + 2  # ASCII, nothing escaped, in quotes
    for text, first_line in searched_texts(note):
        _add_hits(lines, text, first_line, pattern, path_size, uri_size)
    found.append(
        _NoteHits(
            modified=note.modified,
            path=note.path,
            digest=bytes.fromhex(note.revision),
            lines=lines,
        )
    )


# Characters json.dumps escapes (ensure_ascii off): a stretch of ASCII text without them is
# written as it is, one byte a character.
_ESCAPED = re.compile(r'[\x00-\x1f"\\]')
_SHORTENED = len(',"shortened":true')
_ELLIPSIS_BYTES = len("…".encode())


def _add_hits(lines: array[int], text: str, first_line: int, pattern: Phrase, path_size: int, uri_size: int) -> None:
    """Append (file line, JSON size of its hit) for the first match on each line of `text`
    (starting on file line `first_line`) — the sizes `hit` gives, worked out from positions
    for a plain ASCII stretch (most lines), without cutting the line or its excerpt out."""
    plain = text.isascii()
    for number, line_start, line_end, start, end in pattern.lines_with_hits(text, first_line):
        lines.append(number)
        if plain:
            left, right = _window(line_end - line_start, start - line_start, end - line_start)
            if _ESCAPED.search(text, line_start + left, line_start + right) is None:
                shortened = line_end - line_start > LINE_WIDTH
                size = right - left + 2
                if shortened:
                    size += _SHORTENED + _ELLIPSIS_BYTES * ((left > 0) + (line_start + right < line_end))
                lines.append(hit_size(path_size, number, size, uri_size, False))
                continue
        shown, shortened = excerpt(text[line_start:line_end], start - line_start, end - line_start)
        lines.append(hit_size(path_size, number, json_text_size(shown), uri_size, shortened))


def _window(length: int, start: int, end: int, width: int = LINE_WIDTH) -> tuple[int, int]:
    """The [left, right) part of a line of `length` characters that `excerpt` shows."""
    if length <= width:
        return 0, length
    room = max(0, width - (end - start))
    left = max(0, start - room // 2)
    right = min(length, max(end, left + width))
    return max(0, min(left, right - width)), right


class _HitRefs(Sequence[tuple[_NoteHits, int, int]]):
    """Every hit, in answer order, as (note, line number, JSON size) — made when asked for,
    since a common word can have a hit on most lines of a vault."""

    def __init__(self, found: list[_NoteHits]) -> None:
        self._found = found
        self._ends = array("q", accumulate(len(note.lines) // 2 for note in found))

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    @overload
    def __getitem__(self, index: int) -> tuple[_NoteHits, int, int]: ...
    @overload
    def __getitem__(self, index: slice) -> list[tuple[_NoteHits, int, int]]: ...
    def __getitem__(self, index: int | slice) -> tuple[_NoteHits, int, int] | list[tuple[_NoteHits, int, int]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if not 0 <= index < len(self):
            raise IndexError(index)
        position = bisect_right(self._ends, index)
        note = self._found[position]
        within = index - (self._ends[position - 1] if position else 0)
        return note, note.lines[2 * within], note.lines[2 * within + 1]


class _Reread:
    """Shapes a chosen hit by reading its note again — the same bytes, or the search restarts."""

    def __init__(self, root: Path, pattern: Phrase, vault: str) -> None:
        self._root = root
        self._pattern = pattern
        self._vault = vault
        self._hits: dict[str, dict[int, Hit]] = {}  # for this answer only

    def hit(self, ref: tuple[_NoteHits, int, int]) -> Hit:
        note_hits, line_number, _ = ref
        if note_hits.path not in self._hits:
            self._hits[note_hits.path] = self._read(note_hits)
        try:
            return self._hits[note_hits.path][line_number]
        except KeyError:
            raise NoteChanged(note_hits.path) from None

    def _read(self, note_hits: _NoteHits) -> dict[int, Hit]:
        note = read_again(self._root, note_hits.path, note_hits.digest.hex())
        return {entry["line"]: entry for entry in line_hits(note, self._pattern, self._vault)}


def _check_phrase(query: str) -> str:
    if not isinstance(query, str) or not query.strip():
        raise InvalidArgument("query is empty: give a word or phrase to look for")
    if len(query) > MAX_PHRASE_CHARS:
        raise InvalidArgument(f"query is {len(query)} characters long; the limit is {MAX_PHRASE_CHARS}")
    if "\n" in query:
        raise InvalidArgument(f"query {show_value(query)} spans lines; search matches within one line")
    return query.strip()


def line_hits(note: Note, pattern: Phrase, vault: str) -> list[Hit]:
    return [
        hit(note.path, number, line, start, end, vault) for number, line, start, end in _line_matches(note, pattern)
    ]


def _line_matches(note: Note, pattern: Phrase) -> list[tuple[int, str, int, int]]:
    """(file line number, line, start, end) of the first match on each line holding one, in the
    properties lines and then the body."""
    return [match for text, first in searched_texts(note) for match in _text_matches(text, first, pattern)]


def _text_matches(text: str, first_line: int, pattern: Phrase) -> list[tuple[int, str, int, int]]:
    """_line_matches in one text starting on file line `first_line`."""
    return [
        (number, text[line_start:line_end], start - line_start, end - line_start)
        for number, line_start, line_end, start, end in pattern.lines_with_hits(text, first_line)
    ]


def hit(path: str, line_number: int, line: str, start: int, end: int, vault: str) -> Hit:
    text, shortened = excerpt(line, start, end)
    entry: Hit = {"path": path, "line": line_number, "text": text, "uri": obsidian_uri(vault, path)}
    if shortened:
        entry["shortened"] = True
    return entry


def hit_size(path_size: int, line_number: int, text_size: int, uri_size: int, shortened: bool) -> int:
    """json_size of the dict `hit` builds, from the sizes of its strings as JSON."""
    # {"path":P,"line":N,"text":T,"uri":U} and ,"shortened":true when cut.
    fixed = len('{"path":,"line":,"text":,"uri":}') + (len(',"shortened":true') if shortened else 0)
    return fixed + path_size + len(str(line_number)) + text_size + uri_size


def excerpt(line: str, start: int, end: int, width: int = LINE_WIDTH) -> tuple[str, bool]:
    """The line if short enough, else a window around [start, end) marked with '…' at cut ends."""
    if len(line) <= width:
        return line, False
    left, right = _window(len(line), start, end, width)
    return ("…" if left > 0 else "") + line[left:right] + ("…" if right < len(line) else ""), True
