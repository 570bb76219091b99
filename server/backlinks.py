"""`get_backlinks`: the notes this client may see that link to a note, with the linking line."""

from __future__ import annotations

from typing import Any

from server.arguments import check_range
from server.packing import answer, pack
from server.resolve import NameIndex, resolve_argument, resolve_link
from server.scope import Scope
from server.search import hit
from server.uri import obsidian_uri
from server.view import VaultView, view_or_unavailable

BACKLINK_LIMIT_RANGE = (1, 200)
# get_backlinks has no budget argument; this keeps its answers about as large as a search's.
BACKLINK_BUDGET = 16384


def get_backlinks(scope: Scope, note: str, limit: int = 50) -> dict[str, Any]:
    """Every line of a visible note holding a wikilink, embed or markdown link to `note`."""
    check_range("limit", limit, *BACKLINK_LIMIT_RANGE)
    envelope: dict[str, Any] = {"status": "ok", "untrusted": True, "vault": None}
    view = view_or_unavailable(scope, envelope)
    if view is None:
        return pack(envelope, [], budget=BACKLINK_BUDGET, limit=limit)
    target, _ = resolve_argument(view, note)
    envelope.update(note=target, uri=obsidian_uri(view.name, target))
    index = _link_index(view)
    hits: list[dict[str, Any]] = []
    for path in sorted(view.visible):
        if path == target:
            continue
        source = view.visible[path]
        seen_lines: set[int] = set()
        for key, link in source.property_links:
            line_number = source.property_lines.get(key, 1)
            if line_number not in seen_lines and resolve_link(index, link, path) == target:
                seen_lines.add(line_number)
                value = f"{key}: {link.target}"
                hits.append(hit(path, line_number, value, len(key) + 2, len(value), view.name))
        for link in source.links:
            line_number = source.body_first_line + link.line - 1
            if line_number in seen_lines or resolve_link(index, link, path) != target:
                continue
            seen_lines.add(line_number)
            line = source.lines[link.line - 1]
            hits.append(hit(path, line_number, line, link.column, link.column + link.length, view.name))
    problems = view.problems()
    return answer(envelope, hits, budget=BACKLINK_BUDGET, limit=limit, problems=problems)


def _link_index(view: VaultView) -> NameIndex:
    """The notes links are resolved against.

    With the whole vault shared, every note, as in Obsidian.  Otherwise only the notes this
    client may see: resolving against hidden ones would let the answer change with, and so
    reveal, the existence of notes the client was not given (the price: a '[[Plan]]' meant
    for an unshared 'Plan' may be counted as a link to a shared 'Plan' elsewhere).
    """
    if view.exposure_mode == "vault":
        entries = [(n.path, n.aliases) for n in view.scan.notes]
        entries += [(n.path, ()) for n in view.scan.invalid if n.path.endswith(".md")]
    else:
        entries = [(path, note.aliases) for path, note in view.visible.items()]
    return NameIndex.of(entries)
