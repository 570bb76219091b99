"""One fresh pass over a vault: list it, read every note, parse each one.  Nothing is kept."""

from __future__ import annotations

import os
import stat
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TypeVar, assert_never, overload

from vault_recall.server.errors import NoteChanged, NoteTooLarge
from vault_recall.server.obsidian.note import InvalidNote, Note, parse_note
from vault_recall.server.recall.finding.looking import Looked, Told, Verdict
from vault_recall.server.recall.finding.one_note import read_one, undecodable_note, unreadable_folder
from vault_recall.server.recall.finding.record_tally import Tally, plain_note
from vault_recall.server.recall.finding.subject_prefilter import plainly_not_about
from vault_recall.server.recall.records import MemoryRecord, as_record
from vault_recall.server.recall.subject_rules import NO_RULES, SubjectRules
from vault_recall.server.vault.folders import FolderChain
from vault_recall.server.vault.listing import VaultListing
from vault_recall.server.vault.note_files import (
    START_BYTES,
    NoteBytes,
    read_note_bytes,
    read_note_if,
    read_rest,
    read_start,
    start_buffer,
)
from vault_recall.server.vault.settings import TemplateFolders


def each_note(
    root: Path, listing: VaultListing, rules: SubjectRules = NO_RULES
) -> Iterator[tuple[Note | None, InvalidNote | None]]:
    """Every note, read and parsed in full, one at a time: (note, None) for a valid note,
    (None, problem) for one that cannot be read, and (note, problem) for a note shown and
    reported — one whose properties cannot be read (the note as Obsidian still shows it) or
    whose record properties break the rules."""
    for parsed in each_parsed(root, listing):
        yield as_seen(parsed, rules)


def as_seen(parsed: Note | InvalidNote, rules: SubjectRules = NO_RULES) -> tuple[Note | None, InvalidNote | None]:
    """A parsed note as `each_note` gives it: the note shown (if any) and its problem (if any)."""
    if isinstance(parsed, InvalidNote):
        return parsed.readable, parsed
    record = as_record(parsed, rules)
    return parsed, record if isinstance(record, InvalidNote) else None


def as_listed(templates: TemplateFolders, parsed: Note | InvalidNote | None) -> Note | InvalidNote | None:
    """A note of the listing as every tool takes it.  One in a template folder is a template
    (`Note.template`): the note as Obsidian shows it, never a record nor a problem — nothing
    at all when none of it could be read.  Any other note is as parsed."""
    if parsed is None or not templates.holds(parsed.path):
        return parsed
    note = parsed.readable if isinstance(parsed, InvalidNote) else parsed
    return None if note is None else replace(note, template=True)


def _not_templates(templates: TemplateFolders, paths: Sequence[str]) -> Sequence[str]:
    """The paths outside the template folders: what a pass for records reads (a template is
    neither a record nor a problem, whatever its properties say)."""
    return [path for path in paths if not templates.holds(path)] if templates.prefixes else paths


def each_parsed(
    root: Path, listing: VaultListing, worth: Callable[[bytes | bytearray], bool] | None = None
) -> Iterator[Note | InvalidNote]:
    """Every note parsed, one at a time — or, with `worth`, only those whose bytes it keeps.

    `worth` is shown a note's exact bytes before any decoding or parsing; a note it refuses is
    skipped.  A tool may refuse only notes that could change neither its hits nor its problems
    (a byte test proven a superset of its exact one: text_prefilter.py).  What cannot be read
    — an unreadable folder, a name that is not UTF-8, a note over the size limit or one that
    cannot be opened — is never shown to `worth` and always given; a template as `as_listed` makes it.
    """
    parsed = _each_parsed(root, listing, worth)
    templates = listing.templates
    if not templates.prefixes:
        return parsed
    return (kept for note in parsed if (kept := as_listed(templates, note)) is not None)


