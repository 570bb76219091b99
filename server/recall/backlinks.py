"""`get_backlinks`: the notes this client may see that link to a note, with the linking line."""

from __future__ import annotations

from typing import Any

from vault_recall.server.obsidian.note import Note
from vault_recall.server.obsidian.resolve import NameIndex, resolve_argument, resolve_link
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
    visible_notes,
)

BACKLINK_LIMIT_RANGE = (1, 200)
# get_backlinks has no budget argument; this keeps its answers about as large as a search's.
BACKLINK_BUDGET = 16384


def get_backlinks(scope: Scope, note: str, limit: int = 50) -> dict[str, Any]:
    """Every line of a visible note holding a wikilink, embed or markdown link to `note`.

    Two passes that keep no note's text: one indexes the names (to resolve `note` and every
    link), one reads the visible notes again for their links.  Holding every note of a large
    vault between the two would be most of the process's memory.
    """
    check_range("limit", limit, *BACKLINK_LIMIT_RANGE)
    envelope: dict[str, Any] = {"status": "ok", "untrusted": True, "vault": None}
    names = index_or_unavailable(scope, envelope)
    if names is None:
        return pack(envelope, [], budget=BACKLINK_BUDGET, limit=limit)
    target, _ = resolve_argument(names.root, names.reachable(), note)
    envelope.update(note=target, uri=obsidian_uri(names.name, target))
    index = _link_index(names, scope.exposure.mode == "vault")
    listing = listing_or_unavailable(scope, envelope)
    if listing is None:
        return pack(envelope, [], budget=BACKLINK_BUDGET, limit=limit)
    hits: list[dict[str, Any]] = []
    for source in visible_notes(scope.exposure, listing):
        if source.path != target:
            hits += _links_to(target, source, index, names.name)
    problems = [problem(n) for n in names.broken.values()]
    return answer(envelope, hits, budget=BACKLINK_BUDGET, limit=limit, problems=problems)


def _links_to(target: str, source: Note, index: NameIndex, vault: str) -> list[dict[str, Any]]:
    """The hits of one source note: each line linking to `target`, once."""
    hits: list[dict[str, Any]] = []
    path = source.path
    seen_lines: set[int] = set()
    for key, link in source.property_links:
        line_number = source.property_lines.get(key, 1)
        if line_number not in seen_lines and resolve_link(index, link, path) == target:
            seen_lines.add(line_number)
            value = f"{key}: {link.target}"
            hits.append(hit(path, line_number, value, len(key) + 2, len(value), vault))
    for link in source.links:
        line_number = source.body_first_line + link.line - 1
        if line_number in seen_lines or resolve_link(index, link, path) != target:
            continue
        seen_lines.add(line_number)
        line = source.lines[link.line - 1]
        hits.append(hit(path, line_number, line, link.column, link.column + link.length, vault))
    return hits


def _link_index(names: VaultIndex, whole_vault: bool) -> NameIndex:
    """The notes links are resolved against.

    With the whole vault shared, every note, as in Obsidian.  Otherwise only the notes this
    client may see: resolving against hidden ones would let the answer change with, and so
    reveal, the existence of notes the client was not given (the price: a '[[Plan]]' meant
    for an unshared 'Plan' may be counted as a link to a shared 'Plan' elsewhere).
    """
    entries = list(names.aliases.items())
    if whole_vault:
        entries += [(path, ()) for path in names.broken if path.endswith(".md") and path not in names.aliases]
    return NameIndex.of(entries)
