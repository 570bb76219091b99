"""Two `serve` processes — one of an earlier commit, one of this tree — asked the same calls
over the same vault, their answers compared field by field.

What is asked comes from the vault's own notes (tests/support/asked_calls.py); what may differ
is declared here, each difference checked as narrowly as the change that explains it:

- `weak_mark`: a recall's `weak_match` goes from true to false, nothing else in the answer
  changed, and a record returned holds at least three quarters of the query's words together
  (`coverage` ≥ 0.75): the nearly-all rule of ranking/record_terms.satisfies;
- `fence_links`: get_backlinks finds more lines, each in a note holding a fence line the
  earlier reading of fences got wrong (`fence_sensitive`), the lines it found before kept in
  order — judged on both servers' whole listings, each answer a page of its own;
- `fence_headings`: read_note of such a note lists other sections (and has the one asked for
  instead of saying it has none), and a recall's record of such a note holds its words in
  other places (`matched`, `coverage`) — a heading after the block is one now;
- `descriptions`: the sentence on `weak_match` in the server's instructions, and in
  recall_context's description the sentences on `coverage` and `weak_match`;
- `more_named`: a recall whose matches did not all fit names more of them in `omitted_best`
  (those it named before first, in the same order, at most five), nothing else in the answer
  changed: names may use what the records left of the budget, not only its eighth;
- `weak_mark and more_named`: both of those in one recall, each part of the answer as its
  own declaration allows;
- `fewer_problems`: a recall without a subject (across the whole vault) names fewer broken notes,
  each it names now named before (or among those it only counted), `ok` once it has none —
  a broken note holding no word of the query is no problem of it — and what that leaves of the
  budget packs the same matches otherwise: as many in all (returned and counted), the records
  returned in both in the same order (a larger one may now fit where a smaller one came).
- `broken_shown`: a recall without a subject (across the whole vault) ranks, beside its
  problem, a note whose properties cannot be read (unheld.shown_anyway), its problems
  as `fewer_problems` allows them (none new, the status theirs): every record it returns that
  it did not name before is a broken note either answer names (any match, when fewer problems
  left more of the budget), `omitted_best` names at most five (`more_named`); the notes named
  in both keep their order, each record and problem both hold is held alike, field by field
  (a first record given without its text may come whole in the budget fewer problems left); a
  record it no longer returns is named in `omitted_best`, or gave way to a broken note or to
  that first record now whole, or (fewer problems) to a better match `omitted_best` named
  before; and its matches (returned and counted) and
  `current_records` grow by at most the broken notes the earlier answer counted (all of the
  vault's, whatever was asked).
- `problem_share`: a recall (by subject or not) names its problems within an eighth of its
  budget (the first whenever it fits in half) and, across the whole vault, a broken note ranked
  as Obsidian shows it only when returned or when its properties' values hold a word asked:
  each problem it names now was named or counted before, no more in all (named and counted),
  the status theirs, and the records packed as `fewer_problems` allows.
- `nothing_here`: a recall with no current records to look at says in its hint, after "there
  are no current records here", what the person can do (`vault-recall subject suggest`,
  `vault-recall subject add SUBJECT --folder FOLDER` naming the subject asked), nothing else
  changed;
- `strict_fields`: a `match: "all"` recall finds a word in any heading of a note (before: only
  in its first `#` heading) and weighs its hits with ranking's table (a title or alias hit 3,
  not 4), so it may return and name other records of the same matches, in another order:
  every record returned and named holds every word asked; the records come best field hits
  first (each word the weight of the best field `matched` lists it in: title or alias 3,
  heading or tag 2, body 1), ties newest first, then by path, and the names best first; as
  many matches in all (more only by the broken notes the earlier answer counted, as `passages`
  allows); a record both return is the same but for `heading` among the fields a word is
  found in (never a field less), and its text as `passages` allows it; the rest of the
  answer as the earlier one's, or as another declared change allows;
- `strict_hint`: an empty `match: "all"` recall says that no record holds every word as written
  instead of "no current record holds any meaningful word", nothing else changed;
- `closest`: a ranked recall that was empty with the hint that no record holds any meaningful
  word returns records now — each with `coverage` 0 and `weak_match: true`, no hint — the
  closest records, holding a meaningful word that is not required (a subject's own word, a
  general word, a hyphenated word's part), the rest of the envelope as it was;
- `correction_counts`: a recall whose records hold a misspelt word's correction (`matched`
  'verisons → versions', the same in both) has a higher `coverage` for them, and may no longer
  be marked weak: a correction counts as the word asked;
- `known_word`: a query word the earlier tree took for another ('insurance → instance') is one
  a language knows and is not respelled now: no record or name holds a correction of it, and
  what the answer holds of it changes with that (its records, names, coverage, hint and mark).
- `passages`: a recall shares its budget among its first `limit` records, a note larger than
  its share given as its best passages (answers/passages.py): the same matches (returned and
  counted; across the whole vault, more by at most the broken notes counted, as `broken_shown`
  ranks them), the same first record (or one where there was none), every record returned whole
  the same as before, every record given as passages holds its note's own text — verbatim
  slices of the whole text the earlier answer gave, when it gave it — and nothing but the
  records, `omitted`, `omitted_best` and (of the records returned) `weak_match` differs; in
  recall_context's and recall_activity's descriptions, the sentences on their limits and their
  records' shape.
- `told_otherwise`: with recalls packed otherwise (`passages`), a server hands out other notes
  than the earlier one did, so a later call of any tool tells of changes to other notes in
  `changed_since_recalled`: each change both tell is told alike, and the rest of the answer
  differs only as another declaration allows.

Anything else is a difference the test reports, with the call and both values.
"""