def _each_parsed(
    root: Path, listing: VaultListing, worth: Callable[[bytes | bytearray], bool] | None
) -> Iterator[Note | InvalidNote]:
    yield from (unreadable_folder(folder) for folder in listing.unreadable_folders)
    yield from (undecodable_note(root, name) for name in listing.undecodable)
    if worth is None:
        with FolderChain(root) as chain:
            for path in listing.paths:
                parsed = read_one(chain, path)
                if parsed is not None:
                    yield parsed
        return
    # Most notes fit the first read whole: those are judged in the reused buffer, and only the
    # ones kept are copied out and parsed.
    buffer = start_buffer()
    size = len(buffer)

    def skip(start: bytes | bytearray, length: int) -> bool:
        return length < size and not worth(start[:length])

    with FolderChain(root) as chain:
        for path in listing.paths:
            try:
                raw = read_note_if(chain, path, skip, buffer)
            except (OSError, NoteTooLarge):
                parsed = read_one(chain, path)  # read again, to report the failure properly
                if parsed is not None:
                    yield parsed
                continue
            if raw is None or (len(raw.data) >= size and not worth(raw.data)):
                continue
            yield parse_note(path, raw.data, raw.mtime_ns)


T = TypeVar("T")


def each_looked_at(
    root: Path, listing: VaultListing, look: Callable[[str, bytes], Verdict[T]]
) -> Iterator[Note | InvalidNote | Looked[T]]:
    """Every note, shown to `look` as its exact whole bytes first: "skip" skips it, "parse"
    has it parsed (given as each_parsed gives it), and Told is given as `Looked` —
    what `look` made of the bytes, when it could tell all the call needs without parsing.

    `look` may skip only notes that could change neither the call's answer nor its problems,
    and must answer for the others exactly as their parsing would.  Notes in the template
    folders are never shown to it (as_listed makes them templates), nor is what cannot be read
    — an unreadable folder, a name that is not UTF-8, a note over the size limit or one that
    cannot be opened — which is given as each_parsed gives it.
    """
    templates = listing.templates
    unread = [unreadable_folder(folder) for folder in listing.unreadable_folders]
    unread += [undecodable_note(root, name) for name in listing.undecodable]
    yield from (kept for note in unread if (kept := as_listed(templates, note)) is not None)
    buffer = start_buffer()
    size = len(buffer)
    with FolderChain(root) as chain:
        for path in listing.paths:
            if templates.prefixes and templates.holds(path):
                if (kept := as_listed(templates, read_one(chain, path))) is not None:
                    yield kept
                continue
            try:
                read = _look_at(chain, path, look, buffer, size)
            except (OSError, NoteTooLarge):
                parsed = read_one(chain, path)  # read again, to report the failure properly
                if parsed is not None:
                    yield parsed
                continue
            if read is None:
                continue
            data, mtime_ns, verdict = read
            match verdict:
                case "skip":
                    pass
                case "parse":
                    yield parse_note(path, data, mtime_ns)
                case Told():
                    yield Looked(path, verdict.seen, mtime_ns)  # not Told(seen): half the cost
                case _:
                    assert_never(verdict)


def _look_at(
    chain: FolderChain, path: str, look: Callable[[str, bytes], Verdict[T]], buffer: bytearray, size: int
) -> tuple[bytes, int, Verdict[T]] | None:
    """One note for each_looked_at, in one open: its bytes, time and what `look` answered of
    them — None when it skipped the note on the first read, as most notes fit it: before
    anything else is asked of the file."""
    fd = chain.open_note(path)
    try:
        start, length = read_start(fd, buffer)
        data = bytes(memoryview(start)[:length])
        if length < size:
            verdict = look(path, data)
            if verdict == "skip":
                return None
            st = os.fstat(fd)
            if stat.S_ISREG(st.st_mode) and st.st_size == length:
                return data, st.st_mtime_ns, verdict
        # Larger than the first read, or changing while read: read whole, and looked at whole.
        raw = read_rest(fd, path, start, length)
        return raw.data, raw.mtime_ns, look(path, raw.data)
    finally:
        os.close(fd)


