"""What a pass's `look` answers of a note's bytes before any parsing (scan.each_looked_at,
scan.each_record): skip the note, parse it, or what it told from the bytes — a closed set,
which scan.py handles by one `match` over the verdict (a `look` can give no other)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

T = TypeVar("T")


# Not frozen, and no equality: one is made for most notes of a pass, and a frozen one costs
# twice as much to make; nothing changes it once made.
@dataclass(slots=True, eq=False)
class Told(Generic[T]):
    """A `look`'s verdict when it told, from the bytes, all the call needs: `seen`, exactly what
    parsing the note would have made of it for the call."""

    seen: T


# What a `look` answers of one note: "skip" — it can change neither the call's answer nor its
# problems; "parse" — only the full reading can tell; or Told.  Words rather than an Enum: an
# Enum member costs a lookup each time a look answers or a pass matches it, for every note.
Verdict = Literal["skip", "parse"] | Told[T]


@dataclass(frozen=True, slots=True)
class Looked(Generic[T]):
    """What a pass's `look` made of a note's bytes, without parsing it."""

    path: str
    seen: T
    mtime_ns: int