from __future__ import annotations

import itertools
import json
import os
import re
from collections import Counter
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import CallToolResult, TextContent

from vault_recall.server.recall.ranking.known_words import LIST_NAMES, knows
from vault_recall.server.recall.ranking.words import fold_for_ranking, query_words

Json = Any
RECALLS = ("recall_context", "recall_activity")
NEARLY_ALL = 0.75

# A fence line the earlier reading took wrongly: a fence line in a quote (inside a fence opened
# outside it, it closed or opened one), one indented four columns or more, and a backtick line
# whose info string holds a backtick (inline code, not a fence).
_FENCE_SENSITIVE = re.compile(
    r"^[ \t]*>[ \t>]*(?:```|~~~)|^(?: {4}|\t)[ \t>]*(?:```|~~~)|^[ \t>]*```[^`\n]*`", re.MULTILINE
)


def fence_sensitive(vault: Path) -> frozenset[str]:
    """Vault paths of the notes whose fences the two readings may tell apart."""
    found = set()
    for path in vault.rglob("*.md"):
        if path.is_file() and _FENCE_SENSITIVE.search(path.read_bytes().decode("utf-8", "replace")):
            found.add(path.relative_to(vault).as_posix())
    return frozenset(found)


@dataclass(frozen=True)
class Side:
    """How to start one of the two servers: its command and its environment."""

    command: Sequence[str]
    env: Mapping[str, str]

    def params(self, client: str, cwd: Path) -> StdioServerParameters:
        command = [*self.command, "serve", "--client", client]
        return StdioServerParameters(command=command[0], args=command[1:], env=dict(self.env), cwd=str(cwd))


def answer_of(result: CallToolResult) -> Json:
    """What a call answered: its structured result, or its error's text."""
    if result.is_error:
        texts = [block.text for block in result.content if isinstance(block, TextContent)]
        return {"error": texts}
    return {"result": result.structured_content}


@dataclass(frozen=True)
class Difference:
    tool: str
    args: Mapping[str, Json]
    where: str
    before: Json
    after: Json

    def __str__(self) -> str:
        said = f"{self.tool}({dict(self.args)}) at {self.where}"
        return f"{said}: before {_short(self.before)}, after {_short(self.after)}"


def _short(value: Json, most: int = 400) -> str:
    said = repr(value)
    return said if len(said) <= most else said[: most - 20] + f"… ({len(said)} characters)"


def differences(before: Json, after: Json, where: str = "") -> Iterator[tuple[str, Json, Json]]:
    """(where, before, after) for each place the two values differ, as deep as both go."""
    if isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(set(before) | set(after)):
            missing = "<absent>"
            yield from differences(before.get(key, missing), after.get(key, missing), f"{where}.{key}")
    elif isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        for index, (one, other) in enumerate(zip(before, after, strict=True)):
            yield from differences(one, other, f"{where}[{index}]")
    elif before != after or type(before) is not type(after):
        yield where, before, after


def _weak_mark(tool: str, diffs: Sequence[tuple[str, Json, Json]], after: Json) -> bool:
    if tool not in RECALLS or list(diffs) != [(".result.weak_match", True, False)]:
        return False
    records = after["result"]["records"]
    return any(NEARLY_ALL <= r.get("coverage", 0) < 1 for r in records)


def _more_named(tool: str, diffs: Sequence[tuple[str, Json, Json]], before: Json, after: Json) -> bool:
    if tool != "recall_context" or [where for where, _, _ in diffs] != [".result.omitted_best"]:
        return False
    named_before = before["result"].get("omitted_best", [])
    named_after = after["result"].get("omitted_best", [])
    return len(named_before) < len(named_after) <= 5 and named_after[: len(named_before)] == named_before


_SHARED = (".result.records", ".result.omitted", ".result.omitted_best", ".result.weak_match")


def _passages(tool: str, diffs: Sequence[tuple[str, Json, Json]], before: Json, after: Json) -> bool:
    """The `passages` change (module docstring)."""
    if tool not in RECALLS or not all(where.startswith(_SHARED) for where, _, _ in diffs):
        return False
    was, now = before["result"], after["result"]
    # As many matches — or, across the whole vault, more by broken notes now ranked as shown
    # (`broken_shown`), at most as many as the earlier answer counted.
    grown = len(now["records"]) + now["omitted"] - len(was["records"]) - was["omitted"]
    broken = len(was.get("problems", [])) + was.get("problems_omitted", 0)
    if not 0 <= grown <= broken:
        return False
    if was["records"] and (not now["records"] or now["records"][0]["path"] != was["records"][0]["path"]):
        return False
    whole_before = {r["path"]: r.get("text") for r in was["records"]}
    for record in now["records"]:
        if "passages" not in record:
            # Whole now and whole before: the same record (one given without text before may be whole).
            if whole_before.get(record["path"]) is not None and record not in was["records"]:
                return False
            continue
        text = whole_before.get(record["path"])
        if text is not None and not all(p["text"] in text for p in record["passages"]):
            return False
    return any("passages" in r for r in now["records"]) or len(now["records"]) != len(was["records"])


