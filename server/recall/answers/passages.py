"""A note too large for its share of a recall's budget, as its best passages: whole sections,
or whole paragraphs where a section alone is too large, or whole sentences where a paragraph
is — never a cut sentence.

A note's text is a tree: above its first heading, the opening; under each heading, its section
(the heading and what follows it up to the next heading of the same or a higher level), which
holds its own part (the heading and what precedes its first subheading) and its subsections.
A unit that fits the room left is taken whole; one that does not is replaced by its pieces
(a section by its own part and subsections, a part by its paragraphs, a paragraph by its
sentences), which compete with the rest.  Best first: with a query, the units holding the most
of its meaningful words, then the most of its words, then the densest, then the first; units
holding none are not taken — unless no unit holds any (the note matched by its name): then, as
with no query, the note's opening units first.  The passages are given in the note's order,
those of one section with only blank lines between them joined into one.

Each passage says where it is as read_note takes it (`section`: the heading path, 'Sync#Pricing')
and the file lines it spans, so the rest of the note is one call away.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, assert_never

from vault_recall.server.errors import InvalidArgument
from vault_recall.server.obsidian.note import Note
from vault_recall.server.obsidian.syntax import fenced, section_span
from vault_recall.server.recall.answers.reading import find_section
from vault_recall.server.recall.packing import json_size
from vault_recall.server.recall.results import Passage

# How well a text matches the query, larger better: (meaningful words held, query words held,
# matches); a second of 0 holds no word of it.
Score = tuple[int, int, int]
Scorer = Callable[[str], Score]

_WORD = re.compile(r"\w+")
# A sentence ends at '.', '!', '?' or '…' (or their full-width forms), closing quotes and
# brackets after it, and the blank that follows; a new list item, table row or quote line
# starts one too.
_SENTENCE_END = re.compile(
    r"(?<=[.!?…])[\"'”’)\]]*\s+|(?<=[。！？])[」』）]*\s*|\s*\n(?=[ \t]*(?:[-*+>|]|\d{1,9}[.)])[ \t])"
)


# What a unit of the body is: a heading's whole section; a part of one (its own text before
# its subsections, or the text above the first heading); a paragraph; a sentence of one.
UnitKind = Literal["section", "part", "paragraph", "sentence"]


@dataclass(frozen=True)
class _Unit:
    """A span of the body: lines `first`..`last` (1-based), its text a slice of them."""

    first: int
    last: int
    text: str
    heading: int | None  # the heading whose section it is in (index in note.headings)
    kind: UnitKind


class _Tree:
    """The note's units and how each divides."""

    def __init__(self, note: Note) -> None:
        self.note = note
        self.lines = note.lines
        self.headings = note.headings
        self.in_code = [in_code for _, in_code in fenced(self.lines)]
        # Each heading's parent: the nearest heading above it of a lower level, whose section
        # holds it (any heading between is of its level or deeper).
        self.parent: list[int | None] = []
        above: list[int] = []  # the headings open at this point, each of a lower level than the next
        for index, heading in enumerate(self.headings):
            while above and self.headings[above[-1]].level >= heading.level:
                above.pop()
            self.parent.append(above[-1] if above else None)
            above.append(index)
        self._sections: dict[int, str | None] = {}
        self._paths: dict[int, str] = {}

    def text(self, first: int, last: int) -> str:
        return "\n".join(self.lines[first - 1 : last])

    def top(self) -> list[_Unit]:
        units: list[_Unit] = []
        opening_last = self.headings[0].line - 1 if self.headings else len(self.lines)
        if opening_last >= 1 and self.text(1, opening_last).strip():
            units.append(self._span(1, opening_last, None, "part"))
        units.extend(self._section(i) for i, parent in enumerate(self.parent) if parent is None)
        return units

    def _section(self, index: int) -> _Unit:
        first, last = section_span(len(self.lines), self.headings, index)
        return self._span(first, last, index, "section")

    def _span(self, first: int, last: int, heading: int | None, kind: UnitKind) -> _Unit:
        # Blank lines opening or closing a span are no part of it.
        while first < last and not self.lines[first - 1].strip():
            first += 1
        while last > first and not self.lines[last - 1].strip():
            last -= 1
        return _Unit(first, last, self.text(first, last), heading, kind)

    def pieces(self, unit: _Unit) -> list[_Unit]:
        """What replaces a unit too large for the room."""
        match unit.kind:
            case "section":
                assert unit.heading is not None
                children = [j for j, parent in enumerate(self.parent) if parent == unit.heading]
                if not children:
                    return self._paragraphs(unit.first + 1, unit.last, unit.heading)
                own_last = self.headings[children[0]].line - 1
                has_own = self.text(unit.first + 1, own_last).strip()  # more than its heading line
                own = [self._span(unit.first, own_last, unit.heading, "part")] if has_own else []
                return [*own, *(self._section(j) for j in children)]
            case "part":
                skip = 1 if unit.heading is not None and unit.first == self.headings[unit.heading].line else 0
                return self._paragraphs(unit.first + skip, unit.last, unit.heading)
            case "paragraph":
                return [] if self.in_code[unit.first - 1] else self._sentences(unit)  # code is not prose
            case "sentence":
                return []  # the smallest unit
            case _:
                assert_never(unit.kind)

    def _paragraphs(self, first: int, last: int, heading: int | None) -> list[_Unit]:
        """Runs of lines between blank lines — a fenced code block's blank lines inside it."""
        found: list[_Unit] = []
        start: int | None = None
        for number in range(first, last + 1):
            blank = not self.lines[number - 1].strip() and not self.in_code[number - 1]
            if blank and start is not None:
                found.append(self._span(start, number - 1, heading, "paragraph"))
                start = None
            elif not blank and start is None:
                start = number
        if start is not None:
            found.append(self._span(start, last, heading, "paragraph"))
        return found

    def _sentences(self, unit: _Unit) -> list[_Unit]:
        """The paragraph's sentences (and list items, table rows, quote lines) — a piece of
        fewer than two words ('1.', 'e.g.', a bare '>') taken with the one after it."""
        spans: list[tuple[int, int]] = []
        at = 0
        for stop in _SENTENCE_END.finditer(unit.text):
            spans.append((at, stop.start() + len(stop.group(0).rstrip())))
            at = stop.end()
        spans.append((at, len(unit.text)))
        merged: list[tuple[int, int]] = []
        for start, end in spans:
            if merged and len(_WORD.findall(unit.text[merged[-1][0] : merged[-1][1]])) < 2:
                start = merged.pop()[0]
            merged.append((start, end))
        if len(merged) > 1 and len(_WORD.findall(unit.text[merged[-1][0] : merged[-1][1]])) < 2:
            merged[-2:] = [(merged[-2][0], merged[-1][1])]
        if len(merged) < 2:
            return []
        return [self._sentence(unit, start, end) for start, end in merged]

    def _sentence(self, unit: _Unit, start: int, end: int) -> _Unit:
        text = unit.text[start:end]
        first = unit.first + unit.text.count("\n", 0, start)
        return _Unit(first, first + text.count("\n"), text, unit.heading, "sentence")

    def path(self, heading: int | None) -> str:
        """The heading path of a section ('A#B'), as scoring reads it."""
        if heading is None:
            return ""
        if heading not in self._paths:
            parent = self.parent[heading]
            above = self.path(parent) + "#" if parent is not None else ""
            self._paths[heading] = above + self.headings[heading].text
        return self._paths[heading]

    def section(self, heading: int | None) -> str | None:
        """read_note's `section` for the heading's section: its heading path ('A#B'), or the
        heading alone when the path would name another; None when neither reaches it."""
        if heading is None:
            return None
        if heading not in self._sections:
            span = section_span(len(self.lines), self.headings, heading)
            tries = (self.path(heading), self.headings[heading].text)
            self._sections[heading] = next((t for t in tries if self._reaches(t, span)), None)
        return self._sections[heading]

    def _reaches(self, wanted: str, span: tuple[int, int]) -> bool:
        try:
            return find_section(self.note, wanted) == span
        except InvalidArgument:
            return False

    def passage(self, unit: _Unit) -> Passage:
        shown: Passage = {}  # type: ignore[typeddict-item]  # keys added in the wire order
        section = self.section(unit.heading)
        if section is not None:
            shown["section"] = section
        offset = self.note.body_first_line - 1
        shown["lines"] = [unit.first + offset, unit.last + offset]
        shown["text"] = unit.text
        return shown