@overload
def each_record(
    root: Path,
    listing: VaultListing,
    subject: str | None,
    worth: Callable[[bytes | bytearray], bool] | None = None,
    rules: SubjectRules = NO_RULES,
    look: None = None,
) -> Iterator[MemoryRecord | InvalidNote]: ...
@overload
def each_record(
    root: Path,
    listing: VaultListing,
    subject: str | None,
    worth: Callable[[bytes | bytearray], bool] | None = None,
    rules: SubjectRules = NO_RULES,
    *,
    look: Callable[[str, bytes], Verdict[T]],
) -> Iterator[MemoryRecord | InvalidNote | Looked[T]]: ...
def each_record(
    root: Path,
    listing: VaultListing,
    subject: str | None,
    worth: Callable[[bytes | bytearray], bool] | None = None,
    rules: SubjectRules = NO_RULES,
    look: Callable[[str, bytes], Verdict[T]] | None = None,
) -> Iterator[MemoryRecord | InvalidNote | Looked[T]]:
    """The records of `subject` (None: of every subject) and the invalid notes that could be
    about it, one at a time, so a caller that only counts keeps nothing.

    Every note is opened, but only its start is read first: a note that cannot be a record of
    `subject` is skipped on those bytes, before any decoding or YAML — no properties block, no
    `subject` in it, or a `subject:` line that plainly names other subjects (see
    subject_prefilter.py).  Anything less plain is read whole and parsed, so the answer is the
    same as from `each_note` (tests/server/recall/finding/test_fast_scan.py checks that on generated vaults).  The
    template folders' notes are not even opened: a template is neither a record nor a problem.
    With `worth`, a note read whole whose bytes it refuses is skipped too (as each_parsed).

    `rules`: the vault's subject rules.  A note one of them could take (subject_rules.py:
    under its folder, or its bytes holding its tag or value) is read whole and parsed too.

    `look`, as each_looked_at's: shown the whole bytes of each note read whole, it has it
    parsed ("parse"), skipped ("skip": it could change neither the call's answer nor its
    problems) or given as `Looked` (Told).
    """
    wanted = subject.encode("ascii") if subject is not None else None
    taking = rules.of_subject(subject)

    skip: Callable[[bytes | bytearray, int], bool] = partial(plainly_not_about, wanted)  # no wrapper frame
    if taking.text_rules:
        by_properties = skip

        def skip_unless_ruled(start: bytes | bytearray, length: int) -> bool:
            # A note longer than what was read might hold a rule's text further on.
            return by_properties(start, length) and length < START_BYTES and not taking.text_may_match(start[:length])

        skip = skip_unless_ruled
    ruled_skip: Callable[[bytes | bytearray, int], bool] = _never_skip  # a note a rule takes by its path
    if worth is not None:
        # As each_parsed: a note is refused on its bytes only when they were read whole.
        by_subject = skip

        def unworthy(start: bytes | bytearray, length: int) -> bool:
            return length < START_BYTES and not worth(start[:length])

        def skip_also(start: bytes | bytearray, length: int) -> bool:
            return by_subject(start, length) or unworthy(start, length)

        skip, ruled_skip = skip_also, unworthy
    by_path = taking.by_path if taking.path_rules else None

    yield from (unreadable_folder(folder) for folder in listing.unreadable_folders)
    yield from (undecodable_note(root, name) for name in _not_templates(listing.templates, listing.undecodable))
    buffer = start_buffer()
    with FolderChain(root) as chain:
        for path in _not_templates(listing.templates, listing.paths):
            parsed: Note | InvalidNote | None
            try:
                ruled = by_path is not None and by_path(path)
                raw = read_note_if(chain, path, ruled_skip if ruled else skip, buffer)
            except (OSError, NoteTooLarge):
                parsed = read_one(chain, path)  # read again, to report the failure properly
            else:
                if raw is None:
                    continue
                verdict: Verdict[T] = "parse" if look is None else look(path, raw.data)
                match verdict:
                    case "skip":
                        continue
                    case "parse":
                        parsed = parse_note(path, raw.data, raw.mtime_ns)
                    case Told():
                        yield Looked(path, verdict.seen, raw.mtime_ns)
                        continue
                    case _:
                        assert_never(verdict)
            # record_item, inline: this loop runs for every note a recall cannot skip.
            if parsed is None:
                continue
            if isinstance(parsed, InvalidNote):
                yield parsed
                continue
            record = as_record(parsed, rules)
            if record is None or (isinstance(record, MemoryRecord) and subject and subject not in record.subjects):
                continue  # an ordinary note, or a record of other subjects only
            yield record