_PACKED = (
    ".result.problems",
    ".result.problems_omitted",
    ".result.status",
    ".result.records",
    ".result.omitted",
    ".result.omitted_best",
    ".result.weak_match",  # of the records returned, when another now fits
)


def _fewer_problems(
    tool: str, args: Mapping[str, Json], diffs: Sequence[tuple[str, Json, Json]], before: Json, after: Json
) -> bool:
    if tool != "recall_context" or args.get("subject") is not None:
        return False
    if not all(where.startswith(_PACKED) for where, _, _ in diffs) or "result" not in before or "result" not in after:
        return False
    old, new = before["result"], after["result"]
    had = [p["path"] for p in old.get("problems", [])]
    kept = [p["path"] for p in new.get("problems", [])]
    fewer = len(kept) + new.get("problems_omitted", 0) < len(had) + old.get("problems_omitted", 0)
    named_before = all(path in had for path in kept) or old.get("problems_omitted", 0) > 0
    status = new["status"] == ("degraded" if kept or new.get("problems_omitted", 0) else "ok")
    records_old, records_new = old.get("records", []), new.get("records", [])
    same_total = len(records_old) + old.get("omitted", 0) == len(records_new) + new.get("omitted", 0)
    # One ranking packed into more room: the records (and names) both answers give come in the
    # same order in each, though a larger one may now fit where a smaller one came before.
    paths_old, paths_new = [r["path"] for r in records_old], [r["path"] for r in records_new]
    both = set(paths_old) & set(paths_new)
    same_order = [p for p in paths_old if p in both] == [p for p in paths_new if p in both]
    # No note twice in either answer, returned or named.
    named_old = [*paths_old, *(r["path"] for r in old.get("omitted_best", []))]
    named_new = [*paths_new, *(r["path"] for r in new.get("omitted_best", []))]
    distinct = len(set(named_old)) == len(named_old) and len(set(named_new)) == len(named_new)
    return fewer and named_before and status and same_total and same_order and distinct


def _problems_shared(args: Mapping[str, Json], old: Json, new: Json) -> bool:
    """The problems of `new` as `problem_share` allows them from `old`: changed, none new, no
    more in all, each told alike, the status theirs, within an eighth of the budget."""
    had = [p["path"] for p in old.get("problems", [])]
    kept = [p["path"] for p in new.get("problems", [])]
    changed = (had, old.get("problems_omitted", 0)) != (kept, new.get("problems_omitted", 0))
    no_more = len(kept) + new.get("problems_omitted", 0) <= len(had) + old.get("problems_omitted", 0)
    named_before = all(path in had for path in kept) or old.get("problems_omitted", 0) > 0
    status = new["status"] == ("degraded" if kept or new.get("problems_omitted", 0) else "ok")
    budget = args.get("budget", 4096)
    shared = len(kept) <= 1 or sum(len(_json(p)) + 1 for p in new.get("problems", [])) - 1 <= budget // 8
    named_old = {p["path"]: p for p in old.get("problems", [])}
    alike = all(named_old.get(p["path"], p) == p for p in new.get("problems", []))
    return changed and no_more and named_before and status and shared and alike


# What a record holds whatever room it had: packing never changes these.
_MATCH_FIELDS = ("path", "title", "revision", "modified", "uri", "matched", "coverage", "date")


def _problem_share(
    tool: str, args: Mapping[str, Json], diffs: Sequence[tuple[str, Json, Json]], before: Json, after: Json
) -> bool:
    if tool not in RECALLS or "result" not in before or "result" not in after:
        return False
    if not all(where.startswith(_PACKED) for where, _, _ in diffs):
        return False
    old, new = before["result"], after["result"]
    if not _problems_shared(args, old, new):
        return False
    records_old, records_new = old.get("records", []), new.get("records", [])
    same_total = len(records_old) + old.get("omitted", 0) == len(records_new) + new.get("omitted", 0)
    paths_old, paths_new = [r["path"] for r in records_old], [r["path"] for r in records_new]
    both = set(paths_old) & set(paths_new)
    same_order = [p for p in paths_old if p in both] == [p for p in paths_new if p in both]
    # No record both hold matched otherwise (a coverage is no matter of how many problems are
    # named), and the weak mark changes only with the records returned.
    held = {r["path"]: r for r in records_old}

    def alike(was: Json, now: Json) -> bool:
        # The same record; or one given without text before, whole in the room fewer problems left.
        stub = "text" not in was and "passages" not in was
        return was == now or (stub and all(was.get(k) == now.get(k) for k in _MATCH_FIELDS))

    records_alike = all(alike(held[r["path"]], r) for r in records_new if r["path"] in held)
    same_mark = old.get("weak_match") == new.get("weak_match") or paths_old != paths_new
    return same_total and same_order and records_alike and same_mark


