"""The one way in for a note: bytes → `Note` (or `InvalidNote` with a reason a person can act on)."""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property

from vault_recall.server.errors import PropertiesError
from vault_recall.server.obsidian.note_bytes import (
    LOOSE_END,
    SLUG_TEXT,
    SUBJECT_LINE_TEXT,
    TOP_LEVEL_KEY,
    UTF16_BOMS,
    lf_text,
)
from vault_recall.server.obsidian.properties import SplitNote, parse_properties, split_properties
from vault_recall.server.obsidian.syntax import (
    Heading,
    Link,
    parse_headings,
    parse_inline_tags,
    parse_links,
    wikilinks_in,
)
from vault_recall.server.obsidian.values import PropertyValue
from vault_recall.server.vault.paths import NOTE_SUFFIX

_SUBJECT_ANYWHERE = re.compile(r"(?:^|[{,])[ \t]*[\"']?subject[\"']?[ \t]*:", re.MULTILINE)
# A `status` or `kind` key in a block that cannot be read: the note may be an archived record
# or an event, so it is never taken for a current one.
_STATE_ANYWHERE = re.compile(r"(?:^|[{,])[ \t]*[\"']?(?:status|kind)[\"']?[ \t]*:", re.MULTILINE)


@dataclass(frozen=True)
class Note:
    """A parsed, valid note.  Built fresh on every call; never cached.

    Built for every note a call cannot rule out, so only what every such note needs is worked
    out here; the rest (headings, revision, time, property lines) when first asked.
    """

    path: str  # vault-relative with '/', including .md
    title: str  # the file name without .md: Obsidian's note name
    properties: Mapping[str, PropertyValue]
    aliases: tuple[str, ...]
    tags: tuple[str, ...]
    body: str  # the text after the properties block, LF line endings
    data: bytes = field(repr=False)  # the exact file bytes
    mtime_ns: int = 0
    yaml_text: str | None = field(default=None, repr=False)  # the properties block as written
    body_first_line: int = 1  # the file line the body starts on (after the properties block)
    # In the vault's template folder (vault/settings.py): a note all the same, never a record.
    template: bool = False

    @cached_property
    def revision(self) -> str:
        """SHA-256 of the exact file bytes."""
        return hashlib.sha256(self.data).hexdigest()

    @cached_property
    def modified(self) -> str:
        """The file's modification time, ISO-8601 UTC."""
        return iso_utc(self.mtime_ns)

    @cached_property
    def property_lines(self) -> Mapping[str, int]:
        """Property name → the file line it is written on."""
        return top_level_key_lines(self.yaml_text or "")

    # Obsidian syntax, parsed at most once per note and only by the tools that need it.
    @cached_property
    def links(self) -> tuple[Link, ...]:
        return parse_links(self.body)

    @cached_property
    def property_links(self) -> tuple[tuple[str, Link], ...]:
        """Wikilinks written in property values (`related: "[[Plan]]"`), with the property name;
        Obsidian counts them as links too."""
        found: list[tuple[str, Link]] = []
        for key, value in self.properties.items():
            for text in _texts(value):
                found.extend((key, link) for link in wikilinks_in(text))
        return tuple(found)

    @cached_property
    def lines(self) -> list[str]:
        return self.body.split("\n")

    @cached_property
    def headings(self) -> tuple[Heading, ...]:
        return parse_headings(self.body)

    @cached_property
    def all_tags(self) -> tuple[str, ...]:
        """Tag properties and inline tags, each once."""
        return tuple(dict.fromkeys((*self.tags, *parse_inline_tags(self.body))))


@dataclass(frozen=True)
class InvalidNote:
    """A note that cannot be trusted as written, and what could be told about it anyway.

    `mentions_subject` and `subjects` decide whether it could be in scope of a recall:
    `subjects` is None when the subject property is present but unreadable.  `readable` is the
    note as Obsidian still shows it when only its properties are broken (or its text is not
    UTF-8): its body, links and properties lines, without properties — None when the file
    could not be read at all.  `unread`: its bytes (or its folder) could not be read at all
    (permissions), so nothing is known of it — not even whether it is a record a client may see.
    `mentions_state`: its unreadable block has a `status` or `kind` key (read loosely, as
    `mentions_subject` is), so it may be an archived record or an event.
    """

    path: str
    reason: str
    mentions_subject: bool
    subjects: tuple[str, ...] | None
    readable: Note | None = field(default=None, repr=False, compare=False)
    unread: bool = False
    mentions_state: bool = False


