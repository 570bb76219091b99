"""A record's subjects, status and kind read straight from the bytes of the plainest
properties blocks — what `list_subjects` counts — without decoding the note or building it.

`list_subjects` must check every record of every subject, and parsing each one (decode, split,
the flat reading, the record rules) was most of its time.  Most records open with a block as
Obsidian writes it: `name: value` lines of plain text (URLs too), lists, quoted text without
escapes — text YAML can read in one way only, with no comment, flow mapping, anchor or tag.
Such a block is matched in one step here; its `subject`, `status`, `kind` and `date` are then
held to the record rules of records.py.  Anything else — any other shape of block, a value
the rules would refuse, a YAML keyword as a name, a duplicate name, a note that is not UTF-8
or does not fit the first read — is "unsure" (None), and the note is parsed as before.
`tests/server/recall/finding/test_record_tally.py` checks that what is counted is what the full reading makes.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from vault_recall.server.obsidian.note_bytes import (
    CLOSING_LINE,
    DATE,
    KEYWORD_BYTES,
    OPENING_LINE,
    PROPERTY_NAME,
    SLUG,
    is_utf8,
    plain_slug,
    slugs_named,
)
from vault_recall.server.recall.records import KINDS, STATUSES, RecordKind, RecordStatus

_NAME = PROPERTY_NAME.encode()
# A letter outside ASCII, as UTF-8: two bytes, three (CJK and most scripts, punctuation such
# as '’', symbols such as '✨', an emoji's variation selector) or four (emoji) — leaving out
# what YAML reads as a line break or refuses (NEL and the C1 controls, the line and paragraph
# separators, the BOM, U+FFFE and U+FFFF, surrogates: the rare leads \xed and \xee stay out
# whole).  The whole note is decoded strictly besides.
_LETTER = (
    rb"(?:\xc2[\xa0-\xbf]|[\xc3-\xdf][\x80-\xbf]|\xe2(?:\x80[\x80-\xa7\xaa-\xbf]|[\x81-\xbf][\x80-\xbf])"
    rb"|[\xe3-\xec][\x80-\xbf]{2}|\xef(?:[\x80-\xba\xbc-\xbe][\x80-\xbf]|\xbb[\x80-\xbe]|\xbf[\x80-\xbd])"
    rb"|[\xf0-\xf4][\x80-\xbf]{3})"
)
# Plain text YAML cannot read as anything but a scalar, in a flow list too: it starts with a
# letter or digit, holds no ':', '#', ',', quote, bracket or brace, and ends on no blank (YAML
# would strip it).  Whether it is text, a number or a keyword matters only for the four
# properties checked below, whose rules accept plain ASCII slugs, words and dates alone.
_WORD_START = rb"(?:[A-Za-z0-9]|" + _LETTER + rb")"
_WORD_END = rb"(?:[A-Za-z0-9./_-]|" + _LETTER + rb")"
_WORD = _WORD_START + rb"(?:(?:[A-Za-z0-9 ./_-]|" + _LETTER + rb")*" + _WORD_END + rb")?"
# Plain text on a line of its own (not in a flow list): it may also hold the marks a URL has,
# and ':' when no blank follows it (`https://…`), and what only a flow list or a value's first
# character would read otherwise: commas, quotes, '<', '>', ';' (real vaults write `Erika
# Gozar, Juanjo Arranz`, `Albert O'Shea`); still no '#', bracket or brace.
_LINE_MARK = rb"[A-Za-z0-9./_()+?=&%@~!*,'\"<>;-]"
_LINE_END = rb"(?:" + _LINE_MARK + rb"|" + _LETTER + rb")"
_LINE_TEXT = _WORD_START + rb"(?:(?: |" + _LINE_MARK + rb"|:(?![ \r\n])|" + _LETTER + rb")*" + _LINE_END + rb")?"
# Printable text in double quotes (no escape) or single quotes (no quote inside): text,
# whatever it spells.
_QUOTED = rb"""(?:"(?:[ !#-\[\]-~]|LETTER)*"|'(?:[ -&(-~]|LETTER)*')""".replace(b"LETTER", _LETTER)
# A value on the name's line: plain text, a flow list of words (or none), or quoted text.
_VALUE = rb"(?:" + _LINE_TEXT + rb"|\[\]|\[" + _WORD + rb"(?:, " + _WORD + rb")*\]|" + _QUOTED + rb")"
# An item of a block list: plain or quoted text, or nothing (a null item).
_ITEM_LINE = rb"-(?: +(?:" + _LINE_TEXT + rb"|" + _QUOTED + rb"))? *\r?\n"
# One property: `name: value`, or `name:` alone (null) or over a block list, its items
# indented alike.  Blanks may follow a value or the colon (YAML drops them).
_PROPERTY = (
    rb"(?P<name>" + _NAME + rb"):(?:"
    rb" +(?P<value>" + _VALUE + rb") *\r?\n"
    rb"| *\r?\n(?P<items>(?P<indent> *)" + _ITEM_LINE + rb"(?:(?P=indent)" + _ITEM_LINE + rb")*)?)"
)
# The whole block: its opening line and closing line as note_bytes describes them (the reading
# of every note takes them from there too), and such properties only between them.
_PLAIN_BLOCK = re.compile(OPENING_LINE + rb"((?:" + _PROPERTY + rb")+)" + CLOSING_LINE)
# The same for a block of ASCII text only, written to be quick: no letters outside ASCII, runs
# of plain characters taken at once and never given back (possessive), no groups but the
# block's and the indent's.  Every block it matches, _PLAIN_BLOCK matches too (each part's
# text is text of the matching part there), so trying it first changes no answer; it fails
# on anything else, which then goes to _PLAIN_BLOCK.
_A_LINE_TEXT = rb"[A-Za-z0-9](?:[A-Za-z0-9 ./_()+?=&%@~!*,'\"<>;-]++|:(?![ \r\n]))*+(?<! )"
_A_WORD = rb"[A-Za-z0-9][A-Za-z0-9 ./_-]*+(?<! )"
_A_QUOTED = rb"""(?:"[ !#-\[\]-~]*+"|'[ -&(-~]*+')"""
_A_VALUE = rb"(?:" + _A_LINE_TEXT + rb"|\[\]|\[" + _A_WORD + rb"(?:, " + _A_WORD + rb")*+\]|" + _A_QUOTED + rb")"
_A_ITEM_LINE = rb"-(?: +(?:" + _A_LINE_TEXT + rb"|" + _A_QUOTED + rb"))? *\r?\n"
_A_PROPERTY = (
    _NAME + rb":(?: +" + _A_VALUE + rb" *\r?\n| *\r?\n(?:( *)" + _A_ITEM_LINE + rb"(?:\2" + _A_ITEM_LINE + rb")*)?)"
)
_PLAIN_ASCII_BLOCK = re.compile(OPENING_LINE + rb"((?:" + _A_PROPERTY + rb")+)" + CLOSING_LINE)
# A `subject` list item the record rules can accept: a slug, nothing around it.
_SLUG_ITEM = re.compile(rb" *- (" + SLUG.encode() + rb")\r?\n")
# In a block _PLAIN_BLOCK matched: each property's name and the value written on its line, in
# one pass (a list item's line starts with a blank or '-', never with a name) — of which the
# four the record rules read (blanks around a value dropped, as YAML drops them); a `subject:`
# line's block list (its item lines, as written).
_PROPERTY_LINE = re.compile(rb"^(" + _NAME + rb"): *+([^\r\n]*+)", re.MULTILINE)
_RECORD_NAMES = frozenset((b"subject", b"status", b"kind", b"date"))
_SUBJECT_ITEMS = re.compile(rb"^subject: *\r?\n((?:[ -][^\n]*\n)*)", re.MULTILINE)
_DATE = re.compile(DATE.encode())
# Where a value YAML may read as a number (not text) can start in a block _PLAIN_BLOCK
# matched: no plain value there starts with '-', '+' or '.', and quoted text is text, so such
# a value starts with a digit — after a name's ': ', a list item's '- ', a flow list's '[' or
# ', '.  (The same bytes inside text only make a note look less plain than it is.)
_NUMBER_VALUE = re.compile(rb"(?:: +|- +|\[|, )[0-9]")
# Exactly the words records.py accepts of a record's own properties: any other is "unsure".
_STATUSES: dict[bytes, RecordStatus] = {status.encode(): status for status in STATUSES}
_KINDS: dict[bytes, RecordKind] = {kind.encode(): kind for kind in KINDS}


@dataclass(frozen=True, slots=True)
class Tally:
    """What list_subjects counts of one valid record."""

    subjects: tuple[str, ...]
    status: RecordStatus
    kind: RecordKind
    mtime_ns: int


RecordFacts = tuple[tuple[str, ...], RecordStatus, RecordKind]  # subjects, status, kind


@dataclass(frozen=True, slots=True)
class PlainNote:
    """A valid note whose properties block is of the plainest shape."""

    record: RecordFacts | None  # the valid record it is; None: no `subject`, an ordinary note
    body_start: int = 0  # where its body begins: the byte after the block's closing line
    # An ordinary note naming its own `status` or `kind`: a subject rule's record of it reads
    # them (records.ruled_record), so only the full reading can say what it is.
    own_state: bool = False

    def may_hold_numbers(self, start: bytes | bytearray) -> bool:
        """Could a value of its block (in `start`, the note's bytes) be read by YAML as a
        number rather than text?  (False: every value is text as written, or a keyword.)"""
        return _NUMBER_VALUE.search(start, 0, self.body_start) is not None


def plain_note(start: bytes | bytearray, length: int) -> PlainNote | None:
    """What the note whose whole bytes are `start[:length]` is, when its properties block is of
    the plainest shape and it is valid — a record the rules accept, or a note without `subject`;
    None when unsure (any other block, a record the rules refuse, text that is not UTF-8)."""
    block = _PLAIN_ASCII_BLOCK.match(start, 0, length) or _PLAIN_BLOCK.match(start, 0, length)
    if block is None:
        return None
    # The match has proven every line of the block a `name: value` line, a `name:` line or an
    # item of the list below one: names and the record's values are taken from those lines.
    first, last = block.span(1)
    lines = _PROPERTY_LINE.findall(start, first, last)
    names = [name for name, _ in lines]
    if len(set(names)) != len(names) or not KEYWORD_BYTES.isdisjoint(names):
        return None  # a duplicate is an error to YAML; a keyword name is no text
    if b"subject" not in names:
        own_state = b"status" in names or b"kind" in names
        return PlainNote(None, block.end(), own_state) if is_utf8(start, length) else None
    found = {name: (value.rstrip(b" "), b"") for name, value in lines if name in _RECORD_NAMES}
    if not found[b"subject"][0]:
        listed = _SUBJECT_ITEMS.search(start, first, last)
        found[b"subject"] = (b"", listed.group(1) if listed else b"")
    subjects = _subjects(found.get(b"subject"))
    status = _STATUSES.get(_value(found, b"status", b"active"))
    kind = _KINDS.get(_value(found, b"kind", b"decision"))
    if subjects is None or status is None or kind is None:
        return None  # no record, or one the rules refuse: the full reading says which
    if b"date" in found:
        date = _value(found, b"date", b"")
        if not _calendar_date(date):
            return None  # a date the rules refuse
    elif kind == "event":
        return None  # an event needs a date
    # The body must be UTF-8 as well, or the note is reported instead of counted.
    return PlainNote((subjects, status, kind), block.end()) if is_utf8(start, length) else None


def _calendar_date(written: bytes) -> bool:
    """records.is_calendar_date for a value's bytes: YYYY-MM-DD in ASCII digits, a real day."""
    if _DATE.fullmatch(written) is None:
        return False
    try:
        dt.date.fromisoformat(written.decode("ascii"))
    except ValueError:
        return False
    return True


def _value(found: dict[bytes, tuple[bytes, bytes]], name: bytes, default: bytes) -> bytes:
    """The value written on the line of property `name`; `default` when there is no such
    property, and b"" when it has none on its line (null, or a block list)."""
    written = found.get(name)
    return default if written is None else written[0]


def _subjects(written: tuple[bytes, bytes] | None) -> tuple[str, ...] | None:
    """The slugs of a `subject` property: one slug, or a flow or block list of them (None:
    no subject, or unsure)."""
    if written is None:
        return None
    value, block_items = written
    if value:
        if plain_slug(value):
            return (value.decode("ascii"),)  # the common `subject: slug`, asked of every record first
        items = slugs_named(value)  # a quoted slug or a flow list of them
        if items is None:
            return None
    elif block_items:
        found = [_SLUG_ITEM.fullmatch(line) for line in block_items.splitlines(keepends=True)]
        if not all(found):
            return None  # an item that is no plain slug: the full reading says what it is
        items = tuple(match.group(1) for match in found if match)
        if not all(plain_slug(item) for item in items):
            return None
    else:
        return None  # `subject:` alone: the record rules refuse it
    if len(items) == 1:
        return (items[0].decode("ascii"),)  # most records name one subject
    return tuple(dict.fromkeys(item.decode("ascii") for item in items))