def _passages_and_problem_share(
    tool: str, args: Mapping[str, Json], diffs: Sequence[tuple[str, Json, Json]], before: Json, after: Json
) -> bool:
    """Both at once: fewer problems named (`problem_share`) and a large record as passages in the
    room they leave (`passages`)."""
    if tool not in RECALLS or "result" not in before or "result" not in after:
        return False
    problems = [d for d in diffs if d[0].startswith((".result.problems", ".result.status"))]
    rest = [d for d in diffs if d not in problems]
    if not problems or not rest or not _problems_shared(args, before["result"], after["result"]):
        return False
    return _passages(tool, rest, before, after)


def _json(value: Json) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def _broken_shown(
    tool: str, args: Mapping[str, Json], diffs: Sequence[tuple[str, Json, Json]], before: Json, after: Json
) -> bool:
    if tool != "recall_context" or args.get("subject") is not None or "result" not in before or "result" not in after:
        return False
    if not all(where.startswith((*_PACKED, ".result.current_records")) for where, _, _ in diffs):
        return False
    old, new = before["result"], after["result"]
    had = [p["path"] for p in old.get("problems", [])]
    kept = [p["path"] for p in new.get("problems", [])]
    # The problems as `fewer_problems` allows them: none new, the status theirs.
    named_before = all(path in had for path in kept) or old.get("problems_omitted", 0) > 0
    status = new["status"] == ("degraded" if kept or new.get("problems_omitted", 0) else "ok")
    # Every broken note of the vault was a problem of the earlier answer (whatever was asked).
    broken = set(had) | set(kept)
    bound = len(had) + old.get("problems_omitted", 0)

    def named(answer: Json) -> list[str]:
        return [r["path"] for r in (*answer.get("records", []), *answer.get("omitted_best", []))]

    named_old, named_new = named(old), named(new)
    # A record it did not name before is a broken note; a name more in omitted_best may be any
    # match, as `more_named` allows (at most five names).
    only_new = [r["path"] for r in new.get("records", []) if r["path"] not in named_old]
    few_names = len(new.get("omitted_best", [])) <= 5
    both = set(named_old) & set(named_new)
    same_order = [p for p in named_old if p in both] == [p for p in named_new if p in both]
    total_old = len(old.get("records", [])) + old.get("omitted", 0)
    total_new = len(new.get("records", [])) + new.get("omitted", 0)
    grown = 0 <= total_new - total_old <= bound
    counted = 0 <= new.get("current_records", 0) - old.get("current_records", 0) <= bound
    # Fewer problems leave more of the budget: any match may then be returned where it was counted.
    fewer = len(kept) + new.get("problems_omitted", 0) < len(had) + old.get("problems_omitted", 0)
    new_ones = fewer or all(path in broken for path in only_new)
    # What both answers hold is held alike: a record or a problem of the same note, field by
    # field — but a record given without its text (the first, when it did not fit) may now
    # come whole in the budget fewer problems left.
    records_old = {r["path"]: r for r in old.get("records", [])}
    problems_old = {p["path"]: p for p in old.get("problems", [])}

    def same_record(was: Json, now: Json) -> bool:
        if "text" not in was and fewer:
            now = {k: v for k, v in now.items() if k not in ("text", "hint", "bytes")}
            was = {k: v for k, v in was.items() if k not in ("hint", "bytes")}
        return bool(was == now)

    alike = all(same_record(records_old.get(r["path"], r), r) for r in new.get("records", [])) and all(
        problems_old.get(p["path"], p) == p for p in new.get("problems", [])
    )
    # A record returned before and no longer is named among what did not fit, or gave way to a
    # broken note returned now, or to the first record now whole.
    returned_new = {r["path"] for r in new.get("records", [])}
    whole_now = any("text" not in was and path in returned_new for path, was in records_old.items())
    # Or, fewer problems leaving more room, to a better match named before among what did not fit.
    best_old = {r["path"] for r in old.get("omitted_best", [])}
    better = fewer and any(r["path"] in best_old for r in new.get("records", []) if r["path"] not in records_old)
    gave_way = any(path in broken for path in only_new) or (fewer and whole_now) or better
    kept_records = all(p in returned_new or p in named_new or gave_way for p in records_old)
    shown = new_ones and few_names and same_order and grown and counted and alike and kept_records
    return bound > 0 and named_before and status and shown


def paged_from(page: Json, full: Json, offset: int) -> bool:
    """Whether a get_backlinks page is the slice of the whole listing it says it is."""
    if "result" not in page or "result" not in full or full["result"]["omitted"]:
        return False
    lines, every = page["result"]["records"], full["result"]["records"]
    after_page = len(every) - offset - len(lines)
    return bool(lines == every[offset : offset + len(lines)] and page["result"]["omitted"] == after_page)


