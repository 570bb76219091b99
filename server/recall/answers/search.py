"""`search_notes`: line hits for a phrase over the notes this client may see."""

from __future__ import annotations

import zlib
from array import array
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path
from typing import cast, overload

from vault_recall.server.errors import NoteChanged, NoteTooLarge
from vault_recall.server.obsidian.note import InvalidNote, Note, decode_note_text, modified_second, parse_note
from vault_recall.server.obsidian.note_bytes import BLOCK_STARTS, UTF8_BOM, is_utf8, lf_bytes, lf_text
from vault_recall.server.obsidian.resolve import obsidian_uri, obsidian_uri_size
from vault_recall.server.recall.answers.arguments import check_arguments
from vault_recall.server.recall.finding.looking import Looked, Told, Verdict
from vault_recall.server.recall.finding.record_tally import plain_note
from vault_recall.server.recall.finding.scan import as_seen, each_looked_at, record_item
from vault_recall.server.recall.finding.subject_prefilter import plainly_not_about
from vault_recall.server.recall.finding.text_prefilter import (
    CASE_ESCAPES,
    AsciiView,
    HitLines,
    Phrase,
    digits_in,
    phrase_filter,
)
from vault_recall.server.recall.finding.view import answer_anew, could_be_about, in_view
from vault_recall.server.recall.finding.view import problem as view_problem
from vault_recall.server.recall.packing import Shaped, json_size, json_text_size, shortened_by
from vault_recall.server.recall.results import Hit, Problem, SearchHead, SearchResult
from vault_recall.server.recall.scope import Exposure, Scope
from vault_recall.server.recall.tool_declarations import SEARCH_NOTES
from vault_recall.server.vault.listing import VaultListing, vault_name
from vault_recall.server.vault.note_files import read_note_bytes

# A hit's line is shown whole up to this many characters, else this much around the hit.
LINE_WIDTH = 240


@dataclass(slots=True)
class _NoteHits:
    """What the search keeps of a note with hits: how many, and which version — not its text,
    which can be megabytes over a vault; the few hits returned are read again and shaped."""

    second: int  # note.modified as seconds (newest note first, then by path)
    path: str
    size: int  # the length and CRC-32 of the bytes searched, to know the note read again is
    crc: int  # the same (the revision's SHA-256 would cost more than the rest of a word's search)
    count: int  # lines with a hit
    least: int  # the fewest characters a hit line holds from its first match on: a bound on every hit
    bound: int = -1  # that bound, once packing needs it


def search_notes(
    scope: Scope, query: str, limit: int = 20, budget: int = 8192, subject: str | None = None
) -> SearchResult:
    """Lines containing `query` (case-insensitive), newest notes first, then by line."""
    check_arguments(SEARCH_NOTES, locals())
    phrase = query.strip()
    if subject is not None:
        scope.exposure.require_subject(subject, scope.client)
    envelope: SearchHead = {"status": "ok", "untrusted": True, "vault": None, "query": query}
    if subject is not None:
        envelope["subject"] = subject
    pattern = Phrase.of(phrase)

    def find(listing: VaultListing) -> tuple[Shaped[tuple[_NoteHits, int], Hit], list[Problem]]:
        found, problems = _find_hits(scope, listing, pattern, subject)
        found.sort(key=lambda note: note.path)
        found.sort(key=lambda note: note.second, reverse=True)  # stable: by path within a time
        vault = vault_name(listing.root)
        refs = _HitRefs(found, vault)
        reread = _Reread(listing.root, pattern, vault)
        return Shaped(refs, reread.hit, at_least=refs.at_least, next_fitting=refs.next_fitting), problems

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
    """One pass over the notes this client may see: the hits of each (counted) and the problems
    that could have changed this answer, by the rules of `view.in_view`.  Only notes whose
    bytes could hold the phrase are looked at (text_prefilter.phrase_filter): no other can hold
    a hit or be a problem that could (`could_hold`); of those, a note whose properties are of
    the plainest shape has its visibility told and its hits counted from its bytes
    (`_looker`), and the others are parsed."""
    exposure = scope.exposure
    found: list[_NoteHits] = []
    # By path, as the whole-vault view keeps them: two names that show alike (bytes that are
    # not UTF-8) are one problem to report.
    broken: dict[str, Problem] = {}
    whole_vault = exposure.mode == "vault" and subject is None
    for item in each_looked_at(listing.root, listing, _looker(pattern, exposure, subject)):
        if isinstance(item, Looked):
            size, crc, lines = item.seen
            found.append(_NoteHits(modified_second(item.mtime_ns), item.path, size, crc, *lines))
            continue
        if whole_vault:
            note, problem = as_seen(item, exposure.rules)
            if problem is not None and could_hold(problem, pattern):
                broken[problem.path] = view_problem(problem)
            if note is not None:
                _collect(found, note, pattern)
            continue
        record = record_item(item, subject, exposure.rules)
        if record is None:
            continue  # an ordinary note, or a record of other subjects only
        note, trouble = in_view(exposure, record)
        if trouble is not None:
            about = subject is None or could_be_about(trouble, [subject], exposure)
            if about and could_hold(trouble, pattern):
                broken[trouble.path] = view_problem(trouble)
            continue  # a note whose record cannot be read is no record of any subject
        if note is not None:
            _collect(found, note, pattern)
    return found, list(broken.values())


