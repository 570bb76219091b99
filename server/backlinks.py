"""`get_backlinks`: the notes this client may see that link to a note, with the linking line."""

from __future__ import annotations

from typing import Any

from server.arguments import check_range
from server.packing import pack
from server.resolve import NameIndex, resolve_argument, resolve_link
from server.scope import Scope
from server.search import hit
from server.uri import obsidian_uri
from server.view import view_or_unavailable

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
    # Links resolve against every note, as in Obsidian: which note '[[Name]]' means does not
    # depend on what this client may see.  Only the linking notes are filtered by exposure.
    everything = NameIndex.of(
        [(n.path, n.aliases) for n in view.scan.notes]
        + [(n.path, ()) for n in view.scan.invalid if n.path.endswith(".md")]
    )
    hits: list[dict[str, Any]] = []
    for path in sorted(view.visible):
        if path == target:
            continue
        source = view.visible[path]
        lines = source.body.split("\n")
        seen_lines: set[int] = set()
        for link in source.links:
            if link.line in seen_lines or resolve_link(everything, link, path) != target:
                continue
            seen_lines.add(link.line)
            line = lines[link.line - 1]
            at = max(0, line.find(link.target)) if link.target else 0
            hits.append(hit(path, source.body_first_line + link.line - 1, line, at, at + len(link.target), view.name))
    problems = view.problems()
    if problems:
        envelope["status"] = "degraded"
        return pack(envelope, hits, budget=BACKLINK_BUDGET, limit=limit, problems=problems)
    return pack(envelope, hits, budget=BACKLINK_BUDGET, limit=limit)
