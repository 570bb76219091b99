"""What one client can see of the vault on one call, decided note by note as a pass reads it.

Notes outside the exposure are never visible here, so no tool built on these can show, count
or name them.  (tests/support/whole_vault.py holds the same rules applied to a whole scan at once: the
reference the streaming tools are checked against.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

from vault_recall.server.errors import NoteChanged, VaultUnavailable
from vault_recall.server.obsidian.note import InvalidNote, Note
from vault_recall.server.obsidian.note_bytes import BLOCK_STARTS, BOM_STARTS, is_utf8
from vault_recall.server.recall.finding.record_tally import plain_note
from vault_recall.server.recall.finding.scan import ATTEMPTS, CHANGING_REASON, as_seen, each_parsed, each_record
from vault_recall.server.recall.finding.text_prefilter import Worth
from vault_recall.server.recall.packing import answer, pack, shorten_to_bytes
from vault_recall.server.recall.records import MemoryRecord, as_record
from vault_recall.server.recall.results import Envelope, Packed, Problem
from vault_recall.server.recall.scope import Exposure, Scope
from vault_recall.server.vault.listing import VaultListing, list_notes, vault_name

MAX_REASON_BYTES = 400

E = TypeVar("E", bound=Envelope)  # any tool's result, or its envelope before packing
H = TypeVar("H", bound=Envelope)  # a tool's envelope before packing
R = TypeVar("R")  # a record of the tool's result
P = TypeVar("P", bound=Packed)  # the tool's result


def in_view(exposure: Exposure, parsed: Note | MemoryRecord | InvalidNote) -> tuple[Note | None, InvalidNote | None]:
    """One freshly parsed note (or the record made of it) as a client sees it: (the note if
    visible, the problem if shown).  Both, for a note shown in the whole vault whose record
    properties are broken, or whose properties cannot be read (the note as Obsidian still
    shows it: no record, so never visible to a client that sees records only).  The visibility
    rules of every tool, in one place."""
    if isinstance(parsed, InvalidNote):
        if exposure.mode == "vault":
            return parsed.readable, parsed
        # Told of it exactly when recall and list_subjects would be (could_be_about): a note
        # naming a subject it may see, or one a rule of such a subject may take.  A note or
        # folder that could not be read at all might be anything: only a client that may see
        # every note is told of it (the person sees it in health and the tray) — or one that
        # sees a subject whose rules take notes where it is.
        exposed = sorted(exposure.subjects) if exposure.mode == "subjects" else None
        return None, parsed if could_be_about(parsed, exposed, exposure) else None
    record = parsed if isinstance(parsed, MemoryRecord) else as_record(parsed, exposure.rules)
    note = parsed.note if isinstance(parsed, MemoryRecord) else parsed
    if isinstance(record, InvalidNote):
        return (note if exposure.mode == "vault" else None), in_view(exposure, record)[1]
    if exposure.mode == "vault":
        return note, None
    if record is not None and exposure.allows_record_subjects(record.subjects):
        return note, None
    return None, None


def seen_from_bytes(exposure: Exposure, data: bytes, path: str = "") -> bool | None:
    """Whether a client sees a note outside the template folders (`in_view` gives it the
    note or a problem), told from its bytes when they are plain enough; None: parse it.

    Every call checks every note the client holds (changed_since.py), and parsing each was most
    of that check.  A client that sees the whole vault sees every note, valid or broken.
    Any other sees records of its subjects only: a note with no properties block is none (if
    its text is UTF-8 and starts with no BOM), and one whose block is of the plainest shape is
    told by record_tally.plain_note; anything else — and any note a subject rule may take (its
    `path` under a rule's folder, its bytes holding a rule's tag or value) — is parsed."""
    if exposure.mode == "vault":
        return True
    if exposure.rules.may_take(path, data):
        return None
    if data.startswith(BLOCK_STARTS):
        plain = plain_note(data, len(data))
        if plain is None:
            return None
        return plain.record is not None and exposure.allows_record_subjects(plain.record[0])
    if data.startswith(BOM_STARTS) or not is_utf8(data, len(data)):
        return None
    return False


def could_be_about(note: InvalidNote, subjects: Sequence[str] | None, exposure: Exposure) -> bool:
    """Could this invalid note be a record of one of `subjects` (None: of any subject this
    client may see), so that an answer about them may lack it?  Only when that cannot be ruled
    out.

    A client limited to some subjects is never shown a broken note whose subject cannot be
    read: it might belong to a subject the client was not given, and its path alone says too
    much.  The person still sees it in `vault-recall health` and the tray.
    """
    if note.unread:  # unreadable: it might be anything (see in_view)
        return exposure.mode == "vault" or _ruled_within(note.path, subjects, exposure)
    if _ruled_about(note, subjects, exposure):
        return True
    if not note.mentions_subject:
        return False
    if note.subjects is None:
        return exposure.mode != "subjects"
    if subjects is None:
        return True
    return any(s in note.subjects for s in subjects)


def _ruled_about(note: InvalidNote, subjects: Sequence[str] | None, exposure: Exposure) -> bool:
    """Could a subject rule take this broken note for one of `subjects` — by its path, or by
    its text (its properties cannot be read, so a tag or value in it proves nothing either
    way)?  Not for a note naming its own subject: the rules never take those."""
    rules = exposure.rules
    if not rules or note.mentions_subject:
        return False
    asked = [s for s in (subjects if subjects is not None else rules.subjects) if exposure.allows_subject(s)]
    data = note.readable.data if note.readable is not None else b""
    return any(rules.of_subject(s).may_take(note.path, data) for s in asked)


def _ruled_within(path: str, subjects: Sequence[str] | None, exposure: Exposure) -> bool:
    """Could a rule of one of `subjects` take a note in the folder (or the note) at `path`,
    which could not be read: the folder is in a rule's folder or holds it, or the daily notes'
    — or a tag or property rule, which takes notes wherever they are.  Only its path is known."""
    rules = exposure.rules
    asked = [s for s in (subjects if subjects is not None else rules.subjects) if exposure.allows_subject(s)]
    for subject in asked:
        own = rules.of_subject(subject)
        if own.text_rules or own.by_path(path):
            return True
        folders = [rule.folder_prefix for rule in own.rules if rule.folder_prefix is not None]
        daily = own.daily
        if daily is not None:
            folders.append(daily.folder)
        if any(folder.startswith(path) or path.startswith(folder) for folder in folders):
            return True
    return False


def visible_notes(exposure: Exposure, listing: VaultListing, worth: Worth | None = None) -> Iterator[Note]:
    """The notes a client may see, one at a time, read fresh — with `worth`, only those whose
    bytes it keeps (text_prefilter.py) or that it is not shown whole."""
    if exposure.mode == "vault":
        for parsed in each_parsed(listing.root, listing, worth):
            note, _ = as_seen(parsed, exposure.rules)
            if note is not None:
                yield note
        return
    for item in each_record(listing.root, listing, None, worth, exposure.rules):
        note, _ = in_view(exposure, item)
        if note is not None:
            yield note


def problem(note: InvalidNote) -> Problem:
    return {"path": note.path, "reason": shorten_to_bytes(note.reason, MAX_REASON_BYTES)}


def unavailable(result: E, reason: str) -> E:
    """`result` made an `unavailable` answer: the vault could not be read, `reason` says why."""
    result["status"] = "unavailable"
    result["reason"] = shorten_to_bytes(reason, MAX_REASON_BYTES)
    return result


def listing_or_unavailable(scope: Scope, result: Envelope) -> VaultListing | None:
    """List the scope's vault, or turn `result` into an `unavailable` answer and return None."""
    if scope.vault is None:
        unavailable(result, scope.why or "no vault is configured")
        return None
    if "vault" in result:
        result["vault"] = vault_name(scope.vault)
    if scope.notice is not None:
        result["notice"] = scope.notice
    try:
        return list_notes(scope.vault)
    except VaultUnavailable as exc:
        unavailable(result, str(exc))
        return None