# What a note's bytes tell a search without parsing: (its length, its CRC-32, its hit lines).
_Seen = tuple[int, int, HitLines]


def _looker(pattern: Phrase, exposure: Exposure, subject: str | None) -> Callable[[str, bytes], Verdict[_Seen]]:
    """What tells, for one search, from a note's bytes what parsing it would: whether this
    client sees it (a valid note without properties, or one whose properties block is of the
    plainest shape: record_tally.plain_note) and its hit lines (Told) — or that it must be
    parsed ("parse"), or that it cannot matter ("skip": the phrase is not in it, or nobody here
    sees it)."""
    wanted = subject.encode("ascii") if subject is not None else None
    # The whole vault without a subject sees every note; anything else sees records only.
    records_only = exposure.mode != "vault" or subject is not None
    # A note a subject rule may take is parsed: only the full reading knows its subjects.
    taking = exposure.rules.of_subject(subject)
    worth = phrase_filter(pattern)
    needle = pattern.ascii_lower.encode("ascii") if pattern.ascii_lower is not None else b""
    view = AsciiView(CASE_ESCAPES, [needle]) if needle else None
    digits = digits_in(needle)  # looked for in the raw bytes, before lowering them

    def look(path: str, data: bytes) -> Verdict[_Seen]:
        if digits and digits not in data:
            return "skip"
        if view is not None:
            lowered = cast(bytes, view.of(data))  # phrase_filter's own test, its lowered bytes kept
            if needle not in lowered:
                return "skip"
        elif not worth(data):
            return "skip"
        opens_block = data.startswith(BLOCK_STARTS)
        plain = plain_note(data, len(data)) if opens_block else None
        if records_only:
            if taking and taking.may_take(path, data):
                return "parse"
            if plain is None:
                # Parsed, unless it can be no record of the subject nor a broken note about it.
                return "skip" if plainly_not_about(wanted, data) else "parse"
            if plain.record is None:
                return "skip"  # an ordinary note: only records are seen here
            subjects = plain.record[0]
            if wanted is not None and subject not in subjects:
                return "skip"
            if not exposure.allows_record_subjects(subjects):
                return "skip"
        elif opens_block and plain is None:
            return "parse"  # properties to parse: they may be broken, a problem to report
        elif not opens_block and data.startswith(UTF8_BOM):
            return "parse"  # left to the full reading
        if view is not None:
            # An ASCII phrase is counted on the view's bytes: its lines are the text's (UTF-8
            # never writes a '\n' byte inside a character), and a line holds the phrase in the
            # text exactly when it does in the view.  Only the text must be UTF-8 (plain_note
            # has checked that of a note with properties).
            if plain is None and not is_utf8(data, len(data)):
                return "parse"  # reported as a problem by the full reading
            if lowered.startswith(UTF8_BOM):
                lowered = lowered[len(UTF8_BOM) :]
            lowered = lf_bytes(lowered)
            lines = pattern.hit_lines_lowered(lowered)
        else:
            try:
                text = decode_note_text(data)
            except UnicodeDecodeError:
                return "parse"  # reported as a problem by the full reading
            lines = pattern.hit_lines(text)
        return Told((len(data), zlib.crc32(data), lines)) if lines.number else "skip"

    return look


def could_hold(trouble: InvalidNote, pattern: Phrase) -> bool:
    """Could this broken note have changed the answer: does its text hold the phrase?  (A
    note that could not be read at all might hold anything.)"""
    note = trouble.readable
    return note is None or pattern.found_in(searched_text(note))


def searched_text(note: Note) -> str:
    """The text search looks in, from the file's line 1: every line of the file, the properties
    block and its '---' lines too, as grep and Obsidian's search see them — decoded as the note
    was read (bytes that are not UTF-8 as U+FFFD), without a BOM, with LF line endings."""
    if note.yaml_text is None:
        return note.body  # no properties block: the body is the whole text
    text = note.data.decode("utf-8", errors="replace").removeprefix("\ufeff")
    return lf_text(text)


