"""Decide from a note's first bytes, without decoding or YAML, that it cannot matter to a
recall of one subject.

The rule every branch keeps: answer True only when the full reading (decode, split, strict
YAML, record rules — note.py and records.py) could give neither a record of the subject nor a
broken note that might be about it.  Whenever unsure, answer False and let the note be read
whole.  `tests/support/tricky_notes.py` holds the layouts that make each check necessary
(tests/server/recall/finding/test_fast_scan.py compares this with the full reading on them).
"""

from __future__ import annotations

import re

from vault_recall.server.obsidian.flat_properties import read_flat_properties
from vault_recall.server.obsidian.note_bytes import (
    BLOCK_STARTS,
    CLOSING,
    CLOSING_LINE,
    LOOSE_END,
    NOT_TEXT,
    OPENING_LINE,
    OTHER_BREAKS,
    SLUG,
    SUBJECT_LINE_BYTES,
    UNICODE_BREAKS,
    UTF16_BOMS,
    plain_slug,
    slugs_named,
)

_LOOSE_END = LOOSE_END.encode()
# Characters that can open a value spanning lines (flow collections, quoted text), inside
# which a `subject:` line would not be the note's subject.
_MULTILINE_OPENERS = re.compile(rb"[\"'{\[]")
# The common record, matched in one step: the block opens with a plain `subject: slug` line
# whose value does not go on below it (the next line is neither indented nor blank), and
# closes within these bytes, with no '\\' anywhere in it.
_COMMON_RECORD = re.compile(
    OPENING_LINE
    + rb"subject[ \t]*:[ \t]*("
    + SLUG.encode()
    + rb")[ \t]*\r?\n(?![ \t\r\n]|"
    + UNICODE_BREAKS
    + rb")"
    + rb"(?:(?!"
    + CLOSING_LINE
    + rb")[^\\\n]*\n)*?"
    + CLOSING_LINE
)


def plainly_not_about(subject: bytes | None, start: bytes | bytearray, length: int | None = None) -> bool:
    """True when a note beginning with these bytes cannot be a record of `subject` (None: of
    any subject) nor a broken note that could be about it.  `start` may be the whole note or
    only its beginning; with `length`, only its first `length` bytes count (a reused buffer:
    the common cases are decided without copying the note out of it)."""
    end = len(start) if length is None else length
    common = _COMMON_RECORD.match(start, 0, end)
    if common is not None:
        # A record of that one slug: about `subject` only if it is that slug or names it
        # elsewhere in the block (an alias, say — then it is read to make sure).
        slug = common.group(1)
        end = common.end()
        if NOT_TEXT.fullmatch(slug) or OTHER_BREAKS.search(start, 0, end):
            return False  # the slug is no text to YAML, or YAML's lines are not these
        return subject is not None and slug != subject and start.find(subject, 0, end) < 0
    if not start.startswith(BLOCK_STARTS, 0, end):
        # No properties block: never a record, never a broken note about a subject — unless
        # it is UTF-16 (with its BOM), which the full reading decodes to find out.
        return not start.startswith(UTF16_BOMS, 0, end)
    return _not_about(bytes(start[:end]), subject)


def _not_about(start: bytes, subject: bytes | None) -> bool:
    """plainly_not_about for a note that opens a properties block of a less common shape."""
    closing = CLOSING.search(start, 3)
    if closing is None:
        return False  # unterminated, or longer than what was read: read it whole
    block = start[: closing.start()]
    if b"\\" in block:
        return False  # a YAML escape can spell a name or slug these bytes do not show
    # Up to the closing line's '\n', so a CRLF block's last '\r' is seen as the CRLF it is.
    if OTHER_BREAKS.search(start, 0, closing.start() + 1):
        return False  # YAML's lines (and where the block ends) are not the ones seen here
    if b"subject" not in block:
        return True
    if subject is None or subject in block:
        return False
    if block.find(_LOOSE_END) >= 0:
        # A line such as '--- x' or '---x: 1': a broken note's subject is then looked for
        # only above it (note.invalid_from_head), so the line below proves nothing.
        return False
    return _names_only_other_subjects(block)


def _names_only_other_subjects(block: bytes) -> bool:
    """Does the block's own `subject:` line plainly name slugs (none of them the one asked)?"""
    found = SUBJECT_LINE_BYTES.search(block)
    if found is None:
        return False  # a quoted or nested `subject` key: only YAML can say
    after = block[found.end() + 1 : found.end() + 2]
    if after in (b" ", b"\t", b"\r", b"\n"):
        return False  # the value may go on below, over an indented or blank line
    before = block[: found.start()]
    if _MULTILINE_OPENERS.search(before) and not _complete_properties(before):
        return False  # the line might sit inside a value opened above it
    # None of them is the one asked: the block does not hold it.
    value = found.group(1).strip(b" \t\r")
    return plain_slug(value) or slugs_named(value) is not None  # the common plain slug asked first


def _complete_properties(lines: bytes) -> bool:
    """Are these whole lines flat properties, each value closed on its own lines?"""
    try:
        text = lines.decode("utf-8")
    except UnicodeDecodeError:
        return False
    # Drop the opening '---' line; what follows is what YAML reads.
    return read_flat_properties(text.partition("\n")[2].replace("\r\n", "\n").replace("\r", "\n")) is not None