def answer_anew(
    scope: Scope,
    envelope: H,
    result_of: Callable[[H, list[R]], P],
    find: Callable[[VaultListing], tuple[Sequence[R], list[Problem]]],
    *,
    budget: int,
    limit: int,
    packer: Callable[[P, Sequence[R], list[Problem]], P] | None = None,
) -> P:
    """The packed answer of one pass — `find` gives the ranked candidates (shaped by reading
    notes again) and the problems — starting over when a note read again has changed since
    the pass found it, and `unavailable` when that keeps happening.

    `result_of(envelope, records)` is the tool's result, `{**envelope, "records": records,
    "omitted": 0}` typed as the tool's own: made once the vault is read or found unavailable,
    so that a `reason` goes before the records.  `packer(result, candidates, problems)` packs
    them, when the tool packs otherwise than `packing.answer` does (it may raise NoteChanged).
    """
    for _ in range(ATTEMPTS):
        listing = listing_or_unavailable(scope, envelope)
        if listing is None:
            return pack(result_of(envelope, []), [], budget=budget, limit=limit)
        candidates, problems = find(listing)
        try:
            if packer is not None:
                return packer(result_of(envelope, []), candidates, problems)
            return answer(result_of(envelope, []), candidates, budget=budget, limit=limit, problems=problems)
        except NoteChanged:
            continue
    return pack(result_of(unavailable(envelope, CHANGING_REASON), []), [], budget=budget, limit=limit)