def gained_in_fences(before: Json, after: Json, sensitive: frozenset[str]) -> bool:
    """Whether the whole backlinks listing after is the one before with lines added, each in a
    note whose fences the two readings tell apart, and nothing else changed."""
    if "result" not in before or "result" not in after:
        return False
    old, new = before["result"], after["result"]
    if {k for k in set(old) | set(new) if old.get(k) != new.get(k)} != {"records"}:
        return False
    kept = iter(new["records"])
    if not all(any(line == found for found in kept) for line in old["records"]):
        return False  # the lines found before, in order, among the lines found now
    gained = [line for line in new["records"] if line not in old["records"]]
    return bool(gained) and all(line["path"] in sensitive for line in gained)


def _names(path: str) -> set[str]:
    """What a read_note argument may say for the note at `path`."""
    return {path, path.removesuffix(".md"), Path(path).stem}


def _fence_note(
    tool: str, args: Mapping[str, Json], diffs: Sequence[tuple[str, Json, Json]], sensitive: frozenset[str]
) -> bool:
    """read_note of a note whose fences the two readings tell apart: its sections (and so
    whether the section asked is there) may differ."""
    if tool != "read_note" or not any(args["note"].split("#")[0] in _names(path) for path in sensitive):
        return False
    found_now = [where for where, old, _ in diffs if where in {".error", ".result"}]
    if found_now and [w for w, *_ in diffs] != [".error", ".result"]:
        return False
    if found_now and "has no section" not in str(diffs[0][1]):
        return False
    return all(where.startswith(".result.sections") or where in found_now for where, _, _ in diffs)


_RECORD_PART = re.compile(r"\.result\.(records|omitted_best)\[(\d+)\]\.(matched|coverage)\b")


def _fence_matches(tool: str, diffs: Sequence[tuple[str, Json, Json]], after: Json, sensitive: frozenset[str]) -> bool:
    """A recall returning the same records, where those of notes whose fences the two readings
    tell apart hold their words in other places (a heading after the block)."""
    if tool not in RECALLS:
        return False
    for where, _, _ in diffs:
        part = _RECORD_PART.match(where)
        if part is None or after["result"][part.group(1)][int(part.group(2))]["path"] not in sensitive:
            return False
    return True


_NO_RECORDS = "there are no current records here"
_NO_MATCH = "no current record holds any meaningful word of the query"
_STRICT = "no current record holds every word of the query as written"


def _nothing_here(tool: str, args: Mapping[str, Json], diffs: Sequence[tuple[str, Json, Json]]) -> bool:
    if tool != "recall_context" or [where for where, _, _ in diffs] != [".result.hint"]:
        return False
    _, old, new = diffs[0]
    command = f"`vault-recall subject add {args.get('subject') or 'SUBJECT'} --folder FOLDER`"
    return old == _NO_RECORDS and isinstance(new, str) and new.startswith(f"{_NO_RECORDS}. ") and command in new


def _strict_hint(tool: str, args: Mapping[str, Json], diffs: Sequence[tuple[str, Json, Json]]) -> bool:
    if tool != "recall_context" or args.get("match") != "all" or [w for w, _, _ in diffs] != [".result.hint"]:
        return False
    _, old, new = diffs[0]
    return str(old).startswith(_NO_MATCH) and str(new).startswith(_STRICT)


# The weight of a hit in each field, as docs/tools.md gives them for `match: "all"`.
_STRICT_WEIGHTS = {"title": 3, "aliases": 3, "heading": 2, "tags": 2, "body": 1}
_STRICT_PARTS = (".result.records", ".result.omitted", ".result.omitted_best")


def _strict_score(entry: Json) -> int:
    return sum(max(_STRICT_WEIGHTS[f] for f in fields) for fields in entry["matched"].values())


def _strict_ranked(args: Mapping[str, Json], before: Json, after: Json) -> bool:
    """The records and names of a `match: "all"` answer as `strict_fields` allows them."""
    old, new = before["result"], after["result"]
    wanted = set(query_words(str(args.get("query") or "")))
    records, named = new.get("records", []), new.get("omitted_best", [])
    # Each holds every word asked, somewhere.
    if not all(set(e["matched"]) == wanted and all(e["matched"].values()) for e in (*records, *named)):
        return False
    # Best field hits first; ties newest first, then by path.
    keys = [(-_strict_score(r), "" if r.get("modified") is None else r["modified"], r["path"]) for r in records]
    newest = all(
        a[0] < b[0] or (a[0] == b[0] and (a[1] > b[1] or (a[1] == b[1] and a[2] <= b[2])))
        for a, b in itertools.pairwise(keys)
    )
    if not newest or [_strict_score(e) for e in named] != sorted((_strict_score(e) for e in named), reverse=True):
        return False
    # As many matches, or more by at most the broken notes the earlier answer counted (`passages`).
    grown = len(records) + new.get("omitted", 0) - len(old.get("records", [])) - old.get("omitted", 0)
    if not 0 <= grown <= len(old.get("problems", [])) + old.get("problems_omitted", 0):
        return False
    # A record both return: the same but for `heading` where a word is found — or, given as
    # passages now, passages of the text it had.
    held = {r["path"]: r for r in old.get("records", [])}
    for record in records:
        was = held.get(record["path"])
        if was is None:
            continue
        if was["matched"].keys() != record["matched"].keys():
            return False
        for word, fields in record["matched"].items():
            if [f for f in fields if f != "heading"] != [f for f in was["matched"][word] if f != "heading"]:
                return False
            if "heading" in was["matched"][word] and "heading" not in fields:
                return False
        if any(was.get(k) != record.get(k) for k in _MATCH_FIELDS if k != "matched"):
            return False
        # Its text as `passages` allows: whole before and now, the same; as passages now,
        # slices of the text it had (one given without text before may be whole or passages).
        text = was.get("text")
        if "passages" in record:
            if text is not None and not all(p["text"] in text for p in record["passages"]):
                return False
        elif text is not None and record.get("text") != text:
            return False
    return True