def _texts(value: PropertyValue) -> list[str]:
    if isinstance(value, str):
        return [value] if "[[" in value else []
    if isinstance(value, list):
        return [text for item in value for text in _texts(item)]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _texts(item)]
    return []


def note_title(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name[: -len(NOTE_SUFFIX)] if name.endswith(NOTE_SUFFIX) else name


_LATEST = dt.datetime(9999, 12, 31, 23, 59, 59, tzinfo=dt.UTC)
_EARLIEST = dt.datetime(1, 1, 1, tzinfo=dt.UTC)


def iso_utc(mtime_ns: int) -> str:
    """A file time as ISO-8601 UTC; times past year 9999 or before year 1 (some file systems
    store them) are shown as the nearest representable moment."""
    return _shown_moment(mtime_ns).isoformat().replace("+00:00", "Z")


def _shown_moment(mtime_ns: int) -> dt.datetime:
    try:
        return dt.datetime.fromtimestamp(mtime_ns / 1e9, tz=dt.UTC).replace(microsecond=0)
    except (OverflowError, OSError, ValueError):
        return _LATEST if mtime_ns > 0 else _EARLIEST


_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_SECOND_NS = 1_000_000_000
# Below 2**32 s (the year 2106) a float holds a time in seconds to better than a microsecond,
# so iso_utc's second is the time's own whole second unless it is within 10 µs of the next one
# (where rounding to microseconds may carry).
_PLAIN_TIMES_NS = 2**32 * _SECOND_NS
_CARRY_NS = _SECOND_NS - 10_000


def modified_second(mtime_ns: int) -> int:
    """The second `iso_utc(mtime_ns)` shows, as whole seconds since 1970: the same order and the
    same ties as the text, without making it (a search orders every note with a hit by it)."""
    if 0 <= mtime_ns < _PLAIN_TIMES_NS and mtime_ns % _SECOND_NS < _CARRY_NS:
        return mtime_ns // _SECOND_NS
    return (_shown_moment(mtime_ns) - _EPOCH) // dt.timedelta(seconds=1)


def decode_note_text(data: bytes) -> str:
    """UTF-8 (BOM allowed) to text with LF line endings; raises UnicodeDecodeError."""
    text = data.decode("utf-8")
    if text.startswith("\ufeff"):
        text = text[1:]
    return lf_text(text)


def parse_note(path: str, data: bytes, mtime_ns: int) -> Note | InvalidNote:
    """Parse one note's exact bytes.  Never raises for bad content: that is an InvalidNote,
    which still carries the note as Obsidian shows it (`readable`)."""
    try:
        text = decode_note_text(data)
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        reason = f"{path}, line {line}: not UTF-8 text (byte 0x{data[exc.start]:02x}); save it as UTF-8"
        # Obsidian shows such a note with replacement characters; so is it read here.
        lossy = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
        return _unreadable_properties(path, data, mtime_ns, lf_text(lossy), reason)
    try:
        split = split_properties(text)
        properties = parse_properties(split.yaml_text) if split.yaml_text is not None else {}
    except PropertiesError as exc:
        return _unreadable_properties(path, data, mtime_ns, text, f"{path}, line {exc.line}: {exc.problem}")
    # Obsidian's own text lists: an entry that is no text (a mapping in `aliases`) is skipped.
    aliases = text_list(properties.get("aliases"))
    tags = text_list(properties.get("tags"), strip_hash=True)
    return _note(path, data, mtime_ns, split, properties, tuple(aliases), tuple(tags))


# What the text `text_list` makes of a YAML number can hold as a word: digits, 'e' ('1e+20'),
# 'inf' (1e400) — none of which need be in the note's bytes ('0x1F' is '31').  A word this
# does not fullmatch is in a number's text only where it is in its bytes.
NUMBER_WORD = re.compile(r"[0-9e]*|i|in|inf|n|nf|f")


def text_list(value: PropertyValue, *, strip_hash: bool = False) -> list[str]:
    """Read `aliases`/`tags`-style values: a single text or a list of texts → list of texts.

    Numbers are taken as text (`tags: [2024]`); anything else that is no text (a mapping, a
    nested list, true/false) is skipped, as Obsidian skips it, and the rest are kept.
    """
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    out: list[str] = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, str | int | float):
            continue
        text = str(item).strip()
        if strip_hash:
            text = text.lstrip("#")
        if text:
            out.append(text)
    return out