def _collect(found: list[_NoteHits], note: Note, pattern: Phrase) -> None:
    lines = pattern.hit_lines(searched_text(note))
    if lines.number:
        found.append(
            _NoteHits(modified_second(note.mtime_ns), note.path, len(note.data), zlib.crc32(note.data), *lines)
        )


def _window(length: int, start: int, end: int, width: int = LINE_WIDTH) -> tuple[int, int]:
    """The [left, right) part of a line of `length` characters that `excerpt` shows."""
    if length <= width:
        return 0, length
    room = max(0, width - (end - start))
    left = max(0, start - room // 2)
    right = min(length, max(end, left + width))
    return max(0, min(left, right - width)), right


class _HitRefs(Sequence[tuple[_NoteHits, int]]):
    """Every hit, in answer order, as (note, which of its hits) — made when asked for, since a
    common word can have a hit on most lines of a vault."""

    def __init__(self, found: list[_NoteHits], vault: str) -> None:
        self._found = found
        self._vault = vault
        self._ends = array("q", accumulate(note.count for note in found))

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    @overload
    def __getitem__(self, index: int) -> tuple[_NoteHits, int]: ...
    @overload
    def __getitem__(self, index: slice) -> list[tuple[_NoteHits, int]]: ...
    def __getitem__(self, index: int | slice) -> tuple[_NoteHits, int] | list[tuple[_NoteHits, int]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if not 0 <= index < len(self):
            raise IndexError(index)
        position = bisect_right(self._ends, index)
        return self._found[position], index - (self._ends[position - 1] if position else 0)

    def at_least(self, ref: tuple[_NoteHits, int]) -> int:
        """A size no hit of the note can be under: its path, link and the least a hit line shows
        (a line up to LINE_WIDTH characters is shown whole, a longer one cut to that)."""
        note = ref[0]
        if note.bound < 0:
            shown = min(note.least, LINE_WIDTH) + 2  # at least a byte a character, in quotes
            uri_size = obsidian_uri_size(self._vault, note.path) + 2  # ASCII, nothing escaped, in quotes
            note.bound = hit_size(json_text_size(note.path), 1, shown, uri_size, False)
        return note.bound

    def next_fitting(self, index: int, room: int) -> int:
        """The first hit after `index` that `room` bytes might hold: none of the note's own
        (they share its bound, which is over `room`), and none of a later note whose bound is."""
        for position in range(bisect_right(self._ends, index) + 1, len(self._found)):
            if self.at_least((self._found[position], 0)) <= room:
                return self._ends[position - 1]
        return len(self)


class _Reread:
    """Shapes a chosen hit by reading its note again — the same bytes, or the search restarts.
    Packing asks for a note's hits one after another: only the last note's are kept."""

    def __init__(self, root: Path, pattern: Phrase, vault: str) -> None:
        self._root = root
        self._pattern = pattern
        self._vault = vault
        self._note: _NoteHits | None = None
        self._hits: list[Hit] = []

    def hit(self, ref: tuple[_NoteHits, int]) -> Hit:
        note_hits, which = ref
        if self._note is not note_hits:
            self._hits = self._read(note_hits)
            self._note = note_hits
        return self._hits[which]

    def _read(self, note_hits: _NoteHits) -> list[Hit]:
        try:
            raw = read_note_bytes(self._root, note_hits.path)
        except (OSError, NoteTooLarge):
            raise NoteChanged(note_hits.path) from None
        if len(raw.data) != note_hits.size or zlib.crc32(raw.data) != note_hits.crc:
            raise NoteChanged(note_hits.path)
        parsed = parse_note(note_hits.path, raw.data, raw.mtime_ns)
        note = parsed.readable if isinstance(parsed, InvalidNote) else parsed
        hits = line_hits(note, self._pattern, self._vault) if note is not None else []
        if len(hits) != note_hits.count:
            raise NoteChanged(note_hits.path)
        return hits


def line_hits(note: Note, pattern: Phrase, vault: str) -> list[Hit]:
    return [
        hit(note.path, number, line, start, end, vault) for number, line, start, end in _line_matches(note, pattern)
    ]


def _line_matches(note: Note, pattern: Phrase) -> list[tuple[int, str, int, int]]:
    """(file line number, line, start, end) of the first match on each line holding one."""
    text = searched_text(note)
    return [
        (number, text[line_start:line_end], start - line_start, end - line_start)
        for number, line_start, line_end, start, end in pattern.lines_with_hits(text, 1)
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