def _strict_fields(
    tool: str, args: Mapping[str, Json], diffs: Sequence[tuple[str, Json, Json]], before: Json, after: Json
) -> bool:
    """Whether a `match: "all"` recall's records and names are as `strict_fields` allows."""
    if tool != "recall_context" or args.get("match") != "all" or "result" not in before or "result" not in after:
        return False
    return any(where.startswith(_STRICT_PARTS) for where, _, _ in diffs) and _strict_ranked(args, before, after)


def _as_ranked_now(before: Json, after: Json) -> Json:
    """`before` with the records, names and count of matches `after` has."""
    result = {k: v for k, v in before["result"].items() if k not in ("records", "omitted", "omitted_best")}
    result.update({k: after["result"][k] for k in ("records", "omitted", "omitted_best") if k in after["result"]})
    return {**before, "result": result}


_CLOSEST_PARTS = (".result.records", ".result.omitted", ".result.hint", ".result.current_records")


def _closest(tool: str, diffs: Sequence[tuple[str, Json, Json]], before: Json, after: Json) -> bool:
    if tool not in RECALLS or "result" not in before or "result" not in after:
        return False
    old, new = before["result"], after["result"]
    if old.get("records") != [] or not str(old.get("hint", "")).startswith(_NO_MATCH):
        return False
    if not all(where.startswith(_CLOSEST_PARTS) for where, _, _ in diffs):
        return False
    records = new.get("records", [])
    found = bool(records) or new.get("omitted", 0) > 0
    return found and new.get("weak_match") is True and all(r.get("coverage") == 0 for r in records)


_COVERAGE = re.compile(r"\.result\.records\[(\d+)\]\.coverage")


def _correction_counts(tool: str, diffs: Sequence[tuple[str, Json, Json]], after: Json) -> bool:
    if tool not in RECALLS:
        return False
    for where, old, new in diffs:
        if where == ".result.weak_match" and (old, new) == (True, False):
            continue
        part = _COVERAGE.fullmatch(where)
        if part is None or not (isinstance(old, float | int) and isinstance(new, float | int) and new > old):
            return False
        if not any(" → " in word for word in after["result"]["records"][int(part.group(1))]["matched"]):
            return False
    return True


def _corrects(answer: Json) -> bool:
    """Whether an answer's first record holds a word only as a correction of one asked."""
    records = answer.get("result", {}).get("records", [])
    return bool(records) and any(" → " in word for word in records[0].get("matched", {}))


def _as_marked_before(before: Json, after: Json) -> Json:
    """`after` with its weak mark, and the coverage of its records holding a correction, as
    `before` had them."""
    coverage = {r["path"]: r.get("coverage") for r in before["result"].get("records", [])}
    records = [
        {**r, "coverage": coverage[r["path"]]}
        if r["path"] in coverage and any(" → " in word for word in r.get("matched", {}))
        else r
        for r in after["result"].get("records", [])
    ]
    return {**after, "result": {**after["result"], "records": records, "weak_match": True}}


def _corrected(answer: Json) -> set[str]:
    """The query words an answer's records and names show taken for another."""
    result = answer.get("result", {})
    named = [*result.get("records", []), *result.get("omitted_best", [])]
    return {word.split(" → ")[0] for entry in named for word in entry.get("matched", {}) if " → " in word}


def _known_word(
    tool: str, args: Mapping[str, Json], diffs: Sequence[tuple[str, Json, Json]], before: Json, after: Json
) -> bool:
    if tool not in RECALLS or "result" not in before or "result" not in after:
        return False
    # A word one of our word lists knows, as asked ('café' is French) or as folded.
    asked = {fold_for_ranking(word): word for word in query_words(str(args.get("query") or ""))}
    lost = _corrected(before) - _corrected(after)
    dropped = {word for word in lost if knows(LIST_NAMES, [word, asked.get(word, "")])}
    parts = (*_CLOSEST_PARTS, ".result.omitted_best", ".result.weak_match")
    return bool(dropped) and all(where.startswith(parts) for where, _, _ in diffs)


_TOLD = ".result.changed_since_recalled"