def _note(
    path: str,
    data: bytes,
    mtime_ns: int,
    split: SplitNote,
    properties: Mapping[str, PropertyValue],
    aliases: tuple[str, ...],
    tags: tuple[str, ...],
) -> Note:
    body = split.body[1:] if split.yaml_text is not None and split.body.startswith("\n") else split.body
    # Lines before the body: '---', the YAML lines, the closing '---'.
    body_first_line = 1 if split.yaml_text is None else split.yaml_text.count("\n") + 2
    return Note(
        path=path,
        title=note_title(path),
        properties=properties,
        aliases=aliases,
        tags=tags,
        body=body,
        data=data,
        mtime_ns=mtime_ns,
        yaml_text=split.yaml_text,
        body_first_line=body_first_line,
    )


def _unreadable_properties(path: str, data: bytes, mtime_ns: int, text: str, reason: str) -> InvalidNote:
    """A note whose properties cannot be read: the problem, and the note as Obsidian still shows
    it — its body after a closed block (or the whole text after one never closed), no properties."""
    try:
        split = split_properties(text)
    except PropertiesError:
        split = SplitNote(yaml_text=None, body=text)
    readable = _note(path, data, mtime_ns, split, {}, (), ())
    return replace(invalid_from_head(path, data, reason), readable=readable)


def top_level_key_lines(yaml_text: str) -> dict[str, int]:
    """Where each top-level property is written, as a line of the note file (for reasons)."""
    lines: dict[str, int] = {}
    for index, text_line in enumerate(yaml_text.split("\n")):
        found = TOP_LEVEL_KEY.match(text_line)
        if found:
            lines.setdefault(found.group(2), index + 1)
    return lines


def invalid_from_head(path: str, head: bytes, reason: str) -> InvalidNote:
    """Build an InvalidNote, reading what can still be read of its `subject` from raw bytes.

    Used for notes whose properties cannot be parsed, so the check is deliberately loose:
    a `subject:` line in the leading properties block makes the note "could be in scope".
    """
    encoding = "utf-16" if head.startswith(UTF16_BOMS) else "utf-8"
    text = lf_text(head.decode(encoding, errors="replace"))  # a lone CR ends a line too, as parse_note reads it
    text = text[1:] if text.startswith("\ufeff") else text  # one BOM, as decode_note_text
    if not text.startswith("---"):
        return InvalidNote(path=path, reason=reason, mentions_subject=False, subjects=())
    block = text.split(LOOSE_END, 1)[0]
    state = _STATE_ANYWHERE.search(block) is not None
    found = SUBJECT_LINE_TEXT.search(block)
    if found:
        subjects = _read_subject_hint(found, block)
        return InvalidNote(path, reason, mentions_subject=True, subjects=subjects, mentions_state=state)
    if _SUBJECT_ANYWHERE.search(block):
        # A quoted key or a flow mapping ({subject: …}): it names a subject, we cannot say which.
        return InvalidNote(path=path, reason=reason, mentions_subject=True, subjects=None, mentions_state=state)
    return InvalidNote(path=path, reason=reason, mentions_subject=False, subjects=(), mentions_state=state)


def _read_subject_hint(found: re.Match[str], block: str) -> tuple[str, ...] | None:
    value = found.group(1).strip().strip("'\"")
    if SLUG_TEXT.fullmatch(value):
        return (value,)
    if value.startswith("[") and value.endswith("]"):
        items = [item.strip().strip("'\"") for item in value[1:-1].split(",")]
        return tuple(items) if items and all(SLUG_TEXT.fullmatch(i) for i in items) else None
    if value == "":
        items = []
        for line in block[found.end() :].split("\n")[1:]:
            item = re.match(r"^\s+-\s+(.*)$", line)
            if not item:
                break
            items.append(item.group(1).strip().strip("'\""))
        return tuple(items) if items and all(SLUG_TEXT.fullmatch(i) for i in items) else None
    return None