def each_tally(root: Path, listing: VaultListing, rules: SubjectRules = NO_RULES) -> Iterator[Tally | InvalidNote]:
    """What `list_subjects` counts — every valid record's subjects, status, kind and time —
    and every invalid note, one at a time.

    As each_record(subject=None), but a record whose properties block is of the plainest shape
    is counted from its bytes (record_tally.py) without being decoded or parsed; any other
    note is read whole and parsed as there — and so is every note a subject rule may take.
    """
    yield from (unreadable_folder(folder) for folder in listing.unreadable_folders)
    yield from (undecodable_note(root, name) for name in _not_templates(listing.templates, listing.undecodable))
    buffer = start_buffer()
    with FolderChain(root) as chain:
        for path in _not_templates(listing.templates, listing.paths):
            parsed: Note | InvalidNote | None
            try:
                read = _tally_or_read(chain, path, buffer, rules)
            except (OSError, NoteTooLarge):
                parsed = read_one(chain, path)  # read again, to report the failure properly
            else:
                if not isinstance(read, NoteBytes):
                    if read is not None:
                        yield read
                    continue
                parsed = parse_note(path, read.data, read.mtime_ns)
            item = record_item(parsed, None, rules) if parsed is not None else None
            if isinstance(item, MemoryRecord):
                yield Tally(item.subjects, item.status, item.kind, item.note.mtime_ns)
            elif item is not None:
                yield item


def _tally_or_read(chain: FolderChain, path: str, buffer: bytearray, rules: SubjectRules) -> Tally | NoteBytes | None:
    """One note for each_tally: None when it cannot be a record, its Tally when its bytes
    show a plain record, else its whole bytes to parse."""
    fd = chain.open_note(path)
    try:
        start, length = read_start(fd, buffer)
        whole = length < len(buffer)
        if rules and rules.may_take(path, start[:length] if whole else b"", whole):
            return read_rest(fd, path, start, length)  # a subject rule may take it: parsed
        # A likely record (`subject` in its first 512 bytes) is matched once, by the plain grammar;
        # others ask the cheaper prefilter first, which skips most notes of a real vault.
        likely = whole and start.find(b"subject", 0, min(length, 512)) > 0
        if not likely and plainly_not_about(None, start, length):
            return None
        plain = plain_note(start, length) if whole else None
        if plain is None and likely and plainly_not_about(None, start, length):
            return None
        if plain is None:
            return read_rest(fd, path, start, length)
        if plain.record is None:
            return None  # a valid ordinary note: no record
        st = os.fstat(fd)  # the whole note as it is now, or read on (a short read, a note growing)
        if stat.S_ISREG(st.st_mode) and st.st_size == length:
            return Tally(*plain.record, mtime_ns=st.st_mtime_ns)
        return read_rest(fd, path, start, length)
    finally:
        os.close(fd)


def record_item(
    parsed: Note | InvalidNote, subject: str | None, rules: SubjectRules = NO_RULES
) -> MemoryRecord | InvalidNote | None:
    """A parsed note as `each_record` gives it: the record (of `subject`, when given) or the
    problem — None for an ordinary note or a record of other subjects only."""
    if isinstance(parsed, InvalidNote):
        return parsed
    record = as_record(parsed, rules)
    if record is None or (isinstance(record, MemoryRecord) and subject and subject not in record.subjects):
        return None
    return record


def _never_skip(start: bytes | bytearray, length: int) -> bool:
    return False


# A call that finds a note changed between finding and answering starts over this many times.
ATTEMPTS = 3
CHANGING_REASON = f"notes kept changing while they were read ({ATTEMPTS} times); ask again"


def read_again(root: Path, path: str, size: int, crc: int) -> Note:
    """The note at `path`, read again for the few records an answer returns (calls keep only
    numbers for the many they find).  Raises NoteChanged unless its bytes are still those matched:
    `size` bytes of CRC-32 `crc` (the SHA-256 revision is worked out for these notes only)."""
    try:
        raw = read_note_bytes(root, path)
    except (OSError, NoteTooLarge):
        raise NoteChanged(path) from None
    if len(raw.data) != size or zlib.crc32(raw.data) != crc:
        raise NoteChanged(path)
    parsed = parse_note(path, raw.data, raw.mtime_ns)
    note = parsed.readable if isinstance(parsed, InvalidNote) else parsed
    if note is None:
        raise NoteChanged(path)
    return note