def _told_otherwise(before: Json, after: Json) -> bool:
    """`told_otherwise` (module docstring): each change both tell is told alike."""
    was = {c["path"]: c for c in before["result"].get("changed_since_recalled", [])}
    now = {c["path"]: c for c in after["result"].get("changed_since_recalled", [])}
    return all(was[path] == now[path] for path in was.keys() & now.keys())


def _untold(answer: Json) -> Json:
    result = {k: v for k, v in answer["result"].items() if not k.startswith("changed_since_recalled")}
    return {**answer, "result": result}


def allowed(
    tool: str, args: Mapping[str, Json], before: Json, after: Json, sensitive: frozenset[str]
) -> tuple[str | None, list[tuple[str, Json, Json]]]:
    """The declared change (module docstring) that explains the two answers' differences, if
    one does, and the differences.  (get_backlinks' is judged on whole listings: Pair.ask.)"""
    diffs = list(differences(before, after))
    if not diffs:
        return None, diffs
    if any(where.startswith(_TOLD) for where, _, _ in diffs) and _told_otherwise(before, after):
        kind, rest = allowed(tool, args, _untold(before), _untold(after), sensitive)
        if not rest:
            return "told_otherwise", diffs
        return (None if kind is None else f"{kind} and told_otherwise"), diffs
    hint = [d for d in diffs if d[0] == ".result.hint"]
    if hint and len(hint) < len(diffs) and _nothing_here(tool, args, hint):
        # The hint of `nothing_here` beside another declared change: judged without it.
        same_hint = {**after, "result": {**after["result"], "hint": before["result"]["hint"]}}
        kind, _ = allowed(tool, args, before, same_hint, sensitive)
        return (None if kind is None else f"nothing_here and {kind}"), diffs
    if (".result.weak_match", True, False) in diffs and len(diffs) > 1 and _corrects(after):
        # `correction_counts` beside another declared change (a record now as passages): judged
        # with the mark, and the coverage of each record holding a correction, as they were.
        kind, _ = allowed(tool, args, before, _as_marked_before(before, after), sensitive)
        if kind is not None:
            return f"correction_counts and {kind}", diffs
    if _weak_mark(tool, diffs, after):
        return "weak_mark", diffs
    if _fence_note(tool, args, diffs, sensitive) or _fence_matches(tool, diffs, after, sensitive):
        return "fence_headings", diffs
    if _more_named(tool, diffs, before, after):
        return "more_named", diffs
    # Both at once: a recall unmarked by the nearly-all rule that also names more of what did not fit.
    weak = [d for d in diffs if d[0] == ".result.weak_match"]
    rest = [d for d in diffs if d[0] != ".result.weak_match"]
    if weak and rest and _weak_mark(tool, weak, after) and _more_named(tool, rest, before, after):
        return "weak_mark and more_named", diffs
    if _nothing_here(tool, args, diffs):
        return "nothing_here", diffs
    if _strict_hint(tool, args, diffs):
        return "strict_hint", diffs
    if _closest(tool, diffs, before, after):
        return "closest", diffs
    if _correction_counts(tool, diffs, after):
        return "correction_counts", diffs
    if _known_word(tool, args, diffs, before, after):
        return "known_word", diffs
    if _fewer_problems(tool, args, diffs, before, after):
        return "fewer_problems", diffs
    if _broken_shown(tool, args, diffs, before, after):
        return "broken_shown", diffs
    if _problem_share(tool, args, diffs, before, after):
        return "problem_share", diffs
    if _passages(tool, diffs, before, after):
        return "passages", diffs
    if _passages_and_problem_share(tool, args, diffs, before, after):
        return "passages and problem_share", diffs
    if _strict_fields(tool, args, diffs, before, after):
        # Last: the strict match's records and names judged on their own, the rest of the
        # answer against the earlier one's, as another declared change may allow.
        kind, rest = allowed(tool, args, _as_ranked_now(before, after), after, sensitive)
        if not rest:
            return "strict_fields", diffs
        return (None if kind is None else f"strict_fields and {kind}"), diffs
    return None, diffs


# The sentence on `weak_match` that the nearly-all rule rewrote: in the instructions, and in
# recall_context's description.
_WEAK_SENTENCES = (
    re.compile(r"When a recall says\s+`weak_match: true`.*?does not say\.", re.DOTALL),
    re.compile(r"`coverage` the share of the query's.*?does not say\.", re.DOTALL),
)


# The sentences on a recall's limits and its records' shape that passages rewrote.
_PASSAGE_SENTENCES = (
    re.compile(r"Limits: at most `limit` records.*?(?:read it with read_note\.|read_note one\.)", re.DOTALL),
    re.compile(r"each record is \{path,\s+title, text.*?\}\.", re.DOTALL),
    re.compile(r"Bounded like recall_context:.*?`omitted`[^.]*\.", re.DOTALL),
    re.compile(r"memory records \(whole notes[^)]*\)"),
    # The instructions: what a record is, and the first record with no text at all.
    re.compile(r"Records are whole notes, never cut;"),
    re.compile(r"A record is a whole note \(`text`\).*?for the rest of it\);", re.DOTALL),
    re.compile(r"record\s+without `text`(?: or `passages`)? is"),
)


