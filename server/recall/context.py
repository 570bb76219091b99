"""Fresh, scoped, bounded recall: the logic behind `recall_context` and `list_subjects`.

Every function reads the vault anew through scan.py and returns a plain dict shaped by the
recall contract (`status` ok / degraded / unavailable, `untrusted: true`).  Bad arguments and
requests outside the client's exposure raise; storage trouble becomes a status.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from vault_recall.server.errors import InvalidArgument, show_value
from vault_recall.server.obsidian.note import InvalidNote, iso_utc
from vault_recall.server.obsidian.syntax import parse_inline_tags
from vault_recall.server.obsidian.uri import obsidian_uri
from vault_recall.server.recall.arguments import check_choice, check_query, check_range, check_subject
from vault_recall.server.recall.packing import MAX_PROBLEMS, Shaped, json_size, json_text_size, shorten_to_bytes
from vault_recall.server.recall.records import MemoryRecord, is_calendar_date
from vault_recall.server.recall.scan import each_record, each_tally, read_again
from vault_recall.server.recall.scope import Exposure, Scope
from vault_recall.server.recall.view import answer_anew, kept, listing_or_unavailable
from vault_recall.server.recall.words import words
from vault_recall.server.vault.listing import VaultListing, vault_name

BUDGET_RANGE = (512, 65536)
LIMIT_RANGE = (1, 20)
ACTIVITY_LIMIT_RANGE = (1, 50)
MATCH_MODES = ("all", "any")
_MAX_REASON_BYTES = 400

# Where a query word can be found, and how much a hit there says about relevance:
# a note named or aliased after the word is about it; a body mention may be in passing.
FIELD_WEIGHTS = {"title": 4, "aliases": 4, "heading": 2, "tags": 2, "body": 1}


@dataclass(frozen=True, slots=True)
class _Match:
    """A record that matched, as numbers and names: a large vault can match thousands, and
    the text of each would be most of a call's memory.  The few returned are read again."""

    path: str
    title: str
    text_size: int  # the text's size as a JSON string
    revision: str
    modified: str
    matched: dict[str, list[str]]  # query word → fields it was found in
    score: int
    date: str | None = None


def recall_context(
    scope: Scope, subject: str, query: str, budget: int = 4096, limit: int = 3, match: str = "all"
) -> dict[str, Any]:
    """Current evidence for one subject: active decision records matching the query."""
    check_subject(subject)
    wanted = check_query(query)
    check_range("budget", budget, *BUDGET_RANGE)
    check_range("limit", limit, *LIMIT_RANGE)
    check_choice("match", match, MATCH_MODES)
    scope.exposure.require_subject(subject, scope.client)

    def find(record: MemoryRecord) -> _Match | None:
        if record.status != "active" or record.kind != "decision":
            return None
        found = _match(record, wanted)
        return found if found is not None and (match == "any" or len(found.matched) == len(wanted)) else None

    def rank(matches: list[_Match]) -> None:
        # Best first: most words, highest score, newest, then by path (stable sorts, last key first).
        matches.sort(key=lambda m: m.path)
        matches.sort(key=lambda m: m.modified, reverse=True)
        matches.sort(key=lambda m: (len(m.matched), m.score), reverse=True)

    return _answer(scope, subject, find, rank, budget=budget, limit=limit)


def recall_activity(
    scope: Scope,
    subject: str,
    on_or_after: str | None = None,
    query: str | None = None,
    budget: int = 4096,
    limit: int = 5,
) -> dict[str, Any]:
    """History for one subject: active `kind: event` records, newest `date` first."""
    check_subject(subject)
    if on_or_after is not None and not is_calendar_date(on_or_after):
        raise InvalidArgument(f"on_or_after must be a real date written YYYY-MM-DD; got {show_value(on_or_after)}")
    wanted = check_query(query) if query is not None else None
    check_range("budget", budget, *BUDGET_RANGE)
    check_range("limit", limit, *ACTIVITY_LIMIT_RANGE)
    scope.exposure.require_subject(subject, scope.client)

    def find(record: MemoryRecord) -> _Match | None:
        if record.status != "active" or record.kind != "event":
            return None
        if on_or_after is not None and (record.date or "") < on_or_after:
            return None
        if not wanted:
            return _slim(record, {}, 0)
        found = _match(record, wanted)
        return found if found is not None and len(found.matched) == len(wanted) else None

    def rank(events: list[_Match]) -> None:
        # Newest date first, then newest note, then by path (stable sorts, last key first).
        events.sort(key=lambda e: e.path)
        events.sort(key=lambda e: e.modified, reverse=True)
        events.sort(key=lambda e: e.date or "", reverse=True)

    return _answer(scope, subject, find, rank, budget=budget, limit=limit, dated=True)


