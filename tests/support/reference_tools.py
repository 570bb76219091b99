"""read_note, get_backlinks and search_notes as they were before they streamed: the whole
vault read into a view (tests/support/whole_vault.py), every hit kept whole, then packed.  The
streaming tools must answer exactly as these do.

Reading the whole vault is most of what a comparison costs, and the tests compare hundreds of
calls on one vault; so a view is kept while every entry under the vault is as it was when the
view was read (its name, kind, mode, size, inode and times, looked at on every call), and the
vault is read again otherwise.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, cast

from tests.support.whole_vault import VaultView, excluded_note_paths, view_or_unavailable
from vault_recall.server.errors import RecallError
from vault_recall.server.obsidian.resolve import NameIndex, obsidian_uri
from vault_recall.server.obsidian.syntax import lines_between
from vault_recall.server.recall import packing
from vault_recall.server.recall.answers import reading
from vault_recall.server.recall.answers.backlinks import could_link, links_to
from vault_recall.server.recall.answers.search import hit
from vault_recall.server.recall.finding.view import problem
from vault_recall.server.recall.packing import json_size
from vault_recall.server.recall.results import Packed, ReadNoteResult
from vault_recall.server.recall.scope import Scope


# The reference answers and these properties hold plain dicts; the packing functions are typed
# for the tools' own result types, which the same code serves whatever the type says.
def pack(envelope: Mapping[str, Any], candidates: Sequence[object], **kw: Any) -> dict[str, Any]:
    return cast("dict[str, Any]", packing.pack(cast(Packed, envelope), candidates, **kw))


def answer(envelope: Mapping[str, Any], candidates: Sequence[object], **kw: Any) -> dict[str, Any]:
    return cast("dict[str, Any]", packing.answer(cast(Packed, envelope), candidates, **kw))


_VIEWS: dict[tuple[Scope, str], VaultView] = {}
_EXCLUDED: dict[tuple[Path, str], list[str]] = {}
_KEPT = 16  # views of this many (scope, vault state) pairs at most


def fingerprint(root: Path) -> str:
    """A digest of what every entry under `root` is: its path, kind, mode, size, inode, link
    target, and the times a write or a change of its metadata sets (nanoseconds)."""
    digest = hashlib.sha256()
    for folder, folders, files in os.walk(root):
        folders.sort()
        for name in sorted(folders + files):
            path = os.path.join(folder, name)
            info = os.lstat(path)
            facts = (info.st_mode, info.st_size, info.st_ino, info.st_mtime_ns, info.st_ctime_ns)
            digest.update(f"{os.path.relpath(path, root)}\0{facts}\0".encode(errors="surrogateescape"))
            if stat.S_ISLNK(info.st_mode):
                digest.update(os.fsencode(os.readlink(path)))
    return digest.hexdigest()


def _view_or_unavailable(scope: Scope, result: dict[str, Any]) -> VaultView | None:
    """whole_vault.view_or_unavailable, with the view kept while the vault is unchanged."""
    if scope.vault is None or not scope.vault.is_dir():
        return view_or_unavailable(scope, result)
    key = (scope, fingerprint(scope.vault))
    view = _VIEWS.get(key)
    if view is None:
        view = view_or_unavailable(scope, result)
        if view is not None:
            if len(_VIEWS) >= _KEPT:
                _VIEWS.clear()
            _VIEWS[key] = view
        return view
    if "vault" in result:
        result["vault"] = view.name
    return view


def _excluded_note_paths(root: Path) -> list[str]:
    key = (root, fingerprint(root))
    if key not in _EXCLUDED:
        if len(_EXCLUDED) >= _KEPT:
            _EXCLUDED.clear()
        _EXCLUDED[key] = excluded_note_paths(root)
    return list(_EXCLUDED[key])


def reference_read(scope: Scope, note: str, section: str | None, budget: int) -> dict[str, Any]:
    """read_note as it was: the whole vault in a view, the note taken from it."""
    result: dict[str, Any] = {"status": "ok", "untrusted": True, "vault": None}
    view = _view_or_unavailable(scope, result)
    if view is None:
        return result
    path, subpath = view.resolve(note)
    wanted = section.strip() if section and section.strip() else subpath
    if path in view.broken and path not in view.visible:
        return cast("dict[str, Any]", reading._broken_note(view.name, path, problem(view.broken[path]), budget))
    found = view.visible[path]
    if path in view.broken:  # shown as Obsidian shows it, with its problem
        result.update(status="degraded", problems=[problem(view.broken[path])])
    result.update(
        path=found.path,
        title=found.title,
        properties=dict(found.properties),
        text=found.body,
        revision=found.revision,
        modified=found.modified,
        uri=obsidian_uri(view.name, found.path),
        sections=reading.section_list(found),
    )
    if wanted:
        span = reading.find_section(found, wanted)
        result["section"] = wanted
        result["text"] = lines_between(found.lines, span)
    if json_size(result) <= budget:
        return result
    del result["text"]
    result["hint"] = f"{'section' if wanted else 'note'} over budget: ask for one section, or raise budget"
    reading._fit_sections(cast(ReadNoteResult, result), budget)
    return result


def outcome(read: Any, *args: Any) -> Any:
    try:
        return read(*args)
    except RecallError as exc:
        return f"{type(exc).__name__}: {exc}"


def reference_backlinks(scope: Scope, note: str, limit: int, budget: int, offset: int) -> dict[str, Any]:
    """get_backlinks as it was: the whole vault in a view, every hit in memory, then a page."""
    envelope: dict[str, Any] = {"status": "ok", "untrusted": True, "vault": None}
    view = _view_or_unavailable(scope, envelope)
    if view is None:
        return pack(envelope, [], budget=budget, limit=limit)
    target, _ = view.resolve(note)
    envelope.update(note=target, uri=obsidian_uri(view.name, target), offset=offset)
    paths = sorted(view.visible)
    if view.exposure_mode == "vault":
        paths += [n.path for n in view.scan.invalid if n.path.endswith(".md") and n.path not in view.visible]
        paths += _excluded_note_paths(view.root)  # hidden from search, not from links
    index = NameIndex.of([(path, ()) for path in paths])  # aliases are no link targets
    hits = [
        h
        for path in sorted(view.visible)
        if path != target
        for h in links_to(target, view.visible[path], index, view.name)
    ]
    problems = [problem(n) for n in view.broken.values() if could_link(n, target)]
    envelope["next_offset"] = len(hits)
    result = answer(envelope, hits[offset:], budget=budget, limit=limit, problems=problems, contiguous=True)
    if result["omitted"] and result["records"]:
        result["next_offset"] = offset + len(result["records"])
    else:
        del result["next_offset"]
    return result


def reference_search(scope: Scope, query: str, limit: int, budget: int, subject: str | None) -> dict[str, Any]:
    """The search as it was: every visible note in memory, every hit a dict, then packed."""
    envelope: dict[str, Any] = {"status": "ok", "untrusted": True, "vault": None, "query": query}
    if subject is not None:
        envelope["subject"] = subject
    view = _view_or_unavailable(scope, envelope)
    if view is None:
        return pack(envelope, [], budget=budget, limit=limit)
    notes = [
        note
        for path, note in view.visible.items()
        if subject is None or (path in view.records and subject in view.records[path].subjects)
    ]
    notes.sort(key=lambda n: (tuple(-ord(c) for c in n.modified), n.path))
    pattern = re.compile(re.escape(query.strip()), re.IGNORECASE)
    hits = []
    for note in notes:  # a search per line of the whole file, as grep does
        for number, line in enumerate(_file_lines(note.data), start=1):
            found = pattern.search(line)
            if found:
                hits.append(hit(note.path, number, line, found.start(), found.end(), view.name))
    wanted = (subject,) if subject else None
    problems = [
        problem(n)
        for n in view.broken.values()
        if (wanted is None or n.subjects is None or subject in n.subjects)
        and (n.readable is None or any(pattern.search(line) for line in _file_lines(n.readable.data)))
    ]
    return answer(envelope, hits, budget=budget, limit=limit, problems=problems)


def _file_lines(data: bytes) -> list[str]:
    text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