def choose_passages(note: Note, room: int, score: Scorer | None) -> list[Passage]:
    """The note's best passages whose compact JSON list fits in `room` bytes, in the note's
    order (the module's docstring); [] when not one fits."""
    tree = _Tree(note)
    if score is not None:
        chosen = _best_first(tree, room, score)
        if chosen:
            return chosen
    return _best_first(tree, room, None)


def _best_first(tree: _Tree, room: int, score: Scorer | None) -> list[Passage]:
    heap: list[tuple[tuple[int, ...], int, _Unit]] = []
    order = 0  # ties in the heap go to the unit pushed first

    def push(unit: _Unit) -> None:
        nonlocal order
        if score is None:
            key: tuple[int, ...] = (unit.first,)
        else:
            held = score(f"{tree.path(unit.heading)}\n{unit.text}")
            if not held[1]:
                return  # holds no word of the query, nor do its pieces
            density = held[2] * 10**6 // max(len(unit.text), 1)
            key = (-held[0], -held[1], -density, unit.first)
        heapq.heappush(heap, (key, order, unit))
        order += 1

    for unit in tree.top():
        push(unit)
    taken: list[tuple[_Unit, Passage]] = []
    used = 2  # the list's brackets
    while heap and used < room:
        _, _, unit = heapq.heappop(heap)
        shown = tree.passage(unit)
        extra = json_size(shown) + (1 if taken else 0)
        if used + extra <= room:
            taken.append((unit, shown))
            used += extra
            continue
        pieces = tree.pieces(unit)
        if not pieces and score is None:
            break  # the opening, unbroken: not a sentence from further on
        for piece in pieces:
            push(piece)
    taken.sort(key=lambda pair: (pair[0].first, pair[0].last))
    return _joined(tree, taken)


def _joined(tree: _Tree, taken: list[tuple[_Unit, Passage]]) -> list[Passage]:
    """Passages of whole lines of one section with nothing but blank lines between them, as one
    passage (its lines verbatim): one `section` and `lines` said instead of several, and fewer
    bytes — never more."""
    joined: list[tuple[_Unit, Passage]] = []
    for unit, shown in taken:
        if joined:
            last, last_shown = joined[-1]
            between = range(last.last + 1, unit.first)
            if (
                "sentence" not in (last.kind, unit.kind)
                and last.heading == unit.heading
                and unit.first > last.last
                and all(not tree.lines[n - 1].strip() for n in between)
            ):
                both = _Unit(last.first, unit.last, tree.text(last.first, unit.last), last.heading, "part")
                both_shown = tree.passage(both)
                if json_size(both_shown) <= json_size(last_shown) + 1 + json_size(shown):
                    joined[-1] = (both, both_shown)
                    continue
        joined.append((unit, shown))
    return [shown for _, shown in joined]