def _answer(
    scope: Scope,
    subject: str,
    find: Callable[[MemoryRecord], _Match | None],
    rank: Callable[[list[_Match]], None],
    *,
    budget: int,
    limit: int,
    dated: bool = False,
) -> dict[str, Any]:
    """One pass over the subject's records: `find` keeps the matches (as numbers), `rank`
    orders them, and the answer is packed reading again only the records it returns — starting
    over if one of those changed since it was matched."""
    envelope: dict[str, Any] = {"status": "ok", "untrusted": True, "vault": None, "subject": subject}
    vault = vault_name(scope.vault) if scope.vault is not None else ""

    def shape(found: _Match, root: Path) -> dict[str, Any]:
        return _shape(found, vault, read_again(root, found.path, found.revision).body, dated)

    def size(found: _Match) -> int:
        # The text's size was measured when it matched: only returned records are read again.
        return json_size(_shape(found, vault, "", dated)) - json_size("") + found.text_size

    def find_matches(listing: VaultListing) -> tuple[Shaped, list[dict[str, str]]]:
        problems: list[dict[str, str]] = []
        matches: list[_Match] = []
        for record in each_record(listing.root, listing, subject):
            if isinstance(record, InvalidNote):
                if _could_be_about(record, [subject], scope.exposure):
                    problems.append(_problem(record))
            elif subject in record.subjects and (found := find(record)) is not None:
                matches.append(found)
        rank(matches)
        return Shaped(matches, partial(shape, root=listing.root), at_least=_least_size, size=size), problems

    return answer_anew(scope, envelope, find_matches, budget=budget, limit=limit)


def list_subjects(scope: Scope) -> dict[str, Any]:
    """The subjects this client may ask about, with record counts per subject."""
    result: dict[str, Any] = {"status": "ok", "untrusted": True, "vault": None, "subjects": [], "problems": []}
    listing = listing_or_unavailable(scope, result)
    if listing is None:
        return result
    counts: dict[str, dict[str, Any]] = {}
    newest: dict[str, int] = {}
    invalid: list[InvalidNote] = []
    # Counted as the records go by: nothing of a note is kept once it is counted.
    for record in each_tally(listing.root, listing):
        if isinstance(record, InvalidNote):
            invalid.append(kept(record))
            continue
        for subject in record.subjects:
            if not scope.exposure.allows_subject(subject):
                continue
            entry = counts.setdefault(subject, {"subject": subject, "active": 0, "archived": 0, "events": 0})
            if record.status == "archived":
                entry["archived"] += 1
            elif record.kind == "event":
                entry["events"] += 1
            else:
                entry["active"] += 1
            newest[subject] = max(newest.get(subject, record.mtime_ns), record.mtime_ns)
    result["subjects"] = [{**counts[s], "modified": iso_utc(newest[s])} for s in sorted(counts)]
    exposed = sorted(scope.exposure.subjects) if scope.exposure.mode == "subjects" else None
    problems = [_problem(p) for p in invalid if _could_be_about(p, exposed, scope.exposure)]
    result["problems"] = problems[:MAX_PROBLEMS]
    if len(problems) > MAX_PROBLEMS:
        result["problems_omitted"] = len(problems) - MAX_PROBLEMS
    if problems:
        result["status"] = "degraded"
    return result


def _could_be_about(note: InvalidNote, subjects: Sequence[str] | None, exposure: Exposure) -> bool:
    """An invalid note is in scope when it cannot be ruled out (`subjects` None: any subject).

    A client limited to some subjects is never shown a broken note whose subject cannot be
    read: it might belong to a subject the client was not given, and its path alone says too
    much.  The person still sees it in `vault-recall health` and the tray.
    """
    if note.unread:
        return exposure.mode == "vault"  # unreadable: it might be anything (see view.in_view)
    if not note.mentions_subject:
        return False
    if note.subjects is None:
        return exposure.mode != "subjects"
    if subjects is None:
        return True
    return any(s in note.subjects for s in subjects)


