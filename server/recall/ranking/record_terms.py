"""Which query terms a note holds, field by field: the numbers ranking.py ranks by — and, for
the few notes an answer returns, whether it holds them together.

Fields (results.py): the title (file name), aliases, headings (any level), tags (the property
and inline `#tags`) and the body.  The body is searched once, folded; headings and inline tags
are looked at only when the body holds a term at all (they are part of it), and parsed only
when a cheap look says a term could be in one.

When a record satisfies a query well enough for the answer not to be marked `weak_match`
(`satisfies`, at the end of this module): when it holds together (`together`: one paragraph,
with the names of what holds it) every meaningful word the query counts — or nearly all of
them, at least NEARLY_ALL, and either

- one of the words it holds is in its name (title, aliases, tags, top headings): the record is
  about that word, and the others it holds beside it make it the one meant; or
- every word it lacks is held by more of the records ranked than the rarest word it holds: what
  it lacks says less about which record is meant than what it has.

Anything less is weak, whatever its rank: a word no record holds in any form is never held by
more records than one the record holds, so missing one still marks the answer unless the
record holds all but a quarter of the words and is named after one of them.  A misspelt word's
correction (spelling.py) counts as the word asked: only a word no language of the call knows
is corrected ('evergren → evergreen').  So does a word of the asked word's family the stemmer
parts ('registration → registered') when the word asked is no word the languages know; when it
is one ('secret → secretary'), the relative is a guess, and an answer to a query with one is
always weak.

Why not less: measured on bench/recall_eval/ and two public vaults (docs/benchmarks.md), any
looser rule on words alone — two thirds held, a share of the words' weight (IDF), whole-note
holding, the gap between the first score and the second — lets a question that has no answer
pass for answered ("How much does Obsidian Sync cost per month?" finds *sync* and *month*
named and together; "do we allow personal laptops for work?" finds *allow* and *personal*).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from vault_recall.server.obsidian.note import Note
from vault_recall.server.obsidian.syntax import parse_inline_tags
from vault_recall.server.recall.ranking.bm25 import Evidence
from vault_recall.server.recall.ranking.query_terms import Query, StemMemo, count_in, term_counts
from vault_recall.server.recall.ranking.words import fold_for_ranking
from vault_recall.server.recall.results import MatchField

# An ATX heading line ('## Reasons', up to three spaces before it; led by a newline, so that
# the search runs at C speed from one newline to the next), and '#' with what follows it up to
# a blank: where an inline tag can be.  Code blocks are told apart only when the note has one.
_HEADING = re.compile(r"\n {0,3}(#{1,6}(?:[ \t][^\n]*)?)(?=\n|$)")
_HASH_RUNS = re.compile(r"#\S+")


def evidence_of(note: Note, query: Query, memo: StemMemo) -> Evidence:
    """The note's term counts per field, and its length."""
    body = fold_for_ranking(note.body)
    in_body = term_counts(body, query, memo)
    nothing = [0] * len(query.terms)
    counts: dict[MatchField, list[int]] = {
        "title": term_counts(fold_for_ranking(note.title), query, memo),
        "aliases": count_in(note.aliases, query, memo) if note.aliases else nothing,
        "heading": _in_headings(note, body, query, memo) if any(in_body) else nothing,
        "tags": count_in((*note.tags, *_inline_tags(note, body, query, in_body)), query, memo),
        "body": in_body,
    }
    return Evidence.of(counts, len(note.body) + len(note.title))


def _in_headings(note: Note, body: str, query: Query, memo: StemMemo) -> list[int]:
    if "#" not in body:
        return [0] * len(query.terms)
    if has_fence(body):
        return count_in([heading.text for heading in note.headings], query, memo)
    return term_counts("\n".join(heading_lines(body)), query, memo)


