"""`get_backlinks`: the notes this client may see that link to a note, with the linking line —
the lines Obsidian's Backlinks pane lists, a page at a time."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import quote

from vault_recall.server.obsidian.note import InvalidNote, Note
from vault_recall.server.obsidian.resolve import NameIndex, fold, obsidian_uri, resolve_link, resolve_names
from vault_recall.server.obsidian.syntax import parse_links, wikilinks_in
from vault_recall.server.recall.answers.arguments import check_arguments
from vault_recall.server.recall.answers.search import hit
from vault_recall.server.recall.finding.naming import ListedNames, path_key
from vault_recall.server.recall.finding.scan import as_seen, each_parsed, record_item
from vault_recall.server.recall.finding.text_prefilter import line_filter, name_filter
from vault_recall.server.recall.finding.view import in_view, listing_or_unavailable, problem
from vault_recall.server.recall.packing import answer, pack
from vault_recall.server.recall.results import Backlink, BacklinksHead, BacklinksResult, Problem
from vault_recall.server.recall.scope import Scope
from vault_recall.server.recall.tool_declarations import GET_BACKLINKS
from vault_recall.server.vault.listing import excluded_notes, vault_name


def get_backlinks(scope: Scope, note: str, limit: int = 50, budget: int = 16384, offset: int = 0) -> BacklinksResult:
    """Every line of a visible note holding a wikilink, embed or markdown link to `note`, in
    path then line order, from the `offset`-th on: as many as fit `limit` and `budget`, with
    `next_offset` to ask for the next page when more remain.

    One pass that keeps no note's text: `note` is resolved on the listing (naming.py), links
    against the notes that share its name, and only notes whose bytes could name it are
    parsed for their links.
    """
    check_arguments(GET_BACKLINKS, locals())
    envelope: BacklinksHead = {"status": "ok", "untrusted": True, "vault": None}
    listing = listing_or_unavailable(scope, envelope)
    if listing is None:
        return pack(_backlinks_result(envelope, []), [], budget=budget, limit=limit)
    vault = vault_name(listing.root)
    whole_vault = scope.exposure.mode == "vault"
    with ListedNames(scope.exposure, listing) as names:
        target, _ = resolve_names(listing.root, names, note)
        index = link_index(names, target, whole_vault)
    envelope["note"] = target
    envelope["uri"] = obsidian_uri(vault, target)
    envelope["offset"] = offset
    hits: list[Backlink] = []
    problems: dict[str, Problem] = {}
    # Only notes whose bytes could name the target are parsed: no other can link to it, nor
    # be a broken note that could (text_prefilter.name_filter).
    lines = line_filter(target)
    for parsed in each_parsed(listing.root, listing, name_filter(target)):
        if whole_vault:
            source, trouble = as_seen(parsed, scope.exposure.rules)
        else:
            item = record_item(parsed, None, scope.exposure.rules)
            if item is None:
                continue  # an ordinary note: not shown to a client that sees records only
            source, trouble = in_view(scope.exposure, item)
        if trouble is not None and could_link(trouble, target):
            problems[trouble.path] = problem(trouble)
        if source is not None and source.path != target:
            hits += links_to(target, source, index, vault, lines)
    page = hits[offset:]
    # Room for the largest next_offset there can be, so the page fits with it.
    envelope["next_offset"] = offset + len(page)
    unpacked = _backlinks_result(envelope, [])
    result = answer(unpacked, page, budget=budget, limit=limit, problems=list(problems.values()), contiguous=True)
    if result["omitted"] and result["records"]:
        result["next_offset"] = offset + len(result["records"])
    else:
        del result["next_offset"]
    return result


def _backlinks_result(envelope: BacklinksHead, lines: list[Backlink]) -> BacklinksResult:
    return {**envelope, "records": lines, "omitted": 0}


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


def links_to(
    target: str, source: Note, index: NameIndex, vault: str, lines: Callable[[str], bool] | None = None
) -> list[Backlink]:
    """The hits of one source note: each line linking to `target`, once, with its file line —
    looking for links only on the `lines` that could hold one (text_prefilter.line_filter)."""
    hits: list[Backlink] = []
    path = source.path
    seen_lines: set[int] = set()
    for line_number, line, column, length in _property_links_to(target, source, index):
        if line_number not in seen_lines:
            seen_lines.add(line_number)
            hits.append(hit(path, line_number, line, column, column + length, vault))
    for link in source.links if lines is None else parse_links(source.body, lines):
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


def link_index(names: ListedNames, target: str, whole_vault: bool) -> NameIndex:
    """The notes links are resolved against — only those sharing the target's name, since a
    link resolves among the notes named as it is (`resolve_link`), so only a link naming the
    target can resolve to it, and only those notes decide whether it does.

    With the whole vault shared, every such note, as in Obsidian — the ones Excluded files hide
    too, by path only: Obsidian hides them from search, not from links, so `[[Archive/Plan]]`
    is no link to a visible 'Plan' (hidden folders Obsidian does not index at all, so no note
    in one is a link target).  Otherwise only the notes this client may see: resolving against
    hidden ones would let the answer change with, and so reveal, the existence of notes the
    client was not given (the price: a '[[Plan]]' meant for an unshared 'Plan' may be counted
    as a link to a shared 'Plan' elsewhere).
    """
    name = path_key(target).rsplit("/", 1)[-1]
    if whole_vault:
        entries = [p for p in names.sharing_name(name) if p.endswith(".md") and names.reachable(p)]
        entries += [p for p in excluded_notes(names.listing) if path_key(p).rsplit("/", 1)[-1] == name]
    else:
        entries = [p for p in names.sharing_name(name) if names.judge(p)[0] is not None]
    return NameIndex.of((path, ()) for path in entries)  # paths only: aliases are no link targets