def _problem(note: InvalidNote) -> dict[str, str]:
    return {"path": note.path, "reason": shorten_to_bytes(note.reason, _MAX_REASON_BYTES)}


def _fields_holding(record: MemoryRecord, wanted: list[str]) -> dict[str, set[str]]:
    """For each field, which of the wanted words it holds (as `words` splits the field).

    Every field but the body is a few words.  The body is the cost: in the common case of an
    ASCII body, NFKC is the identity and casefolding is lowercasing, so a wanted word is among
    its words exactly when it appears in the lowered body between non-word characters — a
    substring test and a regex, instead of splitting the whole body into words.
    """
    note = record.note
    body = note.body
    if body.isascii():
        lowered = body.lower()
        in_text = [word for word in wanted if word in lowered]
        in_body = {word for word in in_text if _holds(lowered, word)}
        # An inline tag is '#' and a run of non-blank characters of the body: only a word found
        # in such a run can be in one, and only then are the tags worth parsing.
        tagged = bool(in_text) and any(word in run for run in _HASH_RUNS.findall(lowered) for word in in_text)
        inline = _all_words(parse_inline_tags(body)) if tagged else []
    else:
        in_body = set(words(body)).intersection(wanted)
        inline = _all_words(parse_inline_tags(body))
    return {
        "title": set(words(note.title)).intersection(wanted),
        "aliases": set(_all_words(note.aliases)).intersection(wanted),
        "heading": set(words(note.heading or "")).intersection(wanted),
        "tags": set(_all_words(note.tags)).union(inline).intersection(wanted),
        "body": in_body,
    }


# '#' and the non-blank characters after it: where an inline tag can be.  Found run by run
# (a pattern like '#\S*word' would backtrack over every long run, once per '#').
_HASH_RUNS = re.compile(r"#\S+")


# Places `find` tries before the regex takes over: a word found a million times inside other
# words of one note ('y' in a megabyte of 'yyyy') would otherwise cost a Python loop turn each.
_FIND_TRIES = 32


def _holds(lowered_ascii: str, word: str) -> bool:
    """Is `word` one of the `\\w+` runs of this lowercased ASCII text?  (Found by `find` and a
    look at the characters on each side: a regex with lookbehinds scans every character, so it
    is used only past the first few places where the word sits inside a longer one.)"""
    size = len(word)
    start = lowered_ascii.find(word)
    tries = 0
    while start >= 0:
        end = start + size
        before = lowered_ascii[start - 1] if start else " "
        after = lowered_ascii[end] if end < len(lowered_ascii) else " "
        if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
            return True
        tries += 1
        if tries == _FIND_TRIES:
            return _whole_word(word).search(lowered_ascii, start + 1) is not None
        start = lowered_ascii.find(word, start + 1)
    return False


@functools.lru_cache(maxsize=64)
def _whole_word(word: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![0-9a-z_]){re.escape(word)}(?![0-9a-z_])")


def _all_words(texts: Iterable[str]) -> list[str]:
    return [w for text in texts for w in words(text)]


def _match(record: MemoryRecord, wanted: list[str]) -> _Match | None:
    fields = _fields_holding(record, wanted)
    matched: dict[str, list[str]] = {}
    score = 0
    for word in wanted:
        where = [name for name, found in fields.items() if word in found]
        if where:
            matched[word] = where
            score += max(FIELD_WEIGHTS[name] for name in where)
    if not matched:
        return None
    return _slim(record, matched, score)


def _slim(record: MemoryRecord, matched: dict[str, list[str]], score: int) -> _Match:
    note = record.note
    return _Match(
        path=note.path,
        title=note.title,
        text_size=json_text_size(note.body),
        revision=note.revision,
        modified=note.modified,
        matched=matched,
        score=score,
        date=record.date,
    )


def _least_size(found: _Match) -> int:
    # The text and path are written whole (JSON escaping only adds), each character a byte at least.
    return found.text_size + len(found.path)


def _shape(found: _Match, vault: str, text: str, dated: bool) -> dict[str, Any]:
    shaped = {
        "path": found.path,
        "title": found.title,
        "text": text,
        "revision": found.revision,
        "modified": found.modified,
        "uri": obsidian_uri(vault, found.path),
        "matched": found.matched,
    }
    return {**shaped, "date": found.date} if dated else shaped
