"""Which query terms a note holds, field by field: the numbers ranking.py ranks by.

Fields: the title (file name), aliases, headings, tags (the property and inline `#tags`) and
the body.  The body is searched once, folded; headings and inline tags are looked at only when
the body holds a term at all (they are part of it), and parsed only when a cheap look says a
term could be in one.
"""

from __future__ import annotations

import re

from vault_recall.server.obsidian.note import Note
from vault_recall.server.obsidian.syntax import parse_inline_tags
from vault_recall.server.recall.query_terms import Query, StemMemo, count_in, term_counts
from vault_recall.server.recall.ranking import Evidence
from vault_recall.server.recall.words import fold

# An ATX heading line ('## Reasons'), and '#' with what follows it up to a blank: where a
# heading or an inline tag can be (code blocks are told apart only when the note has one).
_HEADING_LINE = re.compile(r"^[ ]{0,3}#{1,6}(?:[ \t].*)?$", re.MULTILINE)
_HASH_RUNS = re.compile(r"#\S+")
_FENCES = ("```", "~~~")


def evidence_of(note: Note, query: Query, memo: StemMemo) -> Evidence:
    """The note's term counts per field, and its length."""
    body = fold(note.body)
    in_body = term_counts(body, query, memo)
    nothing = [0] * len(query.terms)
    counts = {
        "title": term_counts(fold(note.title), query, memo),
        "aliases": count_in(note.aliases, query, memo) if note.aliases else nothing,
        "heading": _in_headings(note, body, query, memo) if any(in_body) else nothing,
        "tags": count_in((*note.tags, *_inline_tags(note, body, query, in_body)), query, memo),
        "body": in_body,
    }
    return Evidence(counts=counts, length=len(note.body) + len(note.title))


def _in_headings(note: Note, body: str, query: Query, memo: StemMemo) -> list[int]:
    if "#" not in body:
        return [0] * len(query.terms)
    if any(fence in body for fence in _FENCES):
        return count_in([heading.text for heading in note.headings], query, memo)
    return term_counts("\n".join(_HEADING_LINE.findall(body)), query, memo)


def _inline_tags(note: Note, body: str, query: Query, in_body: list[int]) -> tuple[str, ...]:
    """The note's inline tags, parsed only when a term's letters follow some '#' of it."""
    if not any(in_body) or "#" not in body:
        return ()
    runs = "\n".join(_HASH_RUNS.findall(body))
    gates = [scan.gate for term, found in zip(query.terms, in_body, strict=True) if found for scan in term.scans]
    return parse_inline_tags(note.body) if any(gate in runs for gate in gates) else ()
