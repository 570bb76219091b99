"""`get_backlinks`: the notes this client may see that link to a note, with the linking line —
the lines Obsidian's Backlinks pane lists, a page at a time."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from vault_recall.server.obsidian.note import InvalidNote, Note
from vault_recall.server.obsidian.resolve import NameIndex, fold, resolve_argument, resolve_link
from vault_recall.server.obsidian.syntax import wikilinks_in
from vault_recall.server.obsidian.uri import obsidian_uri
from vault_recall.server.recall.arguments import check_range
from vault_recall.server.recall.packing import answer, pack
from vault_recall.server.recall.scope import Scope
from vault_recall.server.recall.search import hit
from vault_recall.server.recall.view import (
    VaultIndex,
    index_or_unavailable,
    listing_or_unavailable,
    problem,
    seen_notes,
)

BACKLINK_LIMIT_RANGE = (1, 200)
BACKLINK_BUDGET_RANGE = (1024, 65536)
BACKLINK_BUDGET = 16384
MAX_OFFSET = 10_000_000


def get_backlinks(
    scope: Scope, note: str, limit: int = 50, budget: int = BACKLINK_BUDGET, offset: int = 0
) -> dict[str, Any]:
    """Every line of a visible note holding a wikilink, embed or markdown link to `note`, in
    path then line order, from the `offset`-th on: as many as fit `limit` and `budget`, with
    `next_offset` to ask for the next page when more remain.

    Two passes that keep no note's text: one indexes the names (to resolve `note` and every
    link), one reads the visible notes again for their links.  Holding every note of a large
    vault between the two would be most of the process's memory.
    """
    check_range("limit", limit, *BACKLINK_LIMIT_RANGE)
    check_range("budget", budget, *BACKLINK_BUDGET_RANGE)
    check_range("offset", offset, 0, MAX_OFFSET)
    envelope: dict[str, Any] = {"status": "ok", "untrusted": True, "vault": None}
    names = index_or_unavailable(scope, envelope)
    if names is None:
        return pack(envelope, [], budget=budget, limit=limit)
    target, _ = resolve_argument(names.root, names.reachable(), note)
    envelope.update(note=target, uri=obsidian_uri(names.name, target), offset=offset)
    index = link_index(names, scope.exposure.mode == "vault")
    listing = listing_or_unavailable(scope, envelope)
    if listing is None:
        return pack(envelope, [], budget=budget, limit=limit)
    hits: list[dict[str, Any]] = []
    problems: dict[str, dict[str, str]] = {}
    for source, trouble in seen_notes(scope.exposure, listing):
        if trouble is not None and could_link(trouble, target):
            problems[trouble.path] = problem(trouble)
        if source is not None and source.path != target:
            hits += links_to(target, source, index, names.name)
    page = hits[offset:]
    # Room for the largest next_offset there can be, so the page fits with it.
    envelope["next_offset"] = offset + len(page)
    result = answer(envelope, page, budget=budget, limit=limit, problems=list(problems.values()), contiguous=True)
    if result["omitted"] and result["records"]:
        result["next_offset"] = offset + len(result["records"])
    else:
        del result["next_offset"]
    return result


def could_link(trouble: InvalidNote, target: str) -> bool:
    """Could this broken note link to `target`, so that the answer may lack its links?  Its
    text names the target (as written in a wikilink, or URL-encoded in a markdown link); a note
    that could not be read at all might."""
    note = trouble.readable
    if note is None:
        return True
    name = fold(target.rsplit("/", 1)[-1].removesuffix(".md"))
    text = fold(note.data.decode("utf-8", errors="replace"))
    return name in text or fold(quote(name)) in text


def links_to(target: str, source: Note, index: NameIndex, vault: str) -> list[dict[str, Any]]:
    """The hits of one source note: each line linking to `target`, once, with its file line."""
    hits: list[dict[str, Any]] = []
    path = source.path
    seen_lines: set[int] = set()
    for line_number, line, column, length in _property_links_to(target, source, index):
        if line_number not in seen_lines:
            seen_lines.add(line_number)
            hits.append(hit(path, line_number, line, column, column + length, vault))
    for link in source.links:
        line_number = source.body_first_line + link.line - 1
        if line_number in seen_lines or resolve_link(index, link, path) != target:
            continue
        seen_lines.add(line_number)
        line = source.lines[link.line - 1]
        hits.append(hit(path, line_number, line, link.column, link.column + link.length, vault))
    return hits


def _property_links_to(target: str, source: Note, index: NameIndex) -> list[tuple[int, str, int, int]]:
    """(file line, line as written, column, length) of the links in property values that
    resolve to `target`: found on the properties lines themselves, so a hit shows the line the
    link is written on, and kept only where the properties hold that link (not in a comment)."""
    wanted = {(link.target, link.subpath) for _, link in source.property_links}
    if not wanted or source.yaml_text is None:
        return []
    found = []
    # The block's first line is the opening '---' line: its text starts on file line 1.
    for number, line in enumerate(source.yaml_text.split("\n"), start=1):
        if "[[" not in line:
            continue
        for link in wikilinks_in(line, number):
            if (link.target, link.subpath) in wanted and resolve_link(index, link, source.path) == target:
                found.append((number, line, link.column, link.length))
                break
    return found


def link_index(names: VaultIndex, whole_vault: bool) -> NameIndex:
    """The notes links are resolved against.

    With the whole vault shared, every note, as in Obsidian.  Otherwise only the notes this
    client may see: resolving against hidden ones would let the answer change with, and so
    reveal, the existence of notes the client was not given (the price: a '[[Plan]]' meant
    for an unshared 'Plan' may be counted as a link to a shared 'Plan' elsewhere).
    """
    # Paths only: aliases are no link targets.
    entries: list[tuple[str, tuple[str, ...]]] = [(path, ()) for path in names.aliases]
    if whole_vault:
        entries += [(path, ()) for path in names.broken if path.endswith(".md") and path not in names.aliases]
    return NameIndex.of(entries)