def without_weak_sentence(text: str | None) -> str | None:
    if text is None:
        return None
    for sentence in _WEAK_SENTENCES:
        text = sentence.sub("<weak_match sentence>", text)
    for sentence in _PASSAGE_SENTENCES:
        text = sentence.sub("<passages sentence>", text)
    return text


@dataclass
class Tally:
    """What a comparison did: calls compared, differences each declared change explained (by
    tool), and those nothing explained."""

    calls: int = 0
    explained: Counter[str] = field(default_factory=Counter)
    unexplained: list[Difference] = field(default_factory=list)
    by_tool: Counter[str] = field(default_factory=Counter)
    missed: int = 0  # calls this tree answered with an error or with no records
    told: int = 0  # answers carrying `changed_since_recalled`

    def note(self, tool: str, after: Json) -> None:
        self.calls += 1
        self.by_tool[tool] += 1
        if "error" in after or after["result"].get("records") == []:
            self.missed += 1
        self.told += "changed_since_recalled" in after.get("result", {})


@dataclass
class Pair:
    """The two servers of one client over one vault, asked the same calls at once."""

    before: Client
    after: Client
    sensitive: frozenset[str]
    tally: Tally

    async def both(self, tool: str, arguments: Mapping[str, Json]) -> tuple[Json, Json]:
        """Both servers' answers to one call, asked at once."""
        answers: dict[str, Json] = {}

        async def one(name: str, session: Client) -> None:
            answers[name] = answer_of(await session.call_tool(tool, dict(arguments)))

        async with anyio.create_task_group() as group:
            group.start_soon(one, "before", self.before)
            group.start_soon(one, "after", self.after)
        self.tally.note(tool, answers["after"])
        return answers["before"], answers["after"]

    async def ask(self, tool: str, args: Mapping[str, Json] | None = None) -> Json:
        """Ask both; compare; return this tree's answer (what later calls are chosen from)."""
        arguments = dict(args or {})
        before, after = await self.both(tool, arguments)
        kind, diffs = allowed(tool, arguments, before, after, self.sensitive)
        if diffs and tool == "get_backlinks" and await self._gained_in_fences(arguments, before, after):
            kind = "fence_links"
        if kind is not None:
            self.tally.explained[f"{kind}: {tool}"] += 1
        else:
            self.tally.unexplained += [Difference(tool, arguments, w, b, a) for w, b, a in diffs]
        return after

    async def _gained_in_fences(self, arguments: Mapping[str, Json], before: Json, after: Json) -> bool:
        """Backlinks differ as the fence fix explains: each answer is a page of its server's
        whole listing, and the whole listing gained lines in fence-sensitive notes only."""
        whole = {"note": arguments["note"], "limit": 200, "budget": 65536}
        whole_before, whole_after = await self.both("get_backlinks", whole)
        offset = arguments.get("offset", 0)
        return (
            paged_from(before, whole_before, offset)
            and paged_from(after, whole_after, offset)
            and gained_in_fences(whole_before, whole_after, self.sensitive)
        )

    async def compare_listings(self) -> None:
        """The instructions and the tools each server offers: the same but for the weak sentence."""
        before_tools = {t.name: t for t in (await self.before.list_tools()).tools}
        after_tools = {t.name: t for t in (await self.after.list_tools()).tools}
        self.tally.calls += 1
        pairs: list[tuple[str, Json, Json]] = [
            (
                "instructions",
                without_weak_sentence(self.before.instructions),
                without_weak_sentence(self.after.instructions),
            ),
            ("tools", sorted(before_tools), sorted(after_tools)),
        ]
        for name in sorted(set(before_tools) & set(after_tools)):
            old, new = before_tools[name], after_tools[name]
            pairs += [
                (f"{name}.description", without_weak_sentence(old.description), without_weak_sentence(new.description)),
                (f"{name}.input_schema", old.input_schema, new.input_schema),
                (f"{name}.output_schema", old.output_schema, new.output_schema),
                (f"{name}.annotations", old.annotations, new.annotations),
            ]
        for where, old_value, new_value in pairs:
            if old_value != new_value:
                self.tally.unexplained.append(Difference("tools/list", {}, where, old_value, new_value))
        if any(without_weak_sentence(t.description) != t.description for t in after_tools.values()):
            self.tally.explained["descriptions: tools/list"] += 1


@asynccontextmanager
async def pair(before: Side, after: Side, client: str, vault: Path, cwd: Path, tally: Tally) -> AsyncIterator[Pair]:
    """Both servers of `client` running, each in its own process."""
    async with AsyncExitStack() as stack:
        old = await stack.enter_async_context(Client(before.params(client, cwd), read_timeout_seconds=60))
        new = await stack.enter_async_context(Client(after.params(client, cwd), read_timeout_seconds=60))
        yield Pair(old, new, fence_sensitive(vault), tally)


def side_env(home: Path, **extra: str) -> dict[str, str]:
    """This process's environment with its own config and state folder (and `extra`)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return {**env, "VAULT_RECALL_HOME": str(home), **extra}