def has_fence(body: str) -> bool:
    """Whether the body may hold a fenced code block, whose '#' lines are no headings.  Each
    fence's character first: looking for one character is a memchr, for three a slower scan of
    the whole body (most notes have neither)."""
    return ("`" in body and "```" in body) or ("~" in body and "~~~" in body)


def heading_lines(body: str) -> list[str]:
    """The ATX heading lines of a body without fences (has_fence), by one search: its headings,
    each with its '#'s (no word of them)."""
    return _HEADING.findall("\n" + body)


def _inline_tags(note: Note, body: str, query: Query, in_body: list[int]) -> tuple[str, ...]:
    """The note's inline tags, parsed only when a term's letters follow some '#' of it."""
    if not any(in_body) or "#" not in body:
        return ()
    runs = "\n".join(_HASH_RUNS.findall(body))
    gates = [scan.gate for term, found in zip(query.terms, in_body, strict=True) if found for scan in term.scans]
    return parse_inline_tags(note.body) if any(gate in runs for gate in gates) else ()


# A blank line (spaces allowed) ends a paragraph.
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")


@dataclass(frozen=True, slots=True)
class Together:
    """What a returned record holds of a query: `share`, the share of the meaningful words it
    holds together (its `coverage`), and whether that satisfies the query (`satisfies`)."""

    share: float
    satisfies: bool


def together(note: Note, query: Query, memo: StemMemo) -> Together:
    """The share of the query's meaningful words the note holds together: in one paragraph of
    its body, with the names of what holds it — the note's title, aliases, tags and top
    headings for every paragraph, a section's heading for the paragraphs under it.  Words
    scattered over a long note ("accounting" here, "software" three sections on) do not satisfy
    a question asking about both.  The note satisfies it when one such paragraph does."""
    required = query.counted
    if not required:
        return Together(1.0, satisfies=True)
    holdable = query.holdable
    tops = [heading.text for heading in note.headings if heading.level == 1]
    in_names = count_in([note.title, *note.aliases, *note.all_tags, *tops], query, memo)
    named = {i for i in holdable if in_names[i]}
    best, satisfied = len(named), satisfies(named, named, query)
    for heading, text in _sections(note):
        if best == len(holdable):
            break  # every word it can hold, held together: no paragraph satisfies it better
        in_heading = term_counts(fold_for_ranking(heading), query, memo)
        headed = named | {i for i in holdable if in_heading[i]}
        for paragraph in _PARAGRAPH_BREAK.split(fold_for_ranking(text)):
            found = term_counts(paragraph, query, memo)
            held = headed | {i for i in holdable if found[i]}
            best = max(best, len(held))
            satisfied = satisfied or satisfies(held, named, query)
    return Together(best / len(required), satisfies=satisfied)


def _sections(note: Note) -> list[tuple[str, str]]:
    """(heading, text under it) for the body before the first heading below the top level and
    after each one."""
    lines = note.body.split("\n")
    starts = [heading for heading in note.headings if heading.level > 1]
    sections = []
    heading, first = "", 0
    for start in starts:
        sections.append((heading, "\n".join(lines[first : start.line - 1])))
        heading, first = start.text, start.line
    sections.append((heading, "\n".join(lines[first:])))
    return sections


NEARLY_ALL = 3 / 4


def satisfies(held: Collection[int], named: Collection[int], query: Query) -> bool:
    """Whether a record holding together the counted terms `held` (of which `named` are in its
    name) satisfies `query` (the module's docstring, its second part)."""
    counted = query.counted
    if any(query.terms[i].respelt for i in counted):
        return False  # a known word taken for another of its family: a guess, never held as asked
    held = [i for i in counted if i in held]
    if len(held) == len(counted):
        return True
    if len(held) < NEARLY_ALL * len(counted):
        return False
    if any(i in named for i in held):
        return True
    holding = query.held_by
    if not holding or not held:
        return False  # not counted (no pass ranked the records): nothing says the lacking words are common
    rarest = min(holding[i] for i in held)
    return all(holding[i] > rarest for i in counted if i not in held)
