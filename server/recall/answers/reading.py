"""`read_note`: one whole note, or one whole section of it, within a byte budget."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from vault_recall.server.errors import InvalidArgument, show_value
from vault_recall.server.obsidian.note import Note
from vault_recall.server.obsidian.resolve import fold, not_found, obsidian_uri, resolve_names
from vault_recall.server.obsidian.syntax import Heading, block_span, lines_between, section_span, strip_heading
from vault_recall.server.recall.answers.arguments import check_arguments
from vault_recall.server.recall.finding.naming import ListedNames, exact_note
from vault_recall.server.recall.finding.view import listing_or_unavailable, problem
from vault_recall.server.recall.packing import compact_json, json_size, shorten_to_bytes
from vault_recall.server.recall.results import Problem, ReadNoteResult, Section
from vault_recall.server.recall.scope import Scope
from vault_recall.server.recall.tool_declarations import READ_NOTE
from vault_recall.server.vault.listing import vault_name

MAX_HEADINGS_NAMED = 20


def read_note(scope: Scope, note: str, section: str | None = None, budget: int = 16384) -> ReadNoteResult:
    """The note's whole text (or one section's), or, when that is over budget, its section list."""
    check_arguments(READ_NOTE, locals())
    result: ReadNoteResult = {"status": "ok", "untrusted": True, "vault": None}
    # A path exactly as a tool gave it is read without listing the vault; names, aliases and
    # anything only the listing can tell are resolved on the listing.
    exact = exact_note(scope.exposure, scope.vault, note) if scope.vault is not None else None
    if exact is not None and scope.vault is not None:
        path, found, trouble = exact
        subpath = None
        vault = result["vault"] = vault_name(scope.vault)
    else:
        listing = listing_or_unavailable(scope, result)
        if listing is None:
            return result
        # Only the notes the argument could name are read, each once: the one chosen is
        # answered as it was judged (a whole-vault index is made only to look up an alias).
        with ListedNames(scope.exposure, listing) as names:
            path, subpath = resolve_names(listing.root, names, note)
            found, trouble = names.judge(path)
        vault = vault_name(listing.root)
    wanted = section.strip() if section and section.strip() else subpath
    if found is None:
        if trouble is None:
            raise not_found(note)  # gone since it was resolved
        # Shown broken, not visible (a record whose properties cannot be read): the problem only.
        return _broken_note(vault, path, problem(trouble), budget)
    if trouble is not None:
        # Shown as Obsidian shows it, and the problem named: a broken block does not hide a note.
        result["status"] = "degraded"
        result["problems"] = [problem(trouble)]
    result["path"] = found.path
    result["title"] = found.title
    result["properties"] = dict(found.properties)
    result["text"] = found.body
    result["revision"] = found.revision
    result["modified"] = found.modified
    result["uri"] = obsidian_uri(vault, found.path)
    result["sections"] = section_list(found)
    if wanted:
        span = find_section(found, wanted)
        result["section"] = wanted
        result["text"] = lines_between(found.lines, span)
    if json_size(result) <= budget:
        return result
    del result["text"]
    result["hint"] = f"{'section' if wanted else 'note'} over budget: ask for one section, or raise budget"
    _fit_sections(result, budget)
    return result


def _broken_note(vault: str, path: str, broken: Problem, budget: int) -> ReadNoteResult:
    result: ReadNoteResult = {
        "status": "degraded",
        "untrusted": True,
        "vault": vault,
        "path": path,
        "problems": [broken],
        "hint": "this note cannot be read as written: fix the problem named in `problems` first",
    }
    over = json_size(result) - budget
    if over > 0:
        reason = broken["reason"].encode("utf-8")
        broken["reason"] = shorten_to_bytes(broken["reason"], max(0, len(reason) - over - 3))
    if json_size(result) > budget:
        raise InvalidArgument(f"budget={budget} cannot hold even this note's path; use at least {json_size(result)}")
    return result


def section_list(note: Note) -> list[Section]:
    """Every heading with its level, file line and the size of its whole section in bytes."""
    # Byte offsets of each line's start, so every section's size is one subtraction.
    # (An ASCII line is as many bytes as characters: no line need be encoded to be measured.)
    sizes = (len(line) + 1 for line in note.lines) if note.body.isascii() else _utf8_sizes(note.lines)
    offsets = [0, *itertools.accumulate(sizes)]
    listed: list[Section] = []
    for index, heading in enumerate(note.headings):
        first, last = section_span(len(note.lines), note.headings, index)
        listed.append(
            {
                "heading": heading.text,
                "level": heading.level,
                "line": note.body_first_line + heading.line - 1,
                "bytes": offsets[last] - offsets[first - 1],
            }
        )
    return listed


def _utf8_sizes(lines: list[str]) -> Iterator[int]:
    return (len(line.encode("utf-8")) + 1 for line in lines)


def find_section(note: Note, wanted: str) -> tuple[int, int]:
    """Body line span of 'Heading', 'Heading#Sub…' or '^block-id'; InvalidArgument when absent.

    A heading may itself contain '#' ('Issue #12'): the whole text is tried as one heading
    before it is read as a path of nested headings.
    """
    if wanted.startswith("^"):
        span = block_span(note.body, wanted[1:])
        if span is None:
            raise InvalidArgument(f"note {note.title!r} has no block {show_value(wanted)}")
        return span
    headings = note.headings
    line_count = len(note.lines)
    whole = _heading_within(headings, wanted.strip(), 1, line_count)
    if whole is not None:
        return section_span(line_count, headings, whole)
    start, end = 1, line_count
    chosen: int | None = None
    for part in (p.strip() for p in wanted.split("#") if p.strip()):
        chosen = _heading_within(headings, part, start, end)
        if chosen is None:
            raise InvalidArgument(
                f"note {note.title!r} has no section {show_value(wanted)}; its headings are {_named(headings)}"
            )
        first, end = section_span(line_count, headings, chosen)
        start = first + 1  # a subheading lies below its parent's own line
    if chosen is None:
        raise InvalidArgument("section is empty: give a heading of the note")
    return section_span(line_count, headings, chosen)


def _heading_within(headings: tuple[Heading, ...], text: str, start: int, end: int) -> int | None:
    """The first heading within the lines that reads as `text`: as written, else as Obsidian
    compares a link's heading (`strip_heading`: 'hasTag' for '`hasTag()`', 'Table' for '`Table`')."""
    within = [(index, h) for index, h in enumerate(headings) if start <= h.line <= end]
    for index, heading in within:
        if fold(heading.text) == fold(text):
            return index
    stripped = fold(strip_heading(text))
    for index, heading in within:
        if stripped and fold(strip_heading(heading.text)) == stripped:
            return index
    return None


def _named(headings: tuple[Heading, ...]) -> str:
    if not headings:
        return "none (the note has no headings)"
    shown = ", ".join(repr(h.text) for h in headings[:MAX_HEADINGS_NAMED])
    return shown + (f" and {len(headings) - MAX_HEADINGS_NAMED} more" if len(headings) > MAX_HEADINGS_NAMED else "")


def _fit_sections(result: ReadNoteResult, budget: int) -> None:
    """Keep whole section entries while the result fits; count the rest."""
    sections = result["sections"]
    kept: list[Section] = []
    result["sections"] = kept
    result["sections_omitted"] = len(sections)
    size = json_size(result)
    for entry in sections:
        extra = len(compact_json(entry).encode("utf-8")) + (1 if kept else 0)
        if size + extra > budget:
            break
        kept.append(entry)
        size += extra
    result["sections_omitted"] = len(sections) - len(kept)
    if json_size(result) > budget:
        # Properties alone can be larger than a small budget: they go the way of the text.
        del result["properties"]
        result["hint"] += " (properties left out too)"
    if json_size(result) > budget:
        need = json_size(result)
        raise InvalidArgument(f"budget={budget} cannot hold even this note's path and link; use at least {need}")
