"""Packing whole records under a byte budget: never cut, every leftover counted.

Size is measured as docs/tools.md states it: the compact JSON of the whole result
(`separators=(",", ":")`, `ensure_ascii=False`), UTF-8 encoded.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar, overload

from vault_recall.server.recall.results import Packed, Problem

T = TypeVar("T")  # what a record is shaped from
R = TypeVar("R")  # a record as a result holds it
P = TypeVar("P", bound=Packed)  # a tool's result: an envelope with records to pack

MAX_PROBLEMS = 10
_ELLIPSIS = "…"


def compact_json(value: object) -> str:
    # allow_nan=False: a NaN would make the text invalid JSON; normalization prevents it.
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def json_size(value: object) -> int:
    return len(compact_json(value).encode("utf-8"))


# The bytes json.dumps escapes when ensure_ascii is off (each a character of its own: UTF-8 never
# writes them inside another): these seven as two characters ('\\n'), the other controls as six
# ('\\u001f').  bytes.translate keeps just those, in one pass in C.
_SHORT_ESCAPES = b'\n\r\t\b\f"\\'
_ESCAPED = bytes(range(0x20)) + b'"\\'
_ALL_BUT_ESCAPED = bytes(b for b in range(256) if b not in _ESCAPED)


def json_text_size(text: str) -> int:
    """json_size(text) for a string, counted rather than written: its UTF-8 bytes, the quotes,
    and what escaping adds (a ranked recall sizes every note that matches, so writing each
    escaped, as json's encoder does, was a large share of its work)."""
    data = text.encode("utf-8")
    escaped = data.translate(None, _ALL_BUT_ESCAPED)  # a few bytes: the text's only pass
    long = len(escaped.translate(None, _SHORT_ESCAPES))
    return len(data) + 2 + len(escaped) + 4 * long


class Shaped(Sequence[R], Generic[T, R]):
    """Ranked items shaped into answer records only when packing reaches them.

    Packing stops once `limit` records are in, and shaping a record (its URI, revision hash,
    time) for every match of a large vault would be most of a recall's work.
    """

    def __init__(
        self,
        items: Sequence[T],
        shape: Callable[[T], R],
        *,
        at_least: Callable[[T], int] | None = None,
        size: Callable[[T], int] | None = None,
        next_fitting: Callable[[int, int], int] | None = None,
    ) -> None:
        self._items = items
        self._shape = shape
        self._at_least = at_least
        self._size = size
        self._next_fitting = next_fitting
        self._last: tuple[int, R] | None = None  # packing sizes a record, then takes it

    def at_least(self, index: int) -> int:
        """A size the shaped record's JSON cannot be smaller than (0 when unknown): a record
        that cannot fit is passed over without being shaped."""
        return self._at_least(self._items[index]) if self._at_least is not None else 0

    def next_fitting(self, index: int, room: int) -> int:
        """The first index after `index` whose `at_least` is at most `room` (or the length):
        where packing goes on once `index` cannot fit — given, where the items know it, without
        asking every item in between (a search can have a hit on most lines of a vault)."""
        if self._next_fitting is not None:
            return self._next_fitting(index, room)
        index += 1
        while index < len(self) and self.at_least(index) > room:
            index += 1
        return index

    def size(self, index: int) -> int:
        """json_size of the shaped record — known without shaping it when `size` was given."""
        return self._size(self._items[index]) if self._size is not None else json_size(self[index])

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> R: ...
    @overload
    def __getitem__(self, index: slice) -> list[R]: ...
    def __getitem__(self, index: int | slice) -> R | list[R]:
        if isinstance(index, slice):
            return [self._shape(item) for item in self._items[index]]
        if self._last is None or self._last[0] != index:
            self._last = (index, self._shape(self._items[index]))
        return self._last[1]


def pack(
    envelope: P,
    candidates: Sequence[object],
    *,
    budget: int,
    limit: int,
    problems: Sequence[Problem] | None = None,
    contiguous: bool = False,
    problem_share: int = 2,
) -> P:
    """Return a copy of `envelope` with `records` (whole candidates, in the given order) and
    `omitted` — the keys a tool's result holds last, so they go where the envelope has them
    (a tool makes its result from its envelope with `records: []` and `omitted: 0`: its own
    type says what the records are).

    Candidates are taken greedily in rank order; one that would push the result over
    `budget` or past `limit` is left out whole and counted in `omitted`, and smaller later
    ones may still fit — unless `contiguous`, where packing stops at the first that does not
    (a page: the next one starts right after the last record taken).  When `problems` is
    given, up to MAX_PROBLEMS of them are kept within half the budget and the rest counted in
    `problems_omitted` — and with a `problem_share` of n, within an n-th of the budget together,
    the first one aside (recall: an eighth, so the answer's own text keeps its room).
    """
    result = envelope.copy()
    records: list[object] = []
    result["records"] = records
    # Placeholders with the largest value each count can take: the final numbers have no
    # more digits, so a result that fits with the placeholders fits for real.
    result["omitted"] = len(candidates)
    kept_problems: list[Problem] = []
    if problems is not None:
        result["problems"] = kept_problems
        result["problems_omitted"] = len(problems)
    _fit_envelope(result, budget)

    if problems:
        size = json_size(result)
        share = 0  # what the problems take of the budget
        for problem in problems[:MAX_PROBLEMS]:
            extra = json_size(problem) + (1 if kept_problems else 0)
            if size + extra > budget // 2 or (kept_problems and share + extra > budget // problem_share):
                break
            share += extra
            kept_problems.append(problem)
            size += extra
        result["problems_omitted"] = len(problems) - len(kept_problems)

    size = json_size(result)
    index = 0
    while index < len(candidates) and len(records) < limit:
        if isinstance(candidates, Shaped):
            if size + candidates.at_least(index) > budget:
                if contiguous:
                    break
                index = candidates.next_fitting(index, budget - size)
                continue
            extra = candidates.size(index)
        else:
            extra = json_size(candidates[index])
        extra += 1 if records else 0
        if size + extra <= budget:
            records.append(candidates[index])
            size += extra
        elif contiguous:
            break
        index += 1
    result["omitted"] = len(candidates) - len(records)
    return result


def answer(
    envelope: P,
    candidates: Sequence[object],
    *,
    budget: int,
    limit: int,
    problems: Sequence[Problem],
    contiguous: bool = False,
    problem_share: int = 2,
) -> P:
    """A tool's packed answer: `degraded` with its (bounded) problems when there are any."""
    if problems:
        degraded = envelope.copy()
        degraded["status"] = "degraded"
        return pack(
            degraded,
            candidates,
            budget=budget,
            limit=limit,
            problems=problems,
            contiguous=contiguous,
            problem_share=problem_share,
        )
    return pack(envelope, candidates, budget=budget, limit=limit, contiguous=contiguous)


def _fit_envelope(result: Packed, budget: int) -> None:
    """Shorten the envelope's own text (never records) if it alone exceeds the budget: the
    `reason`, then the `vault` name (then a search's `query`: search.py)."""
    for key in ("reason", "vault"):
        while (over := json_size(result) - budget) > 0:
            shorter = shortened_by(result.get(key), over)
            if shorter is None:
                break
            result[key] = shorter


def shortened_by(value: object, over: int) -> str | None:
    """A text `over` bytes too long shortened by that much at least (down to '…'), or None
    when it is no text or nothing but '…' already."""
    if not isinstance(value, str) or not value.rstrip(_ELLIPSIS):
        return None
    plain = value.removesuffix(_ELLIPSIS)
    keep = max(0, len(plain.encode("utf-8")) - max(over, 1) - 3)
    return shorten_to_bytes(plain, keep) if keep else _ELLIPSIS


def shorten_to_bytes(text: str, max_bytes: int) -> str:
    """`text` cut to at most `max_bytes` UTF-8 bytes plus a trailing ellipsis (3 bytes)."""
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    return data[:max_bytes].decode("utf-8", errors="ignore") + _ELLIPSIS
