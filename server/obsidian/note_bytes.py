"""What a note's bytes mean, written once for every reader of a note: how its text is encoded
and broken into lines, where its properties block opens and closes, what a property name, a
YAML keyword and a subject slug look like.

Two kinds of reader take these rules from here.  The full reading (note.py, properties.py,
flat_properties.py) decodes a note and builds it; the fast paths of recall (record_tally.py,
whose plainest-block grammar answers for view.py, search.py and unheld.py too, and
subject_prefilter.py) decide from the raw bytes what that reading would give, or say they
are unsure.  Each rule is one pattern source, compiled here for text and for bytes
alike where both kinds of reader need it, so the two cannot drift apart on it; the
equivalence tests (tests/server/recall/finding/test_fast_scan.py, test_record_tally.py,
test_seen_from_bytes.py, tests/server/obsidian/test_flat_properties.py) prove the rest.

Imports nothing of ours: every layer above may use it.
"""

from __future__ import annotations

import codecs
import re

# --- Encoding and lines -----------------------------------------------------------------------

# The one byte order mark decoding drops (UTF-8's), and those that mark a UTF-16 file (which a
# note is not, but whose properties the full reading still looks into for a broken note).
UTF8_BOM = b"\xef\xbb\xbf"
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
# How a note starts when the fast readers leave it to the full reading, which decodes it
# whole: a BOM before no properties block (BLOCK_STARTS takes one before a block), or UTF-16's.
BOM_STARTS = (UTF8_BOM, *UTF16_BOMS)
# Line breaks YAML knows besides '\n' and '\r\n' (a lone CR, NEL, the Unicode line and
# paragraph separators): where a block holds one, YAML's lines are not the lines seen in bytes.
UNICODE_BREAKS = rb"\xc2\x85|\xe2\x80[\xa8\xa9]"  # NEL, U+2028, U+2029 as UTF-8
OTHER_BREAKS = re.compile(rb"\r(?!\n)|" + UNICODE_BREAKS)


def is_utf8(start: bytes | bytearray, length: int) -> bool:
    """Are the first `length` bytes of `start` UTF-8 text (what the full reading decodes)?"""
    if len(start) == length and start.isascii():
        return True  # the whole note, and ASCII: no need to decode it
    try:
        codecs.utf_8_decode(memoryview(start)[:length], "strict", True)
    except UnicodeDecodeError:
        return False
    return True


def lf_text(text: str) -> str:
    """A note's text with LF line endings: CRLF and a lone CR each one '\\n', as every reader
    of a note numbers its lines."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def lf_bytes(data: bytes) -> bytes:
    """The same for a note's bytes (UTF-8 never writes '\\r' or '\\n' inside a character)."""
    return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n") if b"\r" in data else data


# Once its line endings are LF, a line of a note runs up to the next '\n': this is the rest
# of the line after a match on it (a pattern for text; `.encode()` it for bytes).
REST_OF_LINE = r"[^\n]*"


# --- The properties block ---------------------------------------------------------------------

# The line that opens a properties block (the note's first) and the one that closes it: exactly
# '---', blanks after it allowed — Obsidian takes no '----', and a line such as '---x: 1' is a
# property, not the end.
DELIMITER = r"---[ \t]*"
DELIMITER_LINE = re.compile(rf"^{DELIMITER}$", re.MULTILINE)
# In bytes: how a note with a block begins (after at most the one BOM decoding drops), a whole
# opening line, and the closing line found from the block's start.
BLOCK_STARTS = (b"---", UTF8_BOM + b"---")
OPENING_LINE = rb"(?:\xef\xbb\xbf)?" + DELIMITER.encode() + rb"\r?\n"
CLOSING_LINE = DELIMITER.encode() + rb"\r?\n"
CLOSING = re.compile(rb"\n" + CLOSING_LINE)
# Where a broken note's block is taken to end when the note cannot be read as written: at the
# first line starting '---', whatever follows on it (note.invalid_from_head looks for its
# subject only above that line, and subject_prefilter mirrors it).
LOOSE_END = "\n---"

# --- Properties -------------------------------------------------------------------------------

# A property name YAML reads as plain text: ASCII, starting with a letter or '_', short (YAML
# refuses names over 1024 characters).
PROPERTY_NAME = r"[A-Za-z_][A-Za-z0-9_-]{0,127}"
# A date as YAML 1.2 would read one, and as the record rules want it written: YYYY-MM-DD.
DATE = r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
# Plain words YAML 1.2's core schema reads as booleans or null rather than text (`yes`, `on`,
# `No` are text there, as Obsidian shows them).
KEYWORDS: dict[str, bool | None] = {
    **dict.fromkeys(("true", "True", "TRUE"), True),
    **dict.fromkeys(("false", "False", "FALSE"), False),
    **dict.fromkeys(("null", "Null", "NULL"), None),
}
KEYWORD_BYTES = frozenset(word.encode("ascii") for word in KEYWORDS)

# --- The subject ------------------------------------------------------------------------------

# A subject as the record rules accept one: a slug (always used with fullmatch).
SLUG = r"[a-z0-9-]{1,64}"
SLUG_TEXT = re.compile(SLUG)
SLUG_BYTES = re.compile(SLUG.encode())
# Slugs YAML may not read as that text: booleans, null, numbers in any base and exponent
# (`1e3` is a number to YAML 1.2), date-like runs (always used with fullmatch; a slug is
# lowercase, so these spellings are all there are).  YAML 1.1's `yes`/`on` stay listed: a
# reader that is unsure only reads the note whole.
NOT_TEXT = re.compile(
    rb"yes|no|on|off|true|false|null|[-+]?0x[0-9a-f]+|0o[0-7]+|[-+]?0b[01]+|[0-9-]*|-?[0-9]+e-?[0-9]+"
)
_QUOTES = (b"'", b'"')


def plain_slug(value: bytes) -> bool:
    """Is this unquoted value a slug YAML reads as that very text?"""
    return SLUG_BYTES.fullmatch(value) is not None and NOT_TEXT.fullmatch(value) is None


def slugs_named(value: bytes) -> tuple[bytes, ...] | None:
    """The slugs a property's value, written on its line (blanks around it dropped, no '\\' in
    it), names as YAML reads it — a plain slug, a quoted one (quoted text is text, whatever it
    spells) or a flow list of plain slugs; None for anything else, which only YAML can read."""
    first = value[:1]
    if first in _QUOTES:
        inner = value[1:-1]
        plain = len(value) > 2 and value[-1:] == first and SLUG_BYTES.fullmatch(inner) is not None
        return (inner,) if plain else None
    if first == b"[" and value.endswith(b"]"):
        if b"'" in value or b'"' in value:
            return None  # quoted items may hold commas: only YAML can split them
        items = tuple(item.strip(b" \t") for item in value[1:-1].split(b","))
        return items if all(plain_slug(item) for item in items) else None
    return (value,) if plain_slug(value) else None


# A `subject:` line at the start of a line of the block, with what is written after the colon.
_SUBJECT_LINE = r"^subject[ \t]*:([^\n]*)$"
SUBJECT_LINE_TEXT = re.compile(_SUBJECT_LINE, re.MULTILINE)
SUBJECT_LINE_BYTES = re.compile(_SUBJECT_LINE.encode(), re.MULTILINE)

# --- Lines of a block, for people ------------------------------------------------------------

# A line that starts a top-level property as a person reads the block — its name quoted or
# not, group 2 — to point a reason at the line a property is written on (used with match).
TOP_LEVEL_KEY = re.compile(r"""(["']?)([^\s"'#:\-{\[][^:]*?)\1[ \t]*:""")
